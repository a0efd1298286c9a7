"""Leaderboards by scope (channel, workspace, study group, solo) and period, and the winners of past periods."""

from __future__ import annotations

from datetime import datetime

from ..store import boards
from ..store.boards import BoardRow
from ..store.db import Database
from .periods import PERIODS, Period, period_bounds, previous_period

__all__ = ["BoardRow", "archive_previous_periods", "board_text", "leaderboard"]


def leaderboard(
    db: Database, workspace_id: int, scope: str, scope_id: int, period: str, tz: str, now: datetime, limit: int = 10
) -> list[BoardRow]:
    """The top of a board for the period containing `now` in the timezone `tz` (blocking: a store call)."""
    if period not in PERIODS:
        raise ValueError(f"unknown period {period!r}; choose one of: {', '.join(PERIODS)}")
    start, end = period_bounds(period, now, tz)
    return boards.board_rows(db, workspace_id, scope, scope_id, start, end, limit)


def archive_previous_periods(db: Database, workspace_id: int, channel_id: int, tz: str, now: datetime) -> list[str]:
    """Archive last week's and last month's channel board once; return the winner announcements to post."""
    texts = []
    for period in (Period.WEEK, Period.MONTH):
        bounds = previous_period(period, now, tz)
        rows = boards.archive_period(db, workspace_id, channel_id, period, bounds, now)
        if rows:
            podium = ", ".join(f"{r.rank}. {r.user} ({r.points} pts)" for r in rows[:3])
            texts.append(f"Last {period}'s winners (from {bounds[0].isoformat()}): {podium}")
    return texts


def board_text(title: str, rows: list[BoardRow]) -> str:
    if not rows:
        return f"{title}: no answers yet."
    return title + "\n" + "\n".join(f"{r.rank}. {r.user} — {r.points} pts ({r.answers} answers)" for r in rows)
