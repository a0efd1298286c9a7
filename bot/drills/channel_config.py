"""Per-channel settings behind `/trace config`: answer mode, answer time, difficulty, signature mix, schedule.
Platform-free; every value is checked here so both chat adapters give the same one-line errors."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from ..scenarios.ids import DIFFICULTIES, SIGNATURE_IDS
from ..store.channel_settings import (
    ChannelSettingsRow,
    DrillSchedule,
    SettingsUpdate,
    read_settings,
    update_settings,
)
from ..store.db import Database
from .commands import Command, parse
from .errors import DrillError
from .ports import ChannelRef

ANSWER_MODES = ("modal", "thread", "both")
MIN_ANSWER_SECONDS, MAX_ANSWER_SECONDS = 30, 24 * 3600


@dataclass(frozen=True, slots=True)
class ChannelSettings:
    answer_mode: str
    answer_seconds: int | None  # None: the bot's default
    difficulty: str
    signature_mix: tuple[str, ...] | None  # None: all ten
    weekdays: str
    hour: int | None  # None: no scheduled drill
    minute: int
    timezone: str
    enabled: bool

    @classmethod
    def of(cls, row: ChannelSettingsRow) -> ChannelSettings:
        return cls(
            row.answer_mode,
            row.answer_seconds,
            row.difficulty,
            row.signature_mix,
            row.weekdays,
            row.schedule_hour,
            row.schedule_minute,
            row.timezone,
            row.enabled,
        )

    def schedule_text(self) -> str:
        if self.hour is None:
            return "off"
        return f"{self.weekdays} {self.hour:02d}:{self.minute:02d} {self.timezone}"

    def summary(self, default_seconds: int) -> str:
        mix = ", ".join(self.signature_mix) if self.signature_mix else "all ten"
        mode = {
            "modal": "form only (hidden until the reveal)",
            "thread": "thread replies (public)",
            "both": "form or thread replies",
        }[self.answer_mode]
        return (
            f"Answers: {mode} · answer time: {self.answer_seconds or default_seconds} s · difficulty: "
            f"{self.difficulty} · signatures: {mix} · schedule: {self.schedule_text()}"
        )


@dataclass(frozen=True, slots=True)
class ConfigChange:
    """What someone asked to change; None leaves a setting as it is."""

    answer_mode: str | None = None
    answer_seconds: int | None = None
    difficulty: str | None = None
    signature_mix: tuple[str, ...] | None = None
    all_signatures: bool = False
    schedule: str | None = None  # "weekdays 09:30 Europe/Berlin" | "off"


def parse_signatures(text: str) -> tuple[str, ...]:
    """A comma/space separated list of signature ids; 'all' means every one."""
    words = [w for w in text.replace(",", " ").lower().split() if w]
    if not words or words == ["all"]:
        return ()
    unknown = [w for w in words if w not in SIGNATURE_IDS]
    if unknown:
        raise DrillError(f"Unknown signature {unknown[0][:40]!r}. Try: {', '.join(SIGNATURE_IDS)}")
    return tuple(dict.fromkeys(words))


def validate(change: ConfigChange) -> ConfigChange:
    if change.answer_mode is not None and change.answer_mode not in ANSWER_MODES:
        raise DrillError(f"Answer mode is one of: {', '.join(ANSWER_MODES)}.")
    if change.answer_seconds is not None and not MIN_ANSWER_SECONDS <= change.answer_seconds <= MAX_ANSWER_SECONDS:
        raise DrillError(f"Answer time is {MIN_ANSWER_SECONDS} s to {MAX_ANSWER_SECONDS // 3600} h.")
    if change.difficulty is not None and change.difficulty not in DIFFICULTIES:
        raise DrillError(f"Difficulty is one of: {', '.join(DIFFICULTIES)}.")
    if change.schedule is not None and not _schedule_off(change.schedule):
        _parsed_schedule(change.schedule)
    return change


def _schedule_off(schedule: str) -> bool:
    return schedule.strip().lower() == "off"


def _parsed_schedule(schedule: str) -> Command:
    cmd = parse(f"schedule {schedule}")
    if cmd.name != "schedule":
        raise DrillError(cmd.error or "Schedule like `weekdays 09:30 Europe/Berlin`, or off.")
    return cmd


def _update(change: ConfigChange) -> SettingsUpdate:
    """The checked change, as the store takes it (the schedule parsed)."""
    schedule = None
    off = change.schedule is not None and _schedule_off(change.schedule)
    if change.schedule is not None and not off:
        cmd = _parsed_schedule(change.schedule)
        schedule = DrillSchedule(cmd.weekdays, cmd.hour, cmd.minute, cmd.timezone)
    return SettingsUpdate(
        change.answer_mode,
        change.answer_seconds,
        change.difficulty,
        change.signature_mix,
        change.all_signatures,
        schedule,
        off,
    )


class ChannelConfig:
    def __init__(
        self,
        db: Database,
        clock: Callable[[], datetime],
        default_seconds: int,
        on_schedule_change: Callable[[], None] | None = None,
    ) -> None:
        self.db, self.clock, self.default_seconds = db, clock, default_seconds
        self.on_schedule_change = on_schedule_change or (lambda: None)

    async def get(self, channel: ChannelRef) -> ChannelSettings:
        return ChannelSettings.of(await asyncio.to_thread(read_settings, self.db, channel, self.clock()))

    async def apply(self, channel: ChannelRef, change: ConfigChange) -> ChannelSettings:
        """Validate and store; returns the channel's settings afterwards. Raises DrillError on bad input."""
        update = _update(validate(change))
        row = await asyncio.to_thread(update_settings, self.db, channel, update, self.clock())
        if change.schedule is not None:
            self.on_schedule_change()
        return ChannelSettings.of(row)
