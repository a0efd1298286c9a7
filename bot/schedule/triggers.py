"""Cron triggers in the channel's (or group's) own timezone."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger


class ChannelTimes(Protocol):
    """A channel's schedule (the drill core's ChannelSchedule, or a channel row)."""

    @property
    def schedule_hour(self) -> int | None: ...
    @property
    def schedule_minute(self) -> int: ...
    @property
    def weekdays(self) -> str: ...
    @property
    def timezone(self) -> str: ...
    @property
    def enabled(self) -> bool: ...


class GroupTimes(Protocol):
    """A study group's schedule: several hours a day, in the channel it posts in."""

    @property
    def schedule_hours(self) -> str | None: ...
    @property
    def schedule_minute(self) -> int: ...
    @property
    def weekdays(self) -> str: ...
    @property
    def timezone(self) -> str: ...
    @property
    def channel_id(self) -> int | None: ...


def channel_trigger(ch: ChannelTimes) -> CronTrigger | None:
    if ch.schedule_hour is None or not ch.enabled:
        return None
    return CronTrigger(
        day_of_week=ch.weekdays, hour=ch.schedule_hour, minute=ch.schedule_minute, timezone=ZoneInfo(ch.timezone)
    )


def group_trigger(g: GroupTimes) -> CronTrigger | None:
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
