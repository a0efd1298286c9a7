"""Telling appellants about rulings made outside chat (the operator CLI): the leader's scheduler sends each
pending notice once, through the platform's private channel. Chat rulings tell at once and are marked then."""

from __future__ import annotations

import asyncio
import logging

from ..store.appeals import PendingNotice, Verdict, mark_told, pending_notices
from .engine import Drills
from .ports import ChannelRef, UserRef

log = logging.getLogger(__name__)


def notice_text(notice: PendingNotice) -> str:
    verdicts = "; ".join(_verdict_text(v) for v in notice.verdicts)
    return f"Your appeal #{notice.appeal_id} on drill #{notice.drill_id}: {verdicts or notice.status}."


def _verdict_text(v: Verdict) -> str:
    return f"{v.part} {'accepted' if v.accepted else 'rejected'}" + (f" ({v.note})" if v.note else "")


async def send_pending(engine: Drills) -> int:
    """Send every pending notice; one that fails stays pending for the next run. Returns how many were sent."""
    sent = 0
    for notice in await asyncio.to_thread(pending_notices, engine.db):
        chat = engine.chats.get(notice.platform)
        if chat is None:
            continue  # that platform is not served by this process
        channel = ChannelRef(notice.platform, notice.workspace, notice.channel, notice.channel_name)
        user = UserRef(notice.platform, notice.workspace, notice.user, notice.user_name)
        try:
            await chat.send_private(channel, user, notice_text(notice))
        except Exception as exc:
            log.warning("appeal notice %s failed: %s", notice.appeal_id, type(exc).__name__)
            continue
        await asyncio.to_thread(mark_told, engine.db, notice.appeal_id, engine.clock())
        sent += 1
    return sent
