"""The Discord bot with the real discord.py 2.7 client: interactions built from raw payloads and fed to the
client's own connection state (as discord.py's suite does), HTTP answered by a fake Discord API on loopback."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import discord
import pytest
from sqlalchemy import select

from bot.adapters.discord.bot import TraceBot
from bot.adapters.discord.settings import DiscordSettings
from bot.drills.engine import Drills
from bot.drills.service import TeamService
from bot.store.db import Database
from bot.store.models import Attempt, Drill

from .fakes.discord_api import APP_ID, FakeDiscordAPI, thread_payload
from .helpers import Clock
from .memo import PICTURES

GUILD, CHANNEL = "1", "500"
MANAGE_GUILD = str(1 << 5)
GOOD = "Rank 2 is a straggler; the others wait in the all-reduce. Check DCGM clocks. Fix the node cooling."
_ids = itertools.count(70_000)


def member(user_id: str, permissions: str = "0") -> dict[str, Any]:
    return {
        "user": {
            "id": user_id,
            "username": f"user{user_id}",
            "discriminator": "0",
            "global_name": f"User {user_id}",
            "avatar": None,
        },
        "roles": [],
        "joined_at": datetime.now(UTC).isoformat(),
        "deaf": False,
        "mute": False,
        "permissions": permissions,
        "flags": 0,
    }


def interaction(
    kind: int,
    data: dict[str, Any],
    user: str = "42",
    permissions: str = "0",
    message: dict[str, Any] | None = None,
    channel: str = CHANNEL,
) -> dict[str, Any]:
    where: dict[str, Any] = {
        "id": channel,
        "type": 0,
        "guild_id": GUILD,
        "name": "perf",
        "position": 0,
        "permission_overwrites": [],
        "nsfw": False,
        "parent_id": None,
    }
    if channel != CHANNEL:  # a thread (or forum post) under the perf channel
        where = thread_payload(channel, GUILD, CHANNEL, "a forum post", "42")
    payload: dict[str, Any] = {
        "id": str(next(_ids)),
        "application_id": APP_ID,
        "type": kind,
        "token": f"tok{next(_ids)}",
        "version": 1,
        "guild_id": GUILD,
        "channel_id": channel,
        "channel": where,
        "member": member(user, permissions),
        "data": data,
        "app_permissions": "0",
        "locale": "en-US",
        "guild_locale": "en-US",
        "entitlements": [],
        "authorizing_integration_owners": {},
        "context": 0,
        "attachment_size_limit": 10 * 2**20,
    }
    if message is not None:
        payload["message"] = message
    return payload


def command(name: str, **options: str) -> dict[str, Any]:
    return {
        "id": "777",
        "name": name,
        "type": 1,
        "guild_id": GUILD,
        "options": [{"name": k, "type": 3, "value": v} for k, v in options.items()],
    }


def message_payload(message_id: str, drill_id: int) -> dict[str, Any]:
    """The drill message as Discord sends it with a component interaction: its button included."""
    return button_message(message_id, f"tracedrill:submit:{drill_id}", "Submit diagnosis")


def button_message(message_id: str, custom_id: str, label: str) -> dict[str, Any]:
    """A bot message carrying one button, as Discord sends it with that button's interaction."""
    button = {"type": 2, "style": 1, "label": label, "custom_id": custom_id}
    return {
        "components": [{"type": 1, "components": [button]}],
        "id": message_id,
        "channel_id": CHANNEL,
        "type": 0,
        "content": "",
        "author": {"id": "900", "username": "tracedrill", "discriminator": "0", "avatar": None, "bot": True},
        "attachments": [],
        "embeds": [],
        "mentions": [],
        "mention_roles": [],
        "pinned": False,
        "mention_everyone": False,
        "tts": False,
        "timestamp": datetime.now(UTC).isoformat(),
        "edited_timestamp": None,
        "flags": 0,
    }


