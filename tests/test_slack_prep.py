"""`/trace math` and `/trace interview` on Slack: real Bolt and slack_sdk against the fake Slack Web API, with
signed requests over loopback, as in test_slack."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import select

from bot.adapters.slack.prep import (
    MATH_ACTION,
    MATH_BLOCK,
    MATH_INPUT,
    MATH_MODAL,
    ROUND_ACTION,
    ROUND_BLOCK,
    ROUND_INPUT,
    ROUND_MODAL,
    START_ACTION,
)
from bot.interview import model_answer, plan, scenario_for
from bot.mathdrill.questions import question
from bot.prep.root import build_prep
from bot.store.db import Database
from bot.store.prep_models import InterviewRound, InterviewSession, MathAnswer, MathQuestion, PrepSchedule

from .fakes.slack_api import FakeSlackAPI
from .helpers import Clock
from .memo import PICTURES
from .test_slack import Harness, _blocks


class PrepHarness(Harness):
    def __init__(self, db: Database, api: FakeSlackAPI, clock: Clock) -> None:
        from bot.adapters.slack.app import build_slack
        from bot.adapters.slack.settings import SlackSettings
        from bot.drills.engine import Drills
        from bot.drills.service import TeamService

        self.db, self.api, self.clock = db, api, clock
        settings = SlackSettings(
            bot_token="xoxb-test-token-456",
            signing_secret="test-signing-secret-123",
            api_url=f"{api.base}/api/",
            update_every_seconds=0.2,
        )
        self.engine = Drills(db, {}, clock=clock, render_cache=PICTURES)
        self.service = TeamService(self.engine)
        self.prep = build_prep(self.engine)
        self.runtime = build_slack(self.engine, self.service, settings, self.prep)
        self.runtime.chat.min_gap = 0.05
        self.engine.chats["slack"] = self.runtime.chat
        self.url = ""
        self.session = None
        self._runner = None
        self.responses = 0

    async def press(self, action: str, value: str, user: str = "UANA", ts: str = "") -> None:
        status, _, _ = await self.interactive(
            {
                "type": "block_actions",
                "team": {"id": "T1"},
                "user": {"id": user, "team_id": "T1"},
                "channel": {"id": "C1"},
                "trigger_id": f"trig-{user}",
                "message": {"ts": ts},
                "actions": [{"action_id": action, "value": value, "type": "button"}],
            }
        )
        assert status == 200

    async def submit(
        self, callback: str, metadata: str, block: str, action: str, text: str, user: str = "UANA", view_id: str = "V1"
    ) -> tuple[int, str]:
        status, body, _ = await self.submit_view(callback, metadata, block, action, text, user, view_id)
        return status, body


@pytest.fixture
async def slack(database: Database) -> AsyncIterator[PrepHarness]:
    api = FakeSlackAPI()
    await api.start()
    h = PrepHarness(database, api, Clock(datetime.now(UTC)))
    await h.start()
    try:
        yield h
    finally:
        await h.stop()
        await api.stop()


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _view(params: dict[str, Any]) -> dict[str, Any]:
    v = params["view"]
    return json.loads(v) if isinstance(v, str) else dict(v)


async def test_math_question_modal_answers_reveal_and_board(slack: PrepHarness) -> None:
    status, body, took = await slack.command("math busbw")
    assert status == 200 and took < 3.0 and "On it" in body
    post = (await slack.api.wait_for("chat.postMessage"))[0].params
    with slack.db.session() as s:
        row = s.scalars(select(MathQuestion)).one()
        qid, kind, seed = row.id, row.kind, row.seed
    q = question(kind, seed)
    assert kind == "busbw"
    blocks = dumps(_blocks(post))
    assert q.question.split(":")[0] in blocks and MATH_ACTION in blocks
    assert str(q.answer) not in blocks, "the post never gives the answer away"
    await slack.press(MATH_ACTION, str(qid))
    modal = _view((await slack.api.wait_for("views.open"))[0].params)
    assert modal["callback_id"] == MATH_MODAL and q.question[:40] in dumps(modal)
    meta = modal["private_metadata"]
    status, body = await slack.submit(MATH_MODAL, meta, MATH_BLOCK, MATH_INPUT, "no idea")
    assert status == 200 and '"response_action":"errors"' in body.replace(" ", "")
    slack.clock.advance(5)
    status, body = await slack.submit(MATH_MODAL, meta, MATH_BLOCK, MATH_INPUT, f"~{q.answer:,.1f} GB/s")
    assert status == 200 and body == ""
    await slack.submit(MATH_MODAL, meta, MATH_BLOCK, MATH_INPUT, f"{2 * q.answer}", user="UBO", view_id="V2")
    await slack.api.wait_for("chat.postEphemeral", 2)
    await slack.submit(MATH_MODAL, meta, MATH_BLOCK, MATH_INPUT, f"{q.answer}", view_id="V3")
    replies = [c.params["text"] for c in await slack.api.wait_for("chat.postEphemeral", 3)]
    assert sum("Recorded" in r for r in replies) == 2 and any("already answered" in r for r in replies)
    with slack.db.session() as s:
        answers = {a.user_id: (a.correct, a.points) for a in s.scalars(select(MathAnswer))}
    assert sorted(answers.values()) == [(False, 0), (True, 100 + round(50 * (1 - 5 / 30)))]
    slack.clock.advance(30)
    assert await slack.prep.math.reveal(qid)
    assert not await slack.prep.math.reveal(qid), "revealed exactly once"
    reveal = [c.params for c in slack.api.of("chat.postMessage") if c.params.get("thread_ts")]
    assert len(reveal) == 1
    text = reveal[0]["text"]
    assert f"{q.answer:,.4g}" in text and "2(n−1)/n" in text and "Worked:" in text
    assert "uana" in text and "1 right" in text
    await slack.command("math leaderboard all")
    board = (await slack.api.wait_for("response_url", 2))[-1].params["text"]
    assert "1. uana — 142 pts (1/1 right)" in board
    assert "ubo" in board and "0 pts (0/1 right)" in board


async def test_math_schedule_needs_an_admin_and_drill_commands_still_work(slack: PrepHarness) -> None:
    await slack.command("math schedule weekdays 09:30 Europe/Berlin")
    refused = (await slack.api.wait_for("response_url", 1))[-1].params["text"]
    assert "admins" in refused
    await slack.command("math schedule weekdays 09:30 Europe/Berlin", user="UADMIN", name="boss")
    done = (await slack.api.wait_for("response_url", 2))[-1].params["text"]
    assert "09:30" in done
    with slack.db.session() as s:
        row = s.scalars(select(PrepSchedule)).one()
        assert (row.kind, row.weekdays, row.hour, row.minute, row.timezone) == (
            "math",
            "mon-fri",
            9,
            30,
            "Europe/Berlin",
        )
    _, body, _ = await slack.command("math frobnicate")
    assert "I don't know math" in body
    _, body, _ = await slack.command("help")
    assert "/trace leaderboard" in body, "the drill listener still answers the rest of /trace"


async def test_interview_rounds_feedback_and_summary_in_the_thread(slack: PrepHarness) -> None:
    await slack.command("interview 2")
    first = (await slack.api.wait_for("chat.postMessage"))[0]
    await slack.api.wait_for("files.completeUploadExternal")
    with slack.db.session() as s:
        session = s.scalars(select(InterviewSession)).one()
        sid, seed = session.id, session.seed
    specs = plan(2, seed)
    assert ROUND_ACTION in dumps(_blocks(first.params))
    first_ts = "1700000000.000001"
    await slack.press(ROUND_ACTION, str(sid), user="UBO", ts=first_ts)
    meta = _view((await slack.api.wait_for("views.open"))[0].params)["private_metadata"]
    await slack.submit(ROUND_MODAL, meta, ROUND_BLOCK, ROUND_INPUT, "it's a straggler", user="UBO")
    refusal = (await slack.api.wait_for("chat.postEphemeral"))[0].params["text"]
    assert "someone else's interview" in refusal
    await slack.press(ROUND_ACTION, str(sid), ts=first_ts)
    meta = _view((await slack.api.wait_for("views.open", 2))[1].params)["private_metadata"]
    slack.clock.advance(60)
    await slack.submit(ROUND_MODAL, meta, ROUND_BLOCK, ROUND_INPUT, model_answer(scenario_for(specs[0])))
    posts = await slack.api.wait_for("chat.postMessage", 3)  # feedback in the thread, then round 2
    feedback = next(c.params["text"] for c in posts if c.params.get("thread_ts") == first_ts)
    assert "Round 1" in feedback and "narration" in feedback and "1:00" in feedback
    second = next(c for c in posts[1:] if not c.params.get("thread_ts"))
    assert "round 2/2" in dumps(_blocks(second.params))
    second_ts = "1700000000.000003"
    slack.clock.advance(400)  # over the 5-minute clock
    await slack.press(ROUND_ACTION, str(sid), ts=second_ts)
    meta = _view((await slack.api.wait_for("views.open", 3))[2].params)["private_metadata"]
    await slack.submit(ROUND_MODAL, meta, ROUND_BLOCK, ROUND_INPUT, model_answer(scenario_for(specs[1])))
    posts = await slack.api.wait_for("chat.postMessage", 5)
    summary = "\n".join(c.params["text"] for c in posts if c.params.get("thread_ts") == second_ts)
    assert "over the 5-minute clock" in summary and "Interview summary" in summary
    assert "Model answer, round 1" in summary and "Model answer, round 2" in summary
    with slack.db.session() as s:
        rounds = s.scalars(select(InterviewRound).order_by(InterviewRound.number)).all()
        assert [r.number for r in rounds] == [1, 2]
        assert rounds[0].score >= 0.8 and rounds[1].combined <= 0.5
        assert s.get(InterviewSession, sid).finished_at is not None  # type: ignore[union-attr]


async def test_a_scheduled_interview_invite_starts_a_session_per_person(slack: PrepHarness) -> None:
    from bot.drills.ports import ChannelRef

    await slack.prep.interview.invite(ChannelRef("slack", "T1", "C1", "perf"), rounds=2, group="prep")
    invite = (await slack.api.wait_for("chat.postMessage"))[0].params
    assert START_ACTION in dumps(_blocks(invite)) and "prep" in dumps(_blocks(invite))
    await slack.press(START_ACTION, "2|")
    await slack.press(START_ACTION, "2|", user="UBO")
    await slack.api.wait_for("chat.postMessage", 3)
    with slack.db.session() as s:
        assert len(s.scalars(select(InterviewSession)).all()) == 2
