"""`/trace-math`, `/trace-interview` and `/trace-prep-schedule` on Discord with the real discord.py client:
interactions built from raw payloads, HTTP answered by the fake Discord API on loopback (as in test_discord)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import discord
import pytest
from sqlalchemy import select

from bot.adapters.discord.prep import register_prep
from bot.interview import model_answer, plan, scenario_for
from bot.mathdrill.questions import question
from bot.prep.root import build_prep
from bot.store.db import Database
from bot.store.prep_models import InterviewRound, InterviewSession, MathQuestion, PrepSchedule

from .fakes.discord_api import APP_ID, FakeDiscordAPI
from .helpers import Clock
from .test_discord import CHANNEL, GUILD, MANAGE_GUILD, Harness, button_message, interaction


class PrepHarness(Harness):
    def new_bot(self):  # type: ignore[no-untyped-def]
        bot = super().new_bot()
        self.prep = build_prep(self.engine)
        register_prep(bot, self.prep)
        return bot


@pytest.fixture
async def discord_env(database: Database, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[PrepHarness]:
    api = FakeDiscordAPI()
    base = await api.start()
    monkeypatch.setattr(discord.http.Route, "BASE", base)
    h = PrepHarness(database, api, Clock(datetime.now(UTC)))
    await h.bot.client.login("test-token")
    try:
        yield h
    finally:
        await h.bot.client.close()
        await api.stop()


def command(name: str, **options: str | int) -> dict[str, Any]:
    return {
        "id": "778",
        "name": name,
        "type": 1,
        "guild_id": GUILD,
        "options": [{"name": k, "type": 4 if isinstance(v, int) else 3, "value": v} for k, v in options.items()],
    }


def message(message_id: str, custom_id: str) -> dict[str, Any]:
    return button_message(message_id, custom_id, "Answer")


def modal_submit(custom_id: str, text: str, user: str = "42") -> dict[str, Any]:
    return interaction(
        5,
        {
            "custom_id": custom_id,
            "components": [
                {"type": 1, "components": [{"type": 4, "custom_id": "tracedrill:prep-answer", "value": text}]}
            ],
        },
        user=user,
    )


async def followup(h: PrepHarness, payload: dict[str, Any]) -> str:
    reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{payload['token']}"))[-1].json
    assert reply["flags"] & 64, "ephemeral"  # type: ignore[index]
    return str(reply["content"])  # type: ignore[index]


async def press(h: PrepHarness, custom_id: str, message_id: str, user: str = "42") -> dict[str, Any]:
    p = h.send(
        interaction(3, {"custom_id": custom_id, "component_type": 2}, user=user, message=message(message_id, custom_id))
    )
    return (await h.api.wait_for("POST", f"/interactions/{p['id']}/"))[0].json  # type: ignore[return-value]


async def test_math_question_modal_reveal_in_thread_and_board(discord_env: PrepHarness) -> None:
    h = discord_env
    cmd = h.send(interaction(2, command("trace-math", kind="ridge")))
    assert (await h.api.wait_for("POST", f"/interactions/{cmd['id']}/"))[0].json["type"] == 5  # type: ignore[index]
    post = (await h.api.wait_for("POST", f"/channels/{CHANNEL}/messages"))[0]
    await followup(h, cmd)
    with h.db.session() as s:
        row = s.scalars(select(MathQuestion)).one()
        qid, message_id = row.id, str(row.message_ref)
    q = question("ridge", row.seed)
    embed = post.json["embeds"][0]  # type: ignore[index]
    assert embed["description"] == q.question and post.json["allowed_mentions"] == {"parse": []}  # type: ignore[index]
    custom_id = post.json["components"][0]["components"][0]["custom_id"]  # type: ignore[index]
    assert custom_id == f"tracedrill:math:{qid}"
    modal = await press(h, custom_id, message_id)
    assert modal["type"] == 9 and modal["data"]["custom_id"] == f"tracedrill:mathmodal:{qid}"
    bad = h.send(modal_submit(f"tracedrill:mathmodal:{qid}", "lots"))
    assert "nothing was recorded" in await followup(h, bad)
    await press(h, custom_id, message_id)
    h.clock.advance(3)
    good = h.send(modal_submit(f"tracedrill:mathmodal:{qid}", f"{q.answer:.0f} FLOP/byte"))
    assert "Recorded" in await followup(h, good)
    h.clock.advance(30)
    assert await h.prep.math.reveal(qid)
    assert not await h.prep.math.reveal(qid)
    assert len(h.api.of("POST", f"/messages/{message_id}/threads")) == 1
    reveal = h.api.of("POST", f"/channels/{message_id}/messages")[-1].json["content"]  # type: ignore[index]
    assert "peak_tflops / bandwidth_tbps" in reveal and "Worked:" in reveal and "1 right" in reveal
    board = h.send(interaction(2, command("trace-math-board", period="all")))
    text = await followup(h, board)
    assert "1. User 42 — 145 pts (1/1 right)" in text


async def test_unknown_kind_and_bad_rounds_are_refused_server_side(discord_env: PrepHarness) -> None:
    h = discord_env
    cmd = h.send(interaction(2, command("trace-math", kind="nope")))
    reply = (await h.api.wait_for("POST", f"/interactions/{cmd['id']}/"))[0].json
    assert reply["type"] == 4 and "Unknown kind" in reply["data"]["content"]  # type: ignore[index]
    cmd = h.send(interaction(2, command("trace-interview", rounds=50)))
    reply = (await h.api.wait_for("POST", f"/interactions/{cmd['id']}/"))[0].json
    assert "1 to 10 rounds" in reply["data"]["content"]  # type: ignore[index]
    assert h.api.of("POST", f"/channels/{CHANNEL}/messages") == []


async def test_interview_round_then_summary_in_the_thread(discord_env: PrepHarness) -> None:
    h = discord_env
    cmd = h.send(interaction(2, command("trace-interview", rounds=1)))
    post = (await h.api.wait_for("POST", f"/channels/{CHANNEL}/messages"))[0]
    assert post.files == ["trace.png"]
    assert "round 1/1" in post.json["embeds"][0]["title"]  # type: ignore[index]
    await followup(h, cmd)
    with h.db.session() as s:
        session = s.scalars(select(InterviewSession)).one()
        sid, seed = session.id, session.seed
    custom_id = f"tracedrill:round:{sid}"
    message_id = "9001"
    other = await press(h, custom_id, message_id, user="43")
    assert other["type"] == 9
    intruder = h.send(modal_submit(f"tracedrill:roundmodal:{sid}", "it's a straggler", user="43"))
    assert "someone else's interview" in await followup(h, intruder)
    await press(h, custom_id, message_id)
    h.clock.advance(90)
    answer = model_answer(scenario_for(plan(1, seed)[0]))
    mine = h.send(modal_submit(f"tracedrill:roundmodal:{sid}", answer))
    assert "Summary posted" in await followup(h, mine)
    thread = [c.json["content"] for c in h.api.of("POST", f"/channels/{message_id}/messages")]  # type: ignore[index]
    text = "\n".join(thread)
    assert "Round 1" in text and "1:30" in text and "Interview summary" in text and "Model answer, round 1" in text
    with h.db.session() as s:
        r = s.scalars(select(InterviewRound)).one()
        assert r.score >= 0.8 and r.seconds == 90


async def test_study_group_interview_schedule_needs_manage_server(discord_env: PrepHarness) -> None:
    h = discord_env
    cmd = h.send(
        interaction(
            2,
            command(
                "trace-prep-schedule",
                what="interview",
                days="weekdays",
                time="17:00",
                timezone="Europe/Berlin",
                group="prep",
            ),
        )
    )
    reply = (await h.api.wait_for("POST", f"/interactions/{cmd['id']}/"))[0].json
    assert "Manage Server" in reply["data"]["content"]  # type: ignore[index]
    from bot.drills.ports import ChannelRef, UserRef
    from bot.drills.service import TeamService

    await TeamService(h.engine).group_text(
        "create", "prep", UserRef("discord", GUILD, "42", "ana"), ChannelRef("discord", GUILD, CHANNEL, "perf")
    )
    ok = h.send(
        interaction(
            2,
            command(
                "trace-prep-schedule",
                what="interview",
                days="weekdays",
                time="17:00",
                timezone="Europe/Berlin",
                group="prep",
            ),
            permissions=MANAGE_GUILD,
        )
    )
    assert "study group prep" in await followup(h, ok)
    with h.db.session() as s:
        row = s.scalars(select(PrepSchedule)).one()
        assert (row.kind, row.hour, row.minute, row.group_id is not None) == ("interview", 17, 0, True)
    await h.prep.interview.invite(
        ChannelRef("discord", GUILD, CHANNEL, "perf"), rounds=2, group="prep", group_id=row.group_id
    )
    invite = (await h.api.wait_for("POST", f"/channels/{CHANNEL}/messages"))[0].json
    start_id = invite["components"][0]["components"][0]["custom_id"]  # type: ignore[index]
    assert start_id == f"tracedrill:istart:2:{row.group_id}"
    p = h.send(interaction(3, {"custom_id": start_id, "component_type": 2}, message=message("9100", start_id)))
    assert "Interview #" in await followup(h, p)
    with h.db.session() as s:
        session = s.scalars(select(InterviewSession)).one()
        assert (session.rounds, session.group_id) == (2, row.group_id)