def modal_submit(custom_id: str, text: str, user: str = "42") -> dict[str, Any]:
    return interaction(
        5,
        {
            "custom_id": custom_id,
            "components": [{"type": 1, "components": [{"type": 4, "custom_id": "tracedrill:answer", "value": text}]}],
        },
        user=user,
    )


async def open_form(h: Harness, drill_id: int, message_id: str, user: str = "42") -> dict[str, Any]:
    """Press Submit diagnosis; returns the modal Discord was asked to show."""
    press = h.send(
        interaction(
            3,
            {"custom_id": f"tracedrill:submit:{drill_id}", "component_type": 2},
            user=user,
            message=message_payload(message_id, drill_id),
        )
    )
    modal = (await h.api.wait_for("POST", f"/interactions/{press['id']}/"))[0].json
    assert isinstance(modal, dict) and modal["type"] == 9
    return dict(modal["data"])


class Harness:
    def __init__(self, db: Database, api: FakeDiscordAPI, clock: Clock) -> None:
        self.db, self.api, self.clock = db, api, clock
        self.engine = Drills(db, {}, clock=clock, render_cache=PICTURES)
        self.bot = self.new_bot()

    def new_bot(self) -> TraceBot:
        bot = TraceBot(self.engine, TeamService(self.engine), DiscordSettings(token="t", guild_ids=[int(GUILD)]))
        self.engine.chats["discord"] = bot.chat
        return bot

    def send(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.bot.client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        return payload


@pytest.fixture
async def discord_env(database: Database, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    api = FakeDiscordAPI()
    base = await api.start()
    monkeypatch.setattr(discord.http.Route, "BASE", base)
    h = Harness(database, api, Clock(datetime.now(UTC)))
    await h.bot.client.login("test-token")
    try:
        yield h
    finally:
        await h.bot.client.close()
        await api.stop()


async def _posted_drill(h: Harness, channel: str = CHANNEL) -> tuple[int, str]:
    post = (await h.api.wait_for("POST", f"/channels/{channel}/messages"))[0]
    custom_id = post.json["components"][0]["components"][0]["custom_id"]  # type: ignore[index]
    for _ in range(200):  # the engine stores the message id just after the post returns
        with h.db.session() as s:
            d = s.scalars(select(Drill)).one()
            if d.message_ref:
                return int(custom_id.rsplit(":", 1)[1]), str(d.message_ref)
        await asyncio.sleep(0.02)
    raise AssertionError("the drill's message id was never stored")


async def test_trace_straggler_to_thread_reveal_and_leaderboard(discord_env: Harness) -> None:
    h = discord_env
    cmd = h.send(interaction(2, command("trace", signature="straggler")))
    callback = (await h.api.wait_for("POST", f"/interactions/{cmd['id']}/"))[0]
    assert callback.json["type"] == 5, "deferred at once"  # type: ignore[index]
    post = (await h.api.wait_for("POST", f"/channels/{CHANNEL}/messages"))[0]
    assert post.files == ["trace.png"]
    embed = post.json["embeds"][0]  # type: ignore[index]
    assert embed["image"]["url"] == "attachment://trace.png"
    deadline = next(f["value"] for f in embed["fields"] if f["name"] == "Deadline")
    assert ":R>" in deadline and ":T>" in deadline
    assert "straggler" not in str(embed).lower()
    assert post.json["allowed_mentions"] == {"parse": []}  # type: ignore[index]
    drill_id, message_id = await _posted_drill(h)
    await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{cmd['token']}")
    press = h.send(
        interaction(
            3,
            {"custom_id": f"tracedrill:submit:{drill_id}", "component_type": 2},
            message=message_payload(message_id, drill_id),
        )
    )
    modal = (await h.api.wait_for("POST", f"/interactions/{press['id']}/"))[0].json
    assert modal["type"] == 9  # type: ignore[index]
    custom_id = modal["data"]["custom_id"]  # type: ignore[index]
    assert custom_id.startswith(f"tracedrill:modal:{drill_id}:")
    submit = h.send(modal_submit(custom_id, GOOD))
    reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{submit['token']}"))[0].json
    assert "Recorded" in reply["content"]  # type: ignore[index]
    assert "the node cooling" in reply["content"], "the receipt echoes the answer"  # type: ignore[index]
    assert reply["flags"] & 64, "ephemeral"  # type: ignore[index]
    h.clock.advance(121)
    assert await h.engine.reveal(drill_id)
    assert not await h.engine.reveal(drill_id), "a reveal triggered twice posts once"
    assert len(h.api.of("POST", f"/messages/{message_id}/threads")) == 1
    in_thread = h.api.of("POST", f"/channels/{message_id}/messages")
    assert in_thread[0].files == ["reveal.png"]
    text = " ".join(c.json.get("content", "") for c in in_thread)  # type: ignore[union-attr]
    assert "Straggler" in text and "User 42" in text
    private = await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{submit['token']}", 2)
    assert "your grade" in private[-1].json["content"]  # type: ignore[index]
    assert private[-1].json["flags"] & 64  # type: ignore[index]
    board = h.send(interaction(2, command("trace-leaderboard", period="all")))
    text = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{board['token']}"))[0].json["content"]  # type: ignore[index]
    assert "1. User 42" in text


async def test_creating_the_reveal_thread_twice_is_harmless(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="healthy")))
    drill_id, message_id = await _posted_drill(h)
    from bot.drills.ports import ChannelRef, MessageRef, RevealPost

    ref = MessageRef(ChannelRef("discord", GUILD, CHANNEL), message_id)
    post = RevealPost(drill_id, "healthy", "t", "Healthy", "text", b"\x89PNG", ())
    await h.bot.chat.post_reveal(ref, post)
    await h.bot.chat.post_reveal(ref, post)
    assert len(h.api.of("POST", f"/messages/{message_id}/threads")) == 2
    assert len([c for c in h.api.of("POST", f"/channels/{message_id}/messages") if c.files]) == 2


