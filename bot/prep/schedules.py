"""Recurring math questions and interview sessions per channel (a study group's, optionally)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from apscheduler.triggers.cron import CronTrigger

from ..drills.errors import DrillError
from ..drills.offloop import in_store
from ..drills.ports import ChannelRef
from ..store import prep_schedules as store
from ..store.db import Database
from ..store.prep_schedules import GroupMissing, ScheduleRow, ScheduleSpec


@dataclass(frozen=True, slots=True)
class CronSchedule:
    id: int
    kind: str  # math | interview
    trigger: CronTrigger


@dataclass(frozen=True, slots=True)
class ScheduleSet:
    spec: ScheduleSpec

    def text(self) -> str:
        s = self.spec
        what = "A math question" if s.kind == "math" else "An interview session"
        who = f" for study group {s.group}" if s.group else ""
        return f"{what}{who} will be posted here {s.weekdays} at {s.hour:02d}:{s.minute:02d} ({s.timezone})."


@dataclass(frozen=True, slots=True)
class ScheduleOff:
    kind: str
    removed: bool  # False: there was none

    def text(self) -> str:
        label = "math" if self.kind == "math" else "interview"
        return f"The {label} schedule here is off." if self.removed else f"There was no {label} schedule here."


@dataclass(frozen=True, slots=True)
class ScheduleTarget:
    """Where a schedule posts when it fires, and for whom."""

    channel: ChannelRef
    group_id: int | None
    group: str  # the study group's name, or ""
    rounds: int


def trigger_of(row: ScheduleRow) -> CronTrigger:
    return CronTrigger(day_of_week=row.weekdays, hour=row.hour, minute=row.minute, timezone=row.timezone)


async def set_schedule(
    db: Database,
    channel: ChannelRef,
    kind: str,
    weekdays: str,
    hour: int,
    minute: int,
    tz: str,
    *,
    group: str = "",
    rounds: int = 3,
) -> ScheduleSet:
    spec = ScheduleSpec(kind, weekdays, hour, minute, tz, group, rounds)
    try:
        await in_store(db, store.set_schedule, channel, spec, datetime.now(UTC))
    except GroupMissing as exc:
        raise DrillError(f"No study group `{group}` — create it with `/trace group create {group}`.") from exc
    return ScheduleSet(spec)


async def schedule_off(db: Database, channel: ChannelRef, kind: str) -> ScheduleOff:
    return ScheduleOff(kind, await in_store(db, store.remove_schedule, channel, kind))


def all_schedules(db: Database) -> list[CronSchedule]:
    """Every prep schedule as a cron trigger. Blocking: the scheduler's sync calls it (see prep_jobs.sync)."""
    return [CronSchedule(row.id, row.kind, trigger_of(row)) for row in store.all_schedules(db)]


async def schedule_target(db: Database, schedule_id: int) -> ScheduleTarget | None:
    """None when the schedule is gone or its channel is switched off."""
    found = await in_store(db, store.schedule_target, schedule_id)
    if found is None:
        return None
    place = found.channel
    channel = ChannelRef(place.platform, place.workspace, place.channel, place.name)
    return ScheduleTarget(channel, found.group_id, found.group, found.rounds)
