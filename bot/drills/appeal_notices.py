"""Telling appellants about rulings made outside chat (the operator CLI): the leader's scheduler sends each
pending notice once, through the platform's private channel. Chat rulings tell at once and are marked then."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy import or_, select, update

from ..store.models import Appeal, AppealRuling, Channel, Drill, User, Workspace
from .engine import DrillEngine
from .ports import ChannelRef, UserRef

log = logging.getLogger(__name__)


def pending(engine: DrillEngine, limit: int = 100) -> list[tuple[int, ChannelRef, UserRef, str]]:
    with engine.db.session() as s:
        q = (
            select(Appeal, Drill, User, Workspace, Channel)
            .join(Drill, Drill.id == Appeal.drill_id)
            .join(User, User.id == Appeal.user_id)
            .join(Workspace, Workspace.id == Appeal.workspace_id)
            .join(Channel, Channel.id == Drill.channel_id)
            .where(
                Appeal.resolved_at.is_not(None),
                or_(Appeal.notified_at.is_(None), Appeal.notified_at < Appeal.resolved_at),
            )
            .order_by(Appeal.id)
            .limit(limit)
        )
        out = []
        for ap, d, u, w, ch in s.execute(q).all():
            since = ap.notified_at
            rulings = [
                r
                for r in s.scalars(
                    select(AppealRuling).where(AppealRuling.appeal_id == ap.id).order_by(AppealRuling.id)
                )
                if since is None or r.created_at > since
            ]
            verdicts = "; ".join(
                f"{r.part} {'accepted' if r.accepted else 'rejected'}" + (f" ({r.note})" if r.note else "")
                for r in rulings
            )
            text = f"Your appeal #{ap.id} on drill #{d.id}: {verdicts or ap.status}."
            out.append(
                (
                    ap.id,
                    ChannelRef(w.platform, w.external_id, ch.external_id, ch.name),
                    UserRef(w.platform, w.external_id, u.external_id, u.display_name),
                    text,
                )
            )
        return out


def _mark(engine: DrillEngine, appeal_id: int) -> None:
    with engine.db.session() as s:
        s.execute(
            update(Appeal)
            .where(Appeal.id == appeal_id)
            .values(notified_at=engine.clock())
            .execution_options(synchronize_session=False)
        )


async def send_pending(engine: DrillEngine) -> int:
    """Send every pending notice; one that fails stays pending for the next run. Returns how many were sent."""
    sent = 0
    for appeal_id, channel, user, text in await asyncio.to_thread(pending, engine):
        chat = engine.chats.get(channel.platform)
        if chat is None:
            continue  # that platform is not served by this process
        try:
            await chat.send_private(channel, user, text)
        except Exception as exc:
            log.warning("appeal notice %s failed: %s", appeal_id, type(exc).__name__)
            continue
        await asyncio.to_thread(_mark, engine, appeal_id)
        sent += 1
    return sent