async def test_the_button_works_after_a_restart(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="sync_stall")))
    drill_id, message_id = await _posted_drill(h)
    await h.bot.client.close()
    h.bot = h.new_bot()  # a new process: nothing in memory but the persistent dynamic item
    await h.bot.client.login("test-token")
    press = h.send(
        interaction(
            3,
            {"custom_id": f"tracedrill:submit:{drill_id}", "component_type": 2},
            message=message_payload(message_id, drill_id),
        )
    )
    modal = (await h.api.wait_for("POST", f"/interactions/{press['id']}/"))[0].json
    assert modal["type"] == 9  # type: ignore[index]


async def test_invalid_signature_is_rejected_server_side(discord_env: Harness) -> None:
    h = discord_env
    cmd = h.send(interaction(2, command("trace", signature="stragler")))
    reply = (await h.api.wait_for("POST", f"/interactions/{cmd['id']}/"))[0].json
    assert reply["type"] == 4  # type: ignore[index]
    assert "Unknown signature" in reply["data"]["content"]  # type: ignore[index]
    await asyncio.sleep(0.2)
    assert h.api.of("POST", f"/channels/{CHANNEL}/messages") == []


async def test_over_long_and_hostile_answers(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="straggler")))
    drill_id, _ = await _posted_drill(h)

    def modal(text: str) -> dict[str, Any]:
        return h.send(modal_submit(f"tracedrill:modal:{drill_id}:abc123", text))

    h.bot.chat.followups.clear()
    press = h.send(
        interaction(
            3,
            {"custom_id": f"tracedrill:submit:{drill_id}", "component_type": 2},
            message=message_payload("1", drill_id),
        )
    )
    await h.api.wait_for("POST", f"/interactions/{press['id']}/")
    long = modal("x" * 5000)
    reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{long['token']}"))[0].json
    assert "Keep it under" in reply["content"]  # type: ignore[index]
    h.send(
        interaction(
            3,
            {"custom_id": f"tracedrill:submit:{drill_id}", "component_type": 2},
            message=message_payload("1", drill_id),
        )
    )
    await asyncio.sleep(0.1)
    hostile = modal("@everyone <@&123> <@42> it's a straggler")
    reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{hostile['token']}"))[0].json
    assert reply["allowed_mentions"] == {"parse": []}  # type: ignore[index]
    with h.db.session() as s:
        assert "@everyone" in s.scalars(select(Attempt)).one().answer_text


