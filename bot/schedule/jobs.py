"""Job functions, referenced by import path with plain ids so the job store can persist them.

The running engine is bound here by the composition root (bot.app) — the one piece of process state, because
APScheduler calls jobs by import path.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from ..drills.engine import DrillEngine
from ..drills.errors import AlreadyStarted
from ..drills.ports import ChannelRef
from ..store.models import Channel, StudyGroup, Workspace
from .triggers import channel_trigger, group_trigger, last_fire

log = logging.getLogger(__name__)
MISFIRE_GRACE_SECONDS = 600  # a cron job up to 10 minutes late still runs (once: coalesced)
_bound: dict[str, DrillEngine] = {}


def bind(engine: DrillEngine) -> None:
    _bound["engine"] = engine


def unbind() -> None:
    _bound.clear()


def engine() -> DrillEngine:
    try:
        return _bound["engine"]
    except KeyError as exc:
        raise RuntimeError("no drill engine bound; start the app through bot.app") from exc


def _skipped(skip_dates: list[str], tz: str, now: datetime) -> bool:
    return now.astimezone(ZoneInfo(tz)).date().isoformat() in set(skip_dates or [])


async def channel_drill(channel_id: int) -> None:
    e = engine()
    with e.db.session() as s:
        ch = s.get(Channel, channel_id)
        ws = s.get(Workspace, ch.workspace_id) if ch else None
        now = e.clock()
        if ch is None or ws is None or not ch.enabled or _skipped(ch.skip_dates, ch.timezone, now):
            return
        ref = ChannelRef(ws.platform, ws.external_id, ch.external_id, ch.name)
        slot = slot_key("channel", channel_trigger(ch), now)
    await _start_once(e, ref, slot)


async def appeal_notices() -> None:
    from ..drills.appeal_notices import send_pending

    await send_pending(engine())


async def group_drill(group_id: int) -> None:
    e = engine()
    with e.db.session() as s:
        g = s.get(StudyGroup, group_id)
        ch = s.get(Channel, g.channel_id) if g and g.channel_id else None
        ws = s.get(Workspace, g.workspace_id) if g else None
        if g is None or ch is None or ws is None:
            return
        ref = ChannelRef(ws.platform, ws.external_id, ch.external_id, ch.name)
        slot = slot_key(f"group:{group_id}", group_trigger(g), e.clock())
    await _start_once(e, ref, slot, group_id)


def slot_key(scope: str, trigger: Any, now: datetime) -> str:
    """The scheduled slot this run belongs to, the same on every replica that fires it: the trigger's
    latest fire time (within the misfire grace), or the current minute when run off-schedule."""
    fired = last_fire(trigger, now, MISFIRE_GRACE_SECONDS) if trigger is not None else None
    when = (fired or now.replace(second=0, microsecond=0)).astimezone(UTC)
    return f"{scope}:{when:%Y-%m-%dT%H:%M}Z"


async def _start_once(e: DrillEngine, ref: ChannelRef, slot: str, group_id: int | None = None) -> None:
    try:
        await e.start(ref, scheduled=True, group_id=group_id, slot_key=slot)
    except AlreadyStarted:
        log.info("%s in %s was already started by another replica", slot, ref)


async def reveal(drill_id: int) -> None:
    await engine().reveal(drill_id)
