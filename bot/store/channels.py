"""Channels and workspaces: where drills post, their schedules, and switching a team's drills on and off."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update

from . import repo
from .addresses import ChannelAddress
from .db import Database
from .models import Channel, StudyGroup, Workspace


@dataclass(frozen=True, slots=True)
class ChannelRow:
    id: int
    workspace_id: int
    platform: str
    workspace: str  # the platform's workspace id
    external_id: str
    name: str
    timezone: str
    answer_mode: str


@dataclass(frozen=True, slots=True)
class ChannelSchedule:
    """What a channel's cron trigger is made of."""

    id: int
    schedule_hour: int | None
    schedule_minute: int
    weekdays: str
    timezone: str
    enabled: bool


@dataclass(frozen=True, slots=True)
class GroupSchedule:
    """What a study group's cron trigger is made of."""

    id: int
    channel_id: int | None
    schedule_hours: str | None
    schedule_minute: int
    weekdays: str
    timezone: str


@dataclass(frozen=True, slots=True)
class ScheduledChannel:
    """Where a scheduled drill posts, and whether it should today."""

    channel: ChannelRow
    enabled: bool
    skip_dates: tuple[str, ...]
    channel_schedule: ChannelSchedule | None
    group_schedule: GroupSchedule | None = None


def row_of(ws: Workspace, ch: Channel) -> ChannelRow:
    return ChannelRow(ch.id, ws.id, ws.platform, ws.external_id, ch.external_id, ch.name, ch.timezone, ch.answer_mode)


def _channel_schedule(ch: Channel) -> ChannelSchedule:
    return ChannelSchedule(ch.id, ch.schedule_hour, ch.schedule_minute, ch.weekdays, ch.timezone, ch.enabled)


def _group_schedule(g: StudyGroup) -> GroupSchedule:
    return GroupSchedule(g.id, g.channel_id, g.schedule_hours, g.schedule_minute, g.weekdays, g.timezone)


def find(db: Database, channel: ChannelAddress) -> ChannelRow | None:
    with db.session() as s:
        ws = repo.find_workspace(s, channel.platform, channel.workspace)
        ch = repo.find_channel(s, ws, channel.channel) if ws else None
        return row_of(ws, ch) if ws is not None and ch is not None else None


def schedules(db: Database) -> tuple[list[ChannelSchedule], list[GroupSchedule]]:
    """Every channel's and study group's schedule (the scheduler's re-sync)."""
    with db.session() as s:
        channels = [_channel_schedule(ch) for ch in s.scalars(select(Channel))]
        groups = [_group_schedule(g) for g in s.scalars(select(StudyGroup))]
    return channels, groups


def scheduled_channel(db: Database, channel_id: int) -> ScheduledChannel | None:
    with db.session() as s:
        ch = s.get(Channel, channel_id)
        ws = s.get(Workspace, ch.workspace_id) if ch else None
        if ch is None or ws is None:
            return None
        return ScheduledChannel(row_of(ws, ch), ch.enabled, tuple(ch.skip_dates or ()), _channel_schedule(ch))


def scheduled_group(db: Database, group_id: int) -> ScheduledChannel | None:
    """The channel a study group's scheduled drill posts in."""
    with db.session() as s:
        g = s.get(StudyGroup, group_id)
        ch = s.get(Channel, g.channel_id) if g and g.channel_id else None
        ws = s.get(Workspace, g.workspace_id) if g else None
        if g is None or ch is None or ws is None:
            return None
        return ScheduledChannel(row_of(ws, ch), True, (), None, _group_schedule(g))


def set_schedule(
    db: Database, channel: ChannelAddress, weekdays: str, hour: int, minute: int, tz: str, now: datetime
) -> None:
    with db.session() as s:
        ws = repo.workspace(s, channel.platform, channel.workspace, "", now)
        ch = repo.channel(s, ws, channel.channel, channel.name)
        ch.weekdays, ch.schedule_hour, ch.schedule_minute, ch.timezone = weekdays, hour, minute, tz
        ch.enabled = True


def schedule_off(db: Database, channel: ChannelAddress) -> bool:
    """False if the channel had no row (so no schedule)."""
    with db.session() as s:
        ws = repo.find_workspace(s, channel.platform, channel.workspace)
        ch = repo.find_channel(s, ws, channel.channel) if ws else None
        if ch is None:
            return False
        ch.schedule_hour = None
        return True


def set_workspace_enabled(db: Database, platform: str, workspace: str, enabled: bool) -> None:
    with db.session() as s:
        ws = repo.find_workspace(s, platform, workspace)
        if ws is not None:
            s.execute(update(Channel).where(Channel.workspace_id == ws.id).values(enabled=enabled))


def enable_for_install(db: Database, enterprise: str | None, team: str | None) -> None:
    """A Slack (re)install: the team's channels (or, org-wide, every workspace of the enterprise) drill again."""
    if not team and not enterprise:
        return
    with db.session() as s:
        q = select(Workspace.id).where(Workspace.platform == "slack")
        q = q.where(Workspace.external_id == team) if team else q.where(Workspace.enterprise_id == enterprise)
        ids = list(s.scalars(q))
        if team and enterprise:
            s.execute(update(Workspace).where(Workspace.id.in_(ids)).values(enterprise_id=enterprise))
        if ids:
            s.execute(update(Channel).where(Channel.workspace_id.in_(ids)).values(enabled=True))


def enterprise_of(db: Database, platform: str, workspace: str) -> str | None:
    with db.session() as s:
        return s.scalar(
            select(Workspace.enterprise_id).where(Workspace.platform == platform, Workspace.external_id == workspace)
        )


def set_enterprise(db: Database, platform: str, workspace: str, enterprise: str, now: datetime) -> None:
    with db.session() as s:
        ws = repo.workspace(s, platform, workspace, "", now)
        if ws.enterprise_id != enterprise:
            ws.enterprise_id = enterprise