async def test_schedule_needs_manage_server(discord_env: Harness) -> None:
    h = discord_env
    denied = h.send(interaction(2, command("trace-schedule", days="weekdays", time="09:30", timezone="UTC")))
    reply = (await h.api.wait_for("POST", f"/interactions/{denied['id']}/"))[0].json
    assert "Manage Server" in reply["data"]["content"]  # type: ignore[index]
    ok = h.send(
        interaction(
            2, command("trace-schedule", days="weekdays", time="09:30", timezone="Asia/Tokyo"), permissions=MANAGE_GUILD
        )
    )
    text = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{ok['token']}"))[0].json["content"]  # type: ignore[index]
    assert "09:30 Asia/Tokyo" in text


async def test_private_feedback_falls_back_to_a_dm_after_the_token_window(discord_env: Harness) -> None:
    from bot.drills.ports import ChannelRef, UserRef

    h = discord_env
    h.bot.chat.followups.clear()  # no live interaction token for this person
    await h.bot.chat.send_private(ChannelRef("discord", GUILD, CHANNEL), UserRef("discord", GUILD, "42"), "hi <@1>")
    assert h.api.of("POST", "/users/@me/channels")
    dm = [c for c in h.api.of("POST", "/messages") if not c.path.startswith(f"/channels/{CHANNEL}")]
    assert dm[-1].json["content"] == "hi <@1>"  # type: ignore[index]
    assert dm[-1].json["allowed_mentions"] == {"parse": []}  # type: ignore[index]


