"""A channel's drill settings in the database (`/trace config`): read them, or change some of them. The values
arrive checked (bot.drills.channel_config); each call is one transaction and returns the settings as stored."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from . import repo
from .addresses import ChannelAddress
from .db import Database
from .models import Channel


@dataclass(frozen=True, slots=True)
class ChannelSettingsRow:
    answer_mode: str
    answer_seconds: int | None  # None: the bot's default
    difficulty: str
    signature_mix: tuple[str, ...] | None  # None: all ten
    weekdays: str
    schedule_hour: int | None  # None: no scheduled drill
    schedule_minute: int
    timezone: str
    enabled: bool


@dataclass(frozen=True, slots=True)
class DrillSchedule:
    weekdays: str  # APScheduler day_of_week syntax
    hour: int
    minute: int
    timezone: str


@dataclass(frozen=True, slots=True)
class SettingsUpdate:
    """None leaves a setting as it is."""

    answer_mode: str | None = None
    answer_seconds: int | None = None
    difficulty: str | None = None
    signature_mix: tuple[str, ...] | None = None  # empty: left as it is
    all_signatures: bool = False
    schedule: DrillSchedule | None = None  # also turns the channel on
    schedule_off: bool = False


def settings_row(ch: Channel) -> ChannelSettingsRow:
    return ChannelSettingsRow(
        ch.answer_mode or "modal",
        ch.answer_seconds,
        ch.difficulty or "medium",
        tuple(ch.signature_mix) if ch.signature_mix else None,
        ch.weekdays,
        ch.schedule_hour,
        ch.schedule_minute or 0,
        ch.timezone,
        bool(ch.enabled),
    )


def read_settings(db: Database, where: ChannelAddress, now: datetime) -> ChannelSettingsRow:
    """The channel's settings; a channel seen for the first time gets its row (and defaults) here."""
    with db.session() as s:
        ws = repo.workspace(s, where.platform, where.workspace, "", now)
        ch = repo.channel(s, ws, where.channel, where.name)
        s.flush()
        return settings_row(ch)


def update_settings(db: Database, where: ChannelAddress, update: SettingsUpdate, now: datetime) -> ChannelSettingsRow:
    with db.session() as s:
        ws = repo.workspace(s, where.platform, where.workspace, "", now)
        ch = repo.channel(s, ws, where.channel, where.name)
        _apply(ch, update)
        s.flush()
        return settings_row(ch)


def _apply(ch: Channel, update: SettingsUpdate) -> None:
    if update.answer_mode is not None:
        ch.answer_mode = update.answer_mode
    if update.answer_seconds is not None:
        ch.answer_seconds = update.answer_seconds
    if update.difficulty is not None:
        ch.difficulty = update.difficulty
    if update.all_signatures:
        ch.signature_mix = None
    elif update.signature_mix:
        ch.signature_mix = list(update.signature_mix)
    if update.schedule_off:
        ch.schedule_hour = None
    elif update.schedule is not None:
        ch.weekdays, ch.schedule_hour = update.schedule.weekdays, update.schedule.hour
        ch.schedule_minute, ch.timezone = update.schedule.minute, update.schedule.timezone
        ch.enabled = True
