"""Slack payloads → neutral values: one small translator per shape (slash command, block action, view
submission, message event). Listeners call these and never dig in a payload themselves; the recorded payloads in
tests/data/payloads/ pin each one down."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...drills.ports import ChannelRef, UserRef

PLATFORM = "slack"


@dataclass(frozen=True, slots=True)
class ThreadReply:
    """A person's reply in a thread: the answer to the drill that thread belongs to."""

    channel: ChannelRef
    user: UserRef
    thread_ts: str
    text: str
    key: str  # Slack retries an event with the same event_id: the key makes the retry a no-op


def command_refs(command: dict[str, Any]) -> tuple[ChannelRef, UserRef]:
    """The channel and the person of a slash command (`user_name` is Slack's deprecated handle: a fallback)."""
    team = str(command["team_id"])
    channel = ChannelRef(PLATFORM, team, str(command["channel_id"]), str(command.get("channel_name", "")))
    return channel, UserRef(PLATFORM, team, str(command["user_id"]), str(command.get("user_name", "")))


def team_of(body: dict[str, Any]) -> str:
    """The workspace of an interaction: `team.id`, or the user's `team_id` when Slack sends no team."""
    return str((body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id") or "")


def user_of(body: dict[str, Any], *, named: bool = True) -> UserRef:
    """The person who pressed or submitted; `named=False` leaves the name for DisplayNames to fill in."""
    user = body["user"]
    return UserRef(PLATFORM, team_of(body), str(user["id"]), str(user.get("name", "")) if named else "")


def channel_id_of(body: dict[str, Any]) -> str:
    return str((body.get("channel") or {}).get("id", ""))


def message_ts_of(body: dict[str, Any]) -> str:
    return str((body.get("message") or {}).get("ts", ""))


def action_value(body: dict[str, Any]) -> str:
    return str(((body.get("actions") or [{}])[0]).get("value", ""))


def action_id(body: dict[str, Any]) -> int | None:
    """The id a button carries in its value (a drill, a question, a session, an appeal); None if it carries none."""
    value = action_value(body)
    return int(value) if value.isdigit() else None


def field(view: dict[str, Any], block: str, action: str) -> dict[str, Any]:
    """One input's state in a submitted view ({} when it was left empty)."""
    values = ((view.get("state") or {}).get("values") or {}).get(block) or {}
    return dict(values.get(action) or {})


def text_field(view: dict[str, Any], block: str, action: str) -> str:
    return str(field(view, block, action).get("value") or "")


def choice_field(view: dict[str, Any], block: str, action: str, default: str = "") -> str:
    return str((field(view, block, action).get("selected_option") or {}).get("value") or default)


def metadata(view: dict[str, Any], parts: int) -> list[str]:
    """The view's `private_metadata`, split at "|" into exactly `parts` strings (missing ones are "")."""
    return [*str(view.get("private_metadata") or "").split("|"), *[""] * parts][:parts]


def number(text: str, default: int = 0) -> int:
    return int(text) if text.isdigit() else default


def thread_reply(event: dict[str, Any], body: dict[str, Any]) -> ThreadReply | None:
    """A person's (possibly edited) reply in a thread; None for top-level messages, bots and other subtypes."""
    subtype = event.get("subtype")
    message = event
    if subtype == "message_changed":  # an edited reply revises the answer
        message = event.get("message") or {}
    elif subtype not in (None, "thread_broadcast"):  # "also send to channel" replies still count
        return None
    thread = message.get("thread_ts")
    if not thread or message.get("bot_id") or thread == message.get("ts") or not message.get("user"):
        return None
    team = str(body.get("team_id") or event.get("team", ""))
    return ThreadReply(
        ChannelRef(PLATFORM, team, str(event.get("channel", ""))),
        UserRef(PLATFORM, team, str(message.get("user")), ""),
        str(thread),
        str(message.get("text", "")),
        f"event:{body.get('event_id')}",
    )
