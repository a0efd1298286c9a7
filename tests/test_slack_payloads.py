"""The Slack payload translators over recorded payloads (tests/data/payloads/slack_*.json): each shape Slack
sends becomes the neutral value the listeners use, and the shapes they must ignore become None."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.slack.blocks import ANSWER_BLOCK, ANSWER_INPUT
from bot.adapters.slack.payloads import (
    action_id,
    action_value,
    channel_id_of,
    choice_field,
    command_refs,
    message_ts_of,
    metadata,
    number,
    team_of,
    text_field,
    thread_reply,
    user_of,
)
from bot.drills.ports import ChannelRef, UserRef

PAYLOADS = Path(__file__).parent / "data" / "payloads"


def payload(name: str) -> dict[str, Any]:
    data = json.loads((PAYLOADS / f"{name}.json").read_text())
    assert isinstance(data, dict)
    return data


def test_every_recorded_payload_is_used() -> None:
    used = {
        "slack_slash_command",
        "slack_block_actions_submit",
        "slack_block_actions_no_team",
        "slack_view_submission_answer",
        "slack_event_thread_reply",
        "slack_event_message_changed",
        "slack_event_bot_reply",
        "slack_event_top_level",
        "slack_event_thread_broadcast",
    }
    assert {p.stem for p in PAYLOADS.glob("slack_*.json")} == used


def test_slash_command() -> None:
    channel, user = command_refs(payload("slack_slash_command"))
    assert channel == ChannelRef("slack", "T0001", "C2147483705", "perf")
    assert user == UserRef("slack", "T0001", "U2147483697", "ana")


def test_button_press() -> None:
    body = payload("slack_block_actions_submit")
    assert action_id(body) == 42
    assert (team_of(body), channel_id_of(body), message_ts_of(body)) == ("T0001", "C2147483705", "1548261231.000200")
    assert user_of(body) == UserRef("slack", "T0001", "U2147483697", "ana")
    assert user_of(body, named=False).name == ""


def test_a_press_without_team_or_channel_falls_back_to_the_users_team() -> None:
    body = payload("slack_block_actions_no_team")
    assert team_of(body) == "T0002"
    assert channel_id_of(body) == "" and message_ts_of(body) == ""
    assert action_value(body) == "5|17"
    assert action_id(body) is None, "not a bare id"
    assert user_of(body).name == "", "no name in this payload"


@pytest.mark.parametrize("body", [{}, {"actions": []}, {"actions": [{"value": "x1"}]}, {"actions": [{}]}])
def test_a_press_without_an_id_has_none(body: dict[str, Any]) -> None:
    assert action_id(body) is None


def test_view_submission() -> None:
    view = payload("slack_view_submission_answer")["view"]
    assert text_field(view, ANSWER_BLOCK, ANSWER_INPUT) == "Rank 2 is a straggler."
    assert choice_field(view, "appeal_part", "part", "all") == "fix"
    assert text_field(view, "ruling_note", "note") == "", "an input left empty"
    assert choice_field(view, "ruling_decision", "decision", "reject") == "reject", "a block not in the form"
    assert metadata(view, 2) == ["42", "C2147483705"]
    assert metadata(view, 3) == ["42", "C2147483705", ""]
    assert metadata({}, 1) == [""]


@pytest.mark.parametrize(("text", "expected"), [("42", 42), ("", 0), ("4x", 0), ("-1", 0)])
def test_number(text: str, expected: int) -> None:
    assert number(text) == expected


def test_thread_reply() -> None:
    body = payload("slack_event_thread_reply")
    reply = thread_reply(body["event"], body)
    assert reply is not None
    assert reply.channel == ChannelRef("slack", "T0001", "C2147483705")
    assert reply.user == UserRef("slack", "T0001", "U2147483697", "")
    assert (reply.thread_ts, reply.key) == ("1355517500.000005", "event:Ev0PV52K21")
    assert reply.text == "Rank 2 is a straggler; fix the node cooling."


def test_an_edited_reply_revises_and_a_broadcast_reply_counts() -> None:
    edited = payload("slack_event_message_changed")
    reply = thread_reply(edited["event"], edited)
    assert reply is not None and reply.text == "Rank 2 is a straggler (edited)."
    assert reply.user.user == "U2147483697" and reply.thread_ts == "1355517500.000005"
    broadcast = payload("slack_event_thread_broadcast")
    assert thread_reply(broadcast["event"], broadcast) is not None


@pytest.mark.parametrize("name", ["slack_event_bot_reply", "slack_event_top_level"])
def test_bots_and_top_level_messages_are_not_answers(name: str) -> None:
    body = payload(name)
    assert thread_reply(body["event"], body) is None
