"""How the Slack adapter answers people: the error table (exception → the line they read), ephemeral replies
through `respond`, a note where the person is (or a DM), and the admin check that gates settings."""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackApiError

from ...analyze.service import AnalysisError
from ...drills.errors import NotRecorded
from ...drills.ports import ChannelRef, UserRef
from ..common.runner import ErrorRow, Reply, drill_errors
from .blocks import escape
from .chat import SlackChat

log = logging.getLogger(__name__)
EXPLAINED = {
    "not_in_channel": "I'm not in this channel: add me with `/invite @tracedrill`, then try again.",
    "channel_not_found": "I can't see this channel: add me with `/invite @tracedrill`, then try again.",
    "is_archived": "This channel is archived.",
    "missing_scope": "tracedrill lacks a Slack permission: ask an admin to reinstall it (see the README).",
    "restricted_action": "A workspace policy stops me posting here.",
}


def explain(error: str) -> str:
    """A Slack API error as one line someone can act on (nothing was posted)."""
    return EXPLAINED.get(error, f"Slack refused the post ({escape(error)}); nothing was posted. Try again.")


def _api_error(exc: SlackApiError) -> str:
    return explain(str(exc.response.get("error")))


def _escaped(exc: Exception) -> str:
    return escape(str(exc))


# Replies are Slack mrkdwn: the core's sentences are escaped, `explain` escapes what it quotes.
SLACK_ERRORS = drill_errors(_escaped).with_rows(ErrorRow(SlackApiError, _api_error), ErrorRow(AnalysisError, _escaped))
# An answer whose grading or storing failed is told as "not recorded", never dropped silently.
SUBMIT_ERRORS = drill_errors(_escaped).with_rows(fallback=str(NotRecorded()))


def ephemeral(respond: Any) -> Reply:
    """Reply through the command's response_url, visible to the person only."""

    async def reply(text: str) -> None:
        await respond(response_type="ephemeral", text=text)

    return reply


def ephemeral_in(client: Any, channel_id: str, user_id: str) -> Reply:
    """An ephemeral message in a channel (for buttons and modals, which have no response_url); none without one."""

    async def reply(text: str) -> None:
        if channel_id:
            await client.chat_postEphemeral(channel=channel_id, user=user_id, text=text)

    return reply


async def tell(chat: SlackChat, client: Any, channel: ChannelRef, user: UserRef, text: str) -> None:
    """An ephemeral note where the person is; a DM when that fails (e.g. user_not_in_channel)."""
    if channel.channel:
        try:
            await client.chat_postEphemeral(channel=channel.channel, user=user.user, text=text)
            return
        except SlackApiError as exc:
            log.info("ephemeral failed (%s); sending a DM", exc.response.get("error"))
    try:
        await chat.direct_message(client, user.user, text)
    except SlackApiError as exc:
        log.warning("could not reach %s: %s", user.user, exc.response.get("error"))


async def is_admin(client: Any, user_id: str) -> bool:
    """A workspace admin or owner; False when Slack won't say."""
    try:
        info = await client.users_info(user=user_id)
    except Exception as exc:
        log.info("users.info for %s failed (%s): treated as no admin", user_id, type(exc).__name__)
        return False
    u = info.get("user") or {}
    return bool(u.get("is_admin") or u.get("is_owner"))
