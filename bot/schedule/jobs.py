"""Job functions, referenced by import path with plain ids so the job store can persist them.

The running engine is bound here by the composition root (bot.app) — the one piece of process state, because
APScheduler calls jobs by import path.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from ..drills.appeal_notices import send_pending
from ..drills.engine import Drills
from ..drills.errors import AlreadyStarted
from ..drills.ports import ChannelRef
from .triggers import channel_trigger, group_trigger, last_fire

log = logging.getLogger(__name__)
MISFIRE_GRACE_SECONDS = 600  # a cron job up to 10 minutes late still runs (once: coalesced)
_bound: dict[str, Drills] = {}


def bind(engine: Drills) -> None:
    _bound["engine"] = engine


def unbind() -> None:
    _bound.clear()


def engine() -> Drills:
    try:
        return _bound["engine"]
    except KeyError as exc:
        raise RuntimeError("no drill engine bound; start the app through bot.app") from exc


async def channel_drill(channel_id: int) -> None:
    e = engine()
    target = await e.calendar.channel(channel_id)
    now = e.clock()
    if target is None or target.skipped(now.astimezone(ZoneInfo(target.timezone)).date().isoformat()):
        return
    assert target.channel_schedule is not None
    await _start_once(e, target.channel, slot_key("channel", channel_trigger(target.channel_schedule), now))


async def appeal_notices() -> None:
    await send_pending(engine())


async def group_drill(group_id: int) -> None:
    e = engine()
    target = await e.calendar.group(group_id)
    if target is None:
        return
    assert target.group_schedule is not None
    slot = slot_key(f"group:{group_id}", group_trigger(target.group_schedule), e.clock())
    await _start_once(e, target.channel, slot, group_id)


def slot_key(scope: str, trigger: Any, now: datetime) -> str:
    """The scheduled slot this run belongs to, the same on every replica that fires it: the trigger's
    latest fire time (within the misfire grace), or the current minute when run off-schedule."""
    fired = last_fire(trigger, now, MISFIRE_GRACE_SECONDS) if trigger is not None else None
    when = (fired or now.replace(second=0, microsecond=0)).astimezone(UTC)
    return f"{scope}:{when:%Y-%m-%dT%H:%M}Z"


async def _start_once(e: Drills, ref: ChannelRef, slot: str, group_id: int | None = None) -> None:
    try:
        await e.start(ref, scheduled=True, group_id=group_id, slot_key=slot)
    except AlreadyStarted:
        log.info("%s in %s was already started by another replica", slot, ref)


async def reveal(drill_id: int) -> None:
    await engine().reveal(drill_id)