def test_serve_needs_a_discord_token(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from bot.cli import main

    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    result = CliRunner().invoke(
        main, ["serve", "--platform", "discord"], env={"DATABASE_URL": f"sqlite:///{tmp_path / 's.sqlite3'}"}
    )
    assert result.exit_code == 1
    assert "DISCORD_TOKEN" in result.output


def test_guild_ids_setting_parses_a_comma_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_GUILD_IDS", "1, 22,333")
    assert DiscordSettings().guild_ids == [1, 22, 333]


async def test_trace_analyze_with_an_attachment(discord_env: Harness, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from aiohttp import web

    from bot.analyze import bounded
    from bot.scenarios.export import export_scenario
    from bot.scenarios.registry import generate

    h = discord_env
    export_scenario(generate("alloc_stall", 2), tmp_path)
    doc = json.loads((tmp_path / "rank-0.json").read_text())
    for ev in doc["traceEvents"]:  # kernel names that try to close the code block and post a link
        if ev.get("cat") == "kernel" and "nccl" not in str(ev.get("name", "")).lower():
            ev["name"] = "pwn```\n[free gpus](https://evil.example)\n```" + str(ev["name"])
    data = json.dumps(doc).encode()

    async def serve_file(_request: web.Request) -> web.Response:
        return web.Response(body=data)

    app = web.Application()
    app.router.add_get("/a/rank-0.json", serve_file)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/a/rank-0.json"  # type: ignore[union-attr]

    def attachment(name: str, size: int) -> dict[str, Any]:
        return {"id": "555", "filename": name, "size": size, "url": url, "proxy_url": url, "content_type": None}

    try:
        too_big = h.send(
            interaction(
                2,
                {
                    "id": "778",
                    "name": "trace-analyze",
                    "type": 1,
                    "guild_id": GUILD,
                    "options": [{"name": "trace", "type": 11, "value": "555"}],
                    "resolved": {"attachments": {"555": attachment("huge.json", 10**9)}},
                },
            )
        )
        reply = (await h.api.wait_for("POST", f"/interactions/{too_big['id']}/"))[0].json
        assert "over the 50 MB limit" in reply["data"]["content"]  # type: ignore[index]
        ok = h.send(
            interaction(
                2,
                {
                    "id": "778",
                    "name": "trace-analyze",
                    "type": 1,
                    "guild_id": GUILD,
                    "options": [{"name": "trace", "type": 11, "value": "555"}],
                    "resolved": {"attachments": {"555": attachment("rank-0.json", len(data))}},
                },
            )
        )
        result = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{ok['token']}", seconds=20))[0]
        assert "alloc_stall" in result.json["content"]  # type: ignore[index]
        assert result.files == ["analysis.png"]
        content = result.json["content"]  # type: ignore[index]
        assert "free gpus" in content, "the hostile kernel is the top kernel: its name is shown"
        assert content.startswith("```") and content.endswith("```") and content.count("`") == 6, content
        busy_gate = bounded.Gate(running=1, waiting=0, queue_seconds=0)
        monkeypatch.setattr(bounded, "gate", busy_gate)
        with busy_gate:  # another upload is being analysed: one clear line, not a queue nobody sees
            again = h.send(
                interaction(
                    2,
                    {
                        "id": "778",
                        "name": "trace-analyze",
                        "type": 1,
                        "guild_id": GUILD,
                        "options": [{"name": "trace", "type": 11, "value": "555"}],
                        "resolved": {"attachments": {"555": attachment("rank-0.json", len(data))}},
                    },
                )
            )
            busy = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{again['token']}", seconds=20))[0]
        assert "busy" in busy.json["content"] and "try again" in busy.json["content"]  # type: ignore[index]
    finally:
        await runner.cleanup()


async def test_two_people_holding_the_form_at_once_both_count(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="straggler")))
    drill_id, message_id = await _posted_drill(h)
    form_a = await open_form(h, drill_id, message_id, user="42")
    form_b = await open_form(h, drill_id, message_id, user="43")
    assert form_a["custom_id"] != form_b["custom_id"], "each opening has its own id"
    b = h.send(modal_submit(form_b["custom_id"], "input starvation, the loader is slow", user="43"))
    a = h.send(modal_submit(form_a["custom_id"], GOOD, user="42"))
    for sent in (a, b):
        reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{sent['token']}"))[0].json
        assert "Recorded" in reply["content"]  # type: ignore[index]
    with h.db.session() as s:
        answers = {a.answer_text for a in s.scalars(select(Attempt))}
    assert answers == {GOOD, "input starvation, the loader is slow"}


async def test_a_form_opened_before_a_restart_still_submits(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="sync_stall")))
    drill_id, message_id = await _posted_drill(h)
    form = await open_form(h, drill_id, message_id)
    await h.bot.client.close()
    h.bot = h.new_bot()
    await h.bot.client.login("test-token")
    sent = h.send(modal_submit(form["custom_id"], GOOD))
    reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{sent['token']}"))[0].json
    assert "Recorded" in reply["content"]  # type: ignore[index]


async def test_reopening_the_form_prefills_the_last_answer(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="straggler")))
    drill_id, message_id = await _posted_drill(h)
    form = await open_form(h, drill_id, message_id)
    field = json.dumps(form)
    assert GOOD not in field
    sent = h.send(modal_submit(form["custom_id"], GOOD))
    await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{sent['token']}")
    again = await open_form(h, drill_id, message_id)
    assert GOOD in json.dumps(again), "the last answer is pre-filled"


async def test_a_drill_posted_in_a_thread_reveals_in_that_thread(discord_env: Harness) -> None:
    h = discord_env
    thread = "600"
    h.api.thread_channels.add(thread)
    h.send(interaction(2, command("trace", signature="straggler"), channel=thread))
    drill_id, message_id = await _posted_drill(h, thread)
    h.clock.advance(121)
    assert await h.engine.reveal(drill_id)
    assert not await h.engine.reveal(drill_id), "revealed once, not retried forever"
    assert h.api.of("POST", f"/channels/{thread}/messages/{message_id}/threads")[0].failed, "50024: no thread here"
    in_thread = [c for c in h.api.of("POST", f"/channels/{thread}/messages") if c.path.endswith("/messages")]
    assert in_thread[1].files == ["reveal.png"]
    assert in_thread[1].json["message_reference"]["message_id"] == int(message_id)  # type: ignore[index]
    assert any("Scores" in str((c.json or {}).get("content") or "") for c in in_thread)  # type: ignore[union-attr]
    with h.db.session() as s:
        assert s.get(Drill, drill_id).revealed_at is not None  # type: ignore[union-attr]


