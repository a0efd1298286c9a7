"""Recurring math questions and interview sessions in the database: one schedule per channel and kind, optionally
for a study group. One function = one transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from . import repo
from .addresses import ChannelAddress, ChannelPlace, place_of
from .db import Database
from .models import Channel, StudyGroup, Workspace
from .prep_models import PrepSchedule


class GroupMissing(LookupError):
    """The schedule names a study group the workspace does not have (nothing was stored)."""


@dataclass(frozen=True, slots=True)
class ScheduleSpec:
    kind: str  # math | interview
    weekdays: str  # APScheduler day_of_week syntax
    hour: int
    minute: int
    timezone: str
    group: str = ""  # a study group's name, or "" for the whole channel
    rounds: int = 3


@dataclass(frozen=True, slots=True)
class ScheduleRow:
    id: int
    kind: str
    weekdays: str
    hour: int
    minute: int
    timezone: str


@dataclass(frozen=True, slots=True)
class ScheduleTarget:
    """Where and for whom a schedule posts when it fires."""

    channel: ChannelPlace
    group_id: int | None
    group: str
    rounds: int


def set_schedule(db: Database, channel: ChannelAddress, spec: ScheduleSpec, now: datetime) -> None:
    """Create or replace the channel's schedule of that kind; raises GroupMissing."""
    with db.session() as s:
        ws = repo.workspace(s, channel.platform, channel.workspace, "", now)
        ch = repo.channel(s, ws, channel.channel, channel.name)
        group_id = None
        if spec.group:
            q = select(StudyGroup).where(StudyGroup.workspace_id == ws.id, StudyGroup.name == spec.group)
            g = s.scalars(q).first()
            if g is None:
                raise GroupMissing(spec.group)
            group_id = g.id
        row = s.scalars(
            select(PrepSchedule).where(PrepSchedule.channel_id == ch.id, PrepSchedule.kind == spec.kind)
        ).first()
        if row is None:
            row = PrepSchedule(workspace_id=ws.id, channel_id=ch.id, kind=spec.kind)
            s.add(row)
        row.weekdays, row.hour, row.minute, row.timezone = spec.weekdays, spec.hour, spec.minute, spec.timezone
        row.group_id, row.rounds = group_id, spec.rounds


def remove_schedule(db: Database, channel: ChannelAddress, kind: str) -> bool:
    """False when the channel had no schedule of that kind."""
    with db.session() as s:
        ws = repo.find_workspace(s, channel.platform, channel.workspace)
        ch = repo.find_channel(s, ws, channel.channel) if ws else None
        if ch is None:
            return False
        row = s.scalars(select(PrepSchedule).where(PrepSchedule.channel_id == ch.id, PrepSchedule.kind == kind)).first()
        if row is None:
            return False
        s.delete(row)
        return True


def all_schedules(db: Database) -> list[ScheduleRow]:
    with db.session() as s:
        return [
            ScheduleRow(r.id, r.kind, r.weekdays, r.hour, r.minute, r.timezone) for r in s.scalars(select(PrepSchedule))
        ]


def schedule_target(db: Database, schedule_id: int) -> ScheduleTarget | None:
    """None when the schedule is gone or its channel is switched off."""
    with db.session() as s:
        row = s.get(PrepSchedule, schedule_id)
        ch = s.get(Channel, row.channel_id) if row else None
        ws = s.get(Workspace, row.workspace_id) if row else None
        if row is None or ch is None or ws is None or not ch.enabled:
            return None
        group = s.get(StudyGroup, row.group_id) if row.group_id else None
        return ScheduleTarget(place_of(ws, ch), row.group_id, group.name if group else "", row.rounds)
