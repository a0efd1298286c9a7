"""Leaderboards by scope (channel, workspace, study group) and period, and the archive of past periods."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..store.db import Database, begin_write
from ..store.models import Attempt, Drill, LeaderboardArchive, User
from .periods import PERIODS, period_bounds, previous_period

SCOPES = ("channel", "workspace", "group", "solo")


@dataclass(frozen=True, slots=True)
class BoardRow:
    rank: int
    user_id: int
    user: str
    points: int
    answers: int
    mean_score: float


def board(
    s: Session, workspace_id: int, scope: str, scope_id: int, start: datetime, end: datetime, limit: int = 10
) -> list[BoardRow]:
    """Top users by points in [start, end) on revealed drills only: before its reveal a drill's points would
    tell a player how their answer scored while they can still revise it. Solo practice counts only on the
    "solo" board (scope_id: the workspace), never on channel, group or workspace boards."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}")
    total = func.sum(Attempt.points).label("total")
    q = (
        select(Attempt.user_id, total, func.count().label("n"), func.avg(Attempt.score))
        .join(Drill, Drill.id == Attempt.drill_id)
        .where(
            Attempt.workspace_id == workspace_id,
            Attempt.late.is_(False),
            Attempt.submitted_at >= start,
            Attempt.submitted_at < end,
            Drill.revealed_at.is_not(None),
            Drill.solo.is_(scope == "solo"),
        )
        .group_by(Attempt.user_id)
        .order_by(total.desc(), Attempt.user_id)
        .limit(limit)
    )
    if scope == "channel":
        q = q.where(Attempt.channel_id == scope_id)
    elif scope == "group":
        q = q.where(Attempt.group_id == scope_id)
    rows = s.execute(q).all()
    names = dict(s.execute(select(User.id, User.display_name).where(User.id.in_([r[0] for r in rows]))).all())
    return [
        BoardRow(i + 1, uid, names.get(uid) or f"user {uid}", int(pts), int(n), round(float(mean), 3))
        for i, (uid, pts, n, mean) in enumerate(rows)
    ]


def leaderboard(
    db: Database, workspace_id: int, scope: str, scope_id: int, period: str, tz: str, now: datetime, limit: int = 10
) -> list[BoardRow]:
    if period not in PERIODS:
        raise ValueError(f"unknown period {period!r}; choose one of: {', '.join(PERIODS)}")
    start, end = period_bounds(period, now, tz)
    with db.session() as s:
        return board(s, workspace_id, scope, scope_id, start, end, limit)


def archive_previous_periods(db: Database, workspace_id: int, channel_id: int, tz: str, now: datetime) -> list[str]:
    """Archive last week's and last month's channel board once; return the winner announcements to post."""
    texts = []
    for period in ("week", "month"):
        first_day, start, end = previous_period(period, now, tz)
        with db.session() as s:
            exists = s.scalars(
                select(LeaderboardArchive.id).where(
                    LeaderboardArchive.workspace_id == workspace_id,
                    LeaderboardArchive.scope == "channel",
                    LeaderboardArchive.scope_id == channel_id,
                    LeaderboardArchive.period == period,
                    LeaderboardArchive.period_start == first_day,
                )
            ).first()
            if exists is not None:
                continue
            rows = board(s, workspace_id, "channel", channel_id, start, end, 10)
            begin_write(s)  # the savepoint must not be the outermost transaction (SQLite)
            try:
                with s.begin_nested():
                    s.add(
                        LeaderboardArchive(
                            workspace_id=workspace_id,
                            scope="channel",
                            scope_id=channel_id,
                            period=period,
                            period_start=first_day,
                            rankings=[asdict(r) for r in rows],
                            announced=bool(rows),
                            created_at=now,
                        )
                    )
            except IntegrityError:
                continue  # another replica archived it first and announces it
        if rows:
            podium = ", ".join(f"{r.rank}. {r.user} ({r.points} pts)" for r in rows[:3])
            texts.append(f"Last {period}'s winners (from {first_day.isoformat()}): {podium}")
    return texts