async def test_missing_permission_to_post_is_explained_and_leaves_no_drill(discord_env: Harness) -> None:
    h = discord_env
    h.api.fail("POST", f"/channels/{CHANNEL}/messages", 50013)
    cmd = h.send(interaction(2, command("trace", signature="straggler")))
    reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{cmd['token']}"))[0].json
    assert "50013" in reply["content"] and "Attach Files" in reply["content"]  # type: ignore[index]
    with h.db.session() as s:  # the drill is kept only as failed: never revealed into the channel
        assert [d.failed_at is not None for d in s.scalars(select(Drill))] == [True]
    assert len(h.api.of("POST", f"/channels/{CHANNEL}/messages")) == 1, "a refusal is not retried"


async def test_no_thread_permission_reveals_as_a_reply_and_lost_access_is_not_retried(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="healthy")))
    drill_id, message_id = await _posted_drill(h)
    h.api.fail("POST", f"/messages/{message_id}/threads", 50013)
    h.clock.advance(121)
    assert await h.engine.reveal(drill_id)
    replies = [c for c in h.api.of("POST", f"/channels/{CHANNEL}/messages") if c.files == ["reveal.png"]]
    assert replies[0].json["message_reference"]["message_id"] == int(message_id)  # type: ignore[index]
    h.send(interaction(2, command("trace", signature="healthy")))
    for _ in range(200):
        with h.db.session() as s:
            second = s.scalars(select(Drill).where(Drill.id != drill_id)).first()
            if second is not None and second.message_ref:
                break
        await asyncio.sleep(0.02)
    assert second is not None
    h.api.fail("POST", f"/messages/{second.message_ref}/threads", 50001)
    h.clock.advance(121)
    assert await h.engine.reveal_due() == []
    assert await h.engine.reveal_due() == [], "a permanent refusal is not retried"
    assert len(h.api.of("POST", f"/messages/{second.message_ref}/threads")) == 1


async def test_closed_dms_get_a_note_in_the_reveal_thread(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="straggler")))
    drill_id, message_id = await _posted_drill(h)
    form = await open_form(h, drill_id, message_id, user="77")
    sent = h.send(modal_submit(form["custom_id"], GOOD, user="77"))
    await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{sent['token']}")
    h.bot.chat.followups.clear()  # the 15-minute token has lapsed
    h.api.closed_dms.add("77")
    h.clock.advance(121)
    assert await h.engine.reveal(drill_id)
    refused = [c for c in h.api.calls if c.failed]
    assert refused, "the DM was tried and refused with 50007"
    note = [
        c.json
        for c in h.api.of("POST", f"/channels/{message_id}/messages")
        if "DMs are closed" in (c.json or {}).get("content", "")
    ]  # type: ignore[union-attr]
    assert len(note) == 1
    assert "<@77>" in note[0]["content"]  # type: ignore[index]
    assert note[0]["allowed_mentions"]["users"] == [77], "it pings only that person"  # type: ignore[index]
    assert note[0]["allowed_mentions"]["parse"] == []  # type: ignore[index]


