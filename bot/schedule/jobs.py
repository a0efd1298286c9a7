"""Job functions, referenced by import path with plain ids so the job store can persist them.

The running engine is bound here by the composition root (bot.app) — the one piece of process state, because
APScheduler calls jobs by import path.
"""

from __future__ import annotations

import logging
from datetime import datetime
from zoneinfo import ZoneInfo

from ..drills.engine import DrillEngine
from ..drills.ports import ChannelRef
from ..store.models import Channel, StudyGroup, Workspace

log = logging.getLogger(__name__)
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
        if ch is None or ws is None or not ch.enabled or _skipped(ch.skip_dates, ch.timezone, e.clock()):
            return
        ref = ChannelRef(ws.platform, ws.external_id, ch.external_id, ch.name)
    await e.start(ref, scheduled=True)


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
    await e.start(ref, scheduled=True, group_id=group_id)


async def reveal(drill_id: int) -> None:
    await engine().reveal(drill_id)
