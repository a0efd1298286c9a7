"""Recurring math questions and interview sessions per channel (a study group's, optionally)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

from apscheduler.triggers.cron import CronTrigger
from sqlalchemy import select

from ..drills.errors import DrillError
from ..drills.ports import ChannelRef
from ..store import repo
from ..store.db import Database
from ..store.models import StudyGroup
from ..store.prep_models import PrepSchedule


@dataclass(frozen=True, slots=True)
class ScheduleRow:
    id: int
    kind: str
    trigger: CronTrigger


def trigger_of(row: PrepSchedule) -> CronTrigger:
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
) -> str:
    def run() -> str:
        now = datetime.now(UTC)
        with db.session() as s:
            ws = repo.workspace(s, channel.platform, channel.workspace, "", now)
            ch = repo.channel(s, ws, channel.channel, channel.name)
            group_id = None
            if group:
                g = s.scalars(
                    select(StudyGroup).where(StudyGroup.workspace_id == ws.id, StudyGroup.name == group)
                ).first()
                if g is None:
                    raise DrillError(f"No study group `{group}` — create it with `/trace group create {group}`.")
                group_id = g.id
            row = s.scalars(
                select(PrepSchedule).where(PrepSchedule.channel_id == ch.id, PrepSchedule.kind == kind)
            ).first()
            if row is None:
                row = PrepSchedule(
                    workspace_id=ws.id,
                    channel_id=ch.id,
                    kind=kind,
                    weekdays=weekdays,
                    hour=hour,
                    minute=minute,
                    timezone=tz,
                    rounds=rounds,
                    group_id=group_id,
                )
                s.add(row)
            row.weekdays, row.hour, row.minute, row.timezone = weekdays, hour, minute, tz
            row.group_id, row.rounds = group_id, rounds
        what = "A math question" if kind == "math" else "An interview session"
        who = f" for study group {group}" if group else ""
        return f"{what}{who} will be posted here {weekdays} at {hour:02d}:{minute:02d} ({tz})."

    return await asyncio.to_thread(run)


async def schedule_off(db: Database, channel: ChannelRef, kind: str) -> str:
    def run() -> bool:
        with db.session() as s:
            ws = repo.find_workspace(s, channel.platform, channel.workspace)
            ch = repo.find_channel(s, ws, channel.channel) if ws else None
            row = (
                s.scalars(
                    select(PrepSchedule).where(PrepSchedule.channel_id == ch.id, PrepSchedule.kind == kind)
                ).first()
                if ch
                else None
            )
            if row is None:
                return False
            s.delete(row)
            return True

    removed = await asyncio.to_thread(run)
    label = "math" if kind == "math" else "interview"
    return f"The {label} schedule here is off." if removed else f"There was no {label} schedule here."


def all_schedules(db: Database) -> list[ScheduleRow]:
    with db.session() as s:
        return [ScheduleRow(r.id, r.kind, trigger_of(r)) for r in s.scalars(select(PrepSchedule))]