async def test_feedback_goes_by_follow_up_then_dm(discord_env: Harness) -> None:
    h = discord_env
    h.send(interaction(2, command("trace", signature="straggler")))
    drill_id, message_id = await _posted_drill(h)
    form = await open_form(h, drill_id, message_id, user="42")
    a = h.send(modal_submit(form["custom_id"], GOOD, user="42"))
    await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{a['token']}")
    form = await open_form(h, drill_id, message_id, user="43")
    b = h.send(modal_submit(form["custom_id"], "launch bound", user="43"))
    await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{b['token']}")
    del h.bot.chat.followups[(CHANNEL, "43")]  # 43's token lapsed: a DM instead
    h.clock.advance(121)
    assert await h.engine.reveal(drill_id)
    follow = await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{a['token']}", 2)
    assert "your grade" in follow[-1].json["content"] and "Score" in follow[-1].json["content"]  # type: ignore[index]
    opened = h.api.of("POST", "/users/@me/channels")
    assert [c.json["recipient_id"] for c in opened] == [43]  # type: ignore[index]


async def test_removed_from_a_server_its_schedules_stop_and_rejoining_restarts_them(discord_env: Harness) -> None:
    from bot.store import repo

    h = discord_env
    ok = h.send(
        interaction(
            2, command("trace-schedule", days="weekdays", time="09:30", timezone="UTC"), permissions=MANAGE_GUILD
        )
    )
    await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{ok['token']}")

    def enabled() -> bool:
        with h.db.session() as s:
            ws = repo.find_workspace(s, "discord", GUILD)
            ch = repo.find_channel(s, ws, CHANNEL)  # type: ignore[arg-type]
            assert ch is not None and ch.schedule_hour == 9
            return ch.enabled

    assert enabled()
    state = h.bot.client._connection
    guild = {
        "id": GUILD,
        "name": "perf club",
        "owner_id": "42",
        "roles": [],
        "emojis": [],
        "features": [],
        "member_count": 2,
        "channels": [],
        "threads": [],
        "members": [],
        "voice_states": [],
        "presences": [],
        "stickers": [],
        "large": False,
        "unavailable": False,
    }
    state.parse_guild_create(guild)  # type: ignore[arg-type]
    state.parse_guild_delete({"id": GUILD, "unavailable": False})  # type: ignore[arg-type,typeddict-item]
    for _ in range(100):
        if not enabled():
            break
        await asyncio.sleep(0.02)
    assert not enabled(), "kicked: no more drills into that server"
    state.parse_guild_create({**guild, "unavailable": None})  # type: ignore[arg-type]
    for _ in range(100):
        if enabled():
            break
        await asyncio.sleep(0.02)
    assert enabled()


async def test_commands_sync_only_when_the_tree_changed(discord_env: Harness) -> None:
    h = discord_env
    puts = lambda: h.api.of("PUT", "/commands")  # noqa: E731
    assert len(puts()) == 1, "the first start (login runs setup_hook) synced"
    assert f"/guilds/{GUILD}/commands" in puts()[0].path
    assert await h.bot.sync_commands() == [], "same tree: no call to Discord"
    await h.bot.client.close()
    h.bot = h.new_bot()  # a restart with the same commands
    await h.bot.client.login("test-token")
    assert len(puts()) == 1

    @h.bot.tree.command(name="trace-extra", description="a new command")
    async def extra(interaction: discord.Interaction) -> None:
        return None

    assert await h.bot.sync_commands() != [], "a changed tree is synced"
    assert len(puts()) == 2
    assert await h.bot.sync_commands(force=True) != []


async def test_rate_limited_post_waits_and_posts_once(discord_env: Harness) -> None:
    h = discord_env
    h.api.fail("POST", f"/channels/{CHANNEL}/messages", 429)
    cmd = h.send(interaction(2, command("trace", signature="healthy")))
    reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{cmd['token']}", seconds=15))[0].json
    assert "posted" in reply["content"]  # type: ignore[index]
    posts = h.api.of("POST", f"/channels/{CHANNEL}/messages")
    assert [c.failed for c in posts] == [True, False]


def test_invite_permissions_are_exactly_what_the_bot_uses() -> None:
    from pathlib import Path

    from bot.adapters.discord.bot import INVITE_PERMISSIONS

    p = INVITE_PERMISSIONS
    assert p.view_channel and p.send_messages and p.embed_links and p.attach_files
    assert p.create_public_threads and p.send_messages_in_threads and p.read_message_history
    assert not p.manage_threads and not p.administrator and not p.mention_everyone
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    assert f"permissions={p.value}" in readme


