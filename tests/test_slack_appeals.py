"""Hints and appeals through the real Bolt app and slack_sdk against the fake Slack Web API (SQLite and
PostgreSQL): Hint button → ephemeral hint; feedback's "Appeal this grade" → modal → the reviewer's App Home →
ruling modal → the appellant's DM, the board moved."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from sqlalchemy import select

from bot.adapters.slack.appeals import (
    APPEAL_ACTION,
    APPEAL_MODAL,
    CREDIT_BLOCK,
    CREDIT_INPUT,
    DECISION_BLOCK,
    DECISION_INPUT,
    HINT_ACTION,
    NOTE_BLOCK,
    NOTE_INPUT,
    PART_BLOCK,
    PART_INPUT,
    REASON_BLOCK,
    REASON_INPUT,
    REMEMBER_BLOCK,
    REMEMBER_INPUT,
    RULE_ACTION,
    RULING_MODAL,
)
from bot.drills.hints import HINT_COSTS
from bot.store.models import Appeal, Attempt

from .test_appeals import MISSED
from .test_slack import GOOD, Harness, _blocks, _started, slack  # noqa: F401  (fixture)


def _select(value: str) -> dict[str, Any]:
    return {"type": "static_select", "selected_option": {"value": value}}


async def _click(h: Harness, action: str, value: str, user: str, trigger: str = "trig") -> None:
    status, _, took = await h.interactive(
        {
            "type": "block_actions",
            "team": {"id": "T1"},
            "user": {"id": user, "team_id": "T1"},
            "channel": {"id": "C1"},
            "trigger_id": trigger,
            "actions": [{"action_id": action, "value": value, "type": "button"}],
        }
    )
    assert status == 200
    assert took < 3.0


SUBMISSIONS = itertools.count(1)  # each submission its own view id: a byte-identical request is a replay (401)


async def _view(h: Harness, callback: str, metadata: str, values: dict[str, Any], user: str) -> str:
    status, body, took = await h.interactive(
        {
            "type": "view_submission",
            "team": {"id": "T1"},
            "user": {"id": user, "name": user.lower(), "team_id": "T1"},
            "view": {
                "id": f"V{user}{next(SUBMISSIONS)}",
                "type": "modal",
                "hash": "h",
                "callback_id": callback,
                "private_metadata": metadata,
                "state": {"values": values},
            },
        }
    )
    assert status == 200
    assert took < 3.0
    return body


def _ruling(part: str, decision: str, credit: str = "1", note: str = "", remember: str | None = None) -> dict[str, Any]:
    return {
        PART_BLOCK: {PART_INPUT: _select(part)},
        DECISION_BLOCK: {DECISION_INPUT: {"type": "radio_buttons", "selected_option": {"value": decision}}},
        CREDIT_BLOCK: {CREDIT_INPUT: _select(credit)},
        NOTE_BLOCK: {NOTE_INPUT: {"type": "plain_text_input", "value": note}},
        REMEMBER_BLOCK: {REMEMBER_INPUT: {"type": "plain_text_input", "value": remember}},
    }


async def test_hint_button_then_appeal_modal_reviewer_ruling_and_dm(slack: Harness) -> None:  # noqa: F811
    h = slack
    await h.command("straggler")
    drill_id = await _started(h)  # the drill message is out and its ts stored
    buttons = next(b for b in _blocks(h.api.of("chat.postMessage")[0].params) if b["type"] == "actions")
    assert HINT_ACTION in [e["action_id"] for e in buttons["elements"]]

    await _click(h, HINT_ACTION, str(drill_id), "UANA")
    hint = (await h.api.wait_for("chat.postEphemeral"))[0].params
    assert hint["user"] == "UANA"
    assert f"Hint 1 for drill #{drill_id} (−{HINT_COSTS[0]} points)" in hint["text"]
    assert "straggl" not in hint["text"].lower()

    await h.submit_modal(drill_id, MISSED, user="UANA", view_id="VA")
    await h.submit_modal(drill_id, GOOD, user="UBO", view_id="VB")
    await h.api.wait_for("chat.postEphemeral", 3)
    h.clock.advance(121)
    assert await h.engine.reveal(drill_id)
    reveal = next(c for c in h.api.of("chat.postMessage") if c.params.get("thread_ts")).params["text"]
    assert "uana" in reveal and "· hinted" in reveal.split("uana", 1)[1].splitlines()[0]
    await h.api.wait_for("conversations.open", 2)  # feedback goes by DM, where it persists
    for _ in range(250):
        feedback = [
            c.params
            for c in h.api.of("chat.postMessage")
            if "your grade" in c.params.get("text", "") and str(c.params.get("channel")).startswith("DU")
        ]
        if len(feedback) == 2:
            break
        await asyncio.sleep(0.02)
    assert len(feedback) == 2
    for f in feedback:
        actions = [b for b in _blocks(f) if b["type"] == "actions"]
        assert actions[0]["elements"][0]["action_id"] == APPEAL_ACTION
        assert actions[0]["elements"][0]["value"] == str(drill_id)

    await _click(h, APPEAL_ACTION, str(drill_id), "UANA", trigger="trig-appeal")
    opened = (await h.api.wait_for("views.open"))[-1].params
    modal = json.loads(opened["view"]) if isinstance(opened["view"], str) else opened["view"]
    assert (modal["callback_id"], opened["trigger_id"]) == (APPEAL_MODAL, "trig-appeal")
    metadata = modal["private_metadata"]
    empty = await _view(
        h,
        APPEAL_MODAL,
        metadata,
        {PART_BLOCK: {PART_INPUT: _select("all")}, REASON_BLOCK: {REASON_INPUT: {"value": "  "}}},
        "UANA",
    )
    assert json.loads(empty)["errors"][REASON_BLOCK].startswith("Say why")
    values = {
        PART_BLOCK: {PART_INPUT: _select("all")},
        REASON_BLOCK: {REASON_INPUT: {"value": "tortoise = one slow rank <!channel>"}},
    }
    assert await _view(h, APPEAL_MODAL, metadata, values, "UANA") == ""
    again = await _view(h, APPEAL_MODAL, metadata, values, "UANA")
    assert "one appeal per part" in json.loads(again)["errors"][REASON_BLOCK]
    dm = [c for c in await h.api.wait_for("chat.postMessage", 3) if c.params.get("channel") == "UANA"]
    assert "is open" in dm[0].params["text"]
    with h.db.session() as s:
        appeal_id = s.scalars(select(Appeal.id)).one()

    await h.event({"type": "app_home_opened", "user": "UBO", "channel": "D2", "tab": "home"}, "Ev-home-bo")
    await h.event({"type": "app_home_opened", "user": "UADMIN", "channel": "D1", "tab": "home"}, "Ev-home-admin")
    homes = {c.params["user_id"]: c.params["view"] for c in await h.api.wait_for("views.publish", 4)}
    bo_home, admin_home = (json.loads(v) if isinstance(v, str) else v for v in (homes["UBO"], homes["UADMIN"]))
    assert RULE_ACTION not in json.dumps(bo_home), "only reviewers see open appeals"
    assert "Open appeals" in json.dumps(admin_home)
    rule = next(b for b in admin_home["blocks"] if b.get("accessory", {}).get("action_id") == RULE_ACTION)
    assert rule["accessory"]["value"] == str(appeal_id)
    assert "&lt;!channel&gt;" in rule["text"]["text"], "the reason is escaped"

    await _click(h, RULE_ACTION, str(appeal_id), "UBO", trigger="trig-bo")
    await _click(h, RULE_ACTION, str(appeal_id), "UADMIN", trigger="trig-admin")
    opened_views = await h.api.wait_for("views.open", 2)
    assert [c.params["trigger_id"] for c in opened_views][-1] == "trig-admin", "only a reviewer gets the modal"
    ruling_view = opened_views[-1].params["view"]
    ruling_modal = json.loads(ruling_view) if isinstance(ruling_view, str) else ruling_view
    assert ruling_modal["callback_id"] == RULING_MODAL
    denied = await _view(h, RULING_MODAL, str(appeal_id), _ruling("signature", "accept"), "UBO")
    assert "Only reviewers" in json.loads(denied)["errors"][DECISION_BLOCK]
    bad_phrase = await _view(
        h, RULING_MODAL, str(appeal_id), _ruling("signature", "accept", remember="lagging behind"), "UADMIN"
    )
    assert "words from the appealed reply" in json.loads(bad_phrase)["errors"][REMEMBER_BLOCK]
    for part in ("signature", "measurement", "fix"):
        body = await _view(
            h,
            RULING_MODAL,
            str(appeal_id),
            _ruling(part, "accept", note="fair point", remember="tortoise of the job" if part == "signature" else None),
            "UADMIN",
        )
        assert body == ""
    told: list = []  # type: ignore[type-arg]
    for _ in range(500):  # the rulings are told in the background: wait for the opening notice and all three
        told = [c for c in h.api.of("chat.postMessage") if c.params.get("channel") == "UANA"]
        if len(told) >= 4:
            break
        await asyncio.sleep(0.02)
    assert len(told) == 4
    assert all("was accepted" in c.params["text"] for c in told[1:])
    assert "Reviewer's note: fair point" in told[-1].params["text"]
    with h.db.session() as s:
        ana = s.scalars(select(Attempt).where(Attempt.answer_text == MISSED)).one()
        assert ana.score == 1.0
        assert ana.points >= 90 - HINT_COSTS[0]
    await h.command("leaderboard all")
    board = (await h.api.wait_for("response_url", 1))[-1].params["text"]
    assert f"uana — {ana.points} pts" in board
    assert (await h.api.wait_for("views.publish", 5))[-1].params["user_id"] == "UADMIN", "the Home tab refreshed"
