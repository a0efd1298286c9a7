"""Cron triggers in the channel's (or group's) own timezone."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger

from ..store.models import Channel, StudyGroup


def channel_trigger(ch: Channel) -> CronTrigger | None:
    if ch.schedule_hour is None or not ch.enabled:
        return None
    return CronTrigger(
        day_of_week=ch.weekdays, hour=ch.schedule_hour, minute=ch.schedule_minute, timezone=ZoneInfo(ch.timezone)
    )


def group_trigger(g: StudyGroup) -> CronTrigger | None:
    if not g.schedule_hours or g.channel_id is None:
        return None
    return CronTrigger(
        day_of_week=g.weekdays, hour=g.schedule_hours, minute=g.schedule_minute, timezone=ZoneInfo(g.timezone)
    )


def last_fire(trigger: Any, now: datetime, grace_seconds: float) -> datetime | None:
    """The trigger's latest fire time in [now - grace, now]: the slot a late or repeated run belongs to."""
    t = trigger.get_next_fire_time(None, now - timedelta(seconds=grace_seconds))
    slot = None
    while t is not None and t <= now:
        slot = t
        t = trigger.get_next_fire_time(t, t + timedelta(seconds=1))
    return slot
