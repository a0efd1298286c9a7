"""Leaderboard periods in a channel's own timezone: this week (from Monday), this month, all time."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo


class Period(StrEnum):
    """A leaderboard's period: this week (from Monday), this month, all time."""

    WEEK = "week"
    MONTH = "month"
    ALL = "all"


PERIODS = tuple(Period)
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def period_bounds(period: str, now: datetime, tz: str) -> tuple[datetime, datetime]:
    """[start, end) in UTC of the period containing `now`, cut at local midnight in `tz`."""
    if period == Period.ALL:
        return EPOCH, now + timedelta(days=1)
    zone = ZoneInfo(tz)
    local = now.astimezone(zone)
    start_day = period_start_day(period, local.date())
    end_day = next_period_day(period, start_day)
    start = datetime.combine(start_day, datetime.min.time(), zone)
    end = datetime.combine(end_day, datetime.min.time(), zone)
    return start.astimezone(UTC), end.astimezone(UTC)


def period_start_day(period: str, day: date) -> date:
    if period == Period.WEEK:
        return day - timedelta(days=day.weekday())
    if period == Period.MONTH:
        return day.replace(day=1)
    raise ValueError(f"unknown period {period!r}; choose one of: {', '.join(PERIODS)}")


def next_period_day(period: str, start: date) -> date:
    if period == Period.WEEK:
        return start + timedelta(days=7)
    return (start.replace(day=28) + timedelta(days=4)).replace(day=1)


def previous_period(period: str, now: datetime, tz: str) -> tuple[date, datetime, datetime]:
    """(first day, start, end) of the period before the one containing `now`."""
    start, _ = period_bounds(period, now, tz)
    before = start - timedelta(seconds=1)
    p_start, p_end = period_bounds(period, before, tz)
    return p_start.astimezone(ZoneInfo(tz)).date(), p_start, p_end