async def test_trace_config_needs_manage_server_and_sets_the_channel(discord_env: Harness) -> None:
    h = discord_env

    def config(permissions: str = "0", **options: Any) -> dict[str, Any]:
        data = {
            "id": "779",
            "name": "trace-config",
            "type": 1,
            "guild_id": GUILD,
            "options": [{"name": k, "type": 4 if isinstance(v, int) else 3, "value": v} for k, v in options.items()],
        }
        return h.send(interaction(2, data, permissions=permissions))

    denied = config(difficulty="hard")
    reply = (await h.api.wait_for("POST", f"/interactions/{denied['id']}/"))[0].json
    assert "Manage Server" in reply["data"]["content"]  # type: ignore[index]
    bad = config(MANAGE_GUILD, signatures="straggler, warp_drive")
    reply = (await h.api.wait_for("POST", f"/interactions/{bad['id']}/"))[0].json
    assert "warp_drive" in reply["data"]["content"]  # type: ignore[index]
    ok = config(
        MANAGE_GUILD,
        answer_seconds=600,
        difficulty="easy",
        signatures="launch_bound",
        schedule="daily 08:15 Asia/Tokyo",
    )
    text = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{ok['token']}"))[0].json["content"]  # type: ignore[index]
    assert "Saved" in text and "600 s" in text and "launch_bound" in text and "08:15 Asia/Tokyo" in text
    shown = config(MANAGE_GUILD)
    text = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{shown['token']}"))[0].json["content"]  # type: ignore[index]
    assert "Saved" not in text and "difficulty: easy" in text
    h.send(interaction(2, command("trace")))
    drill_id, _ = await _posted_drill(h)
    with h.db.session() as s:
        d = s.get(Drill, drill_id)
        assert d is not None and d.signature == "launch_bound" and d.difficulty == "easy"
        assert (d.deadline_at - d.posted_at).total_seconds() == 600


async def test_trace_me_shows_feedback_and_a_chart(discord_env: Harness) -> None:
    h = discord_env
    empty = h.send(interaction(2, command("trace-me"), user="55"))
    first = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{empty['token']}"))[0]
    assert "No answers from you yet" in first.json["embeds"][0]["description"]  # type: ignore[index]
    h.send(interaction(2, command("trace", signature="straggler")))
    drill_id, message_id = await _posted_drill(h)
    form = await open_form(h, drill_id, message_id, user="55")
    sent = h.send(modal_submit(form["custom_id"], GOOD, user="55"))
    await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{sent['token']}")
    h.clock.advance(121)
    assert await h.engine.reveal(drill_id)
    me = h.send(interaction(2, command("trace-me"), user="55"))
    reply = (await h.api.wait_for("POST", f"/webhooks/{APP_ID}/{me['token']}"))[0]
    assert reply.files == ["accuracy.png"]
    embed = reply.json["embeds"][0]  # type: ignore[index]
    assert embed["image"]["url"] == "attachment://accuracy.png"
    assert f"#{drill_id}" in embed["description"] and "straggler" in embed["description"]
    assert "Score" in embed["description"], "the per-part feedback is there"
    assert reply.json["flags"] & 64  # type: ignore[index]


async def test_discord_sync_command_forces_a_sync(
    discord_env: Harness, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    from bot.cli_discord import sync_once

    h = discord_env
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'sync.sqlite3'}")
    settings = DiscordSettings(token="t", guild_ids=[int(GUILD)])
    before = len(h.api.of("PUT", "/commands"))
    assert await sync_once(settings, force=False) == [f"discord:commands:{GUILD}"], "a new database: first sync"
    assert await sync_once(settings, force=False) == [], "unchanged: nothing sent"
    assert await sync_once(settings, force=True) == [f"discord:commands:{GUILD}"]
    assert len(h.api.of("PUT", "/commands")) == before + 2
