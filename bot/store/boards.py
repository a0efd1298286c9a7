"""Boards and histories: leaderboards by scope and period, the archive of past periods, a person's stats
(per-signature skill, confusion, streaks) and the answers their home shows. Only revealed drills count: before
its reveal a drill's points would tell a player how their answer scored while they can still revise it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from . import repo
from .channel_settings import ChannelSettingsRow, settings_row
from .db import Database, begin_write
from .models import Attempt, Channel, Drill, LeaderboardArchive, User

SCOPES = ("channel", "workspace", "group", "solo")
STREAK_THRESHOLD = 0.5


@dataclass(frozen=True, slots=True)
class BoardRow:
    rank: int
    user_id: int
    user: str
    points: int
    answers: int
    mean_score: float


@dataclass(frozen=True, slots=True)
class SignatureSkill:
    signature: str
    answers: int
    mean_score: float
    named_right: int


@dataclass
class UserStats:
    user_id: int
    answers: int = 0
    total_points: int = 0
    mean_score: float = 0.0
    streak: int = 0
    best_streak: int = 0
    skills: list[SignatureSkill] = field(default_factory=list)
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)  # true → named → count

    @property
    def weakest(self) -> list[str]:
        tried = [k for k in self.skills if k.answers]
        return [k.signature for k in sorted(tried, key=lambda k: (k.mean_score, -k.answers))[:3]]


def board(
    s: Session, workspace_id: int, scope: str, scope_id: int, start: datetime, end: datetime, limit: int = 10
) -> list[BoardRow]:
    """Top users by points in [start, end). Solo practice counts only on the "solo" board (scope_id: the
    workspace), never on channel, group or workspace boards."""
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


def board_rows(
    db: Database, workspace_id: int, scope: str, scope_id: int, start: datetime, end: datetime, limit: int = 10
) -> list[BoardRow]:
    with db.session() as s:
        return board(s, workspace_id, scope, scope_id, start, end, limit)


def archive_period(
    db: Database,
    workspace_id: int,
    channel_id: int,
    period: str,
    bounds: tuple[date, datetime, datetime],
    now: datetime,
) -> list[BoardRow] | None:
    """Archive a past period's channel board once. Returns its rows for the one caller that archived it, None
    when it was archived before (or another replica archived it first and announces it)."""
    first_day, start, end = bounds
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
            return None
        rows = board(s, workspace_id, "channel", channel_id, start, end, 10)
        archive = LeaderboardArchive(
            workspace_id=workspace_id,
            scope="channel",
            scope_id=channel_id,
            period=period,
            period_start=first_day,
            rankings=[asdict(r) for r in rows],
            announced=bool(rows),
            created_at=now,
        )
        begin_write(s)  # the savepoint must not be the outermost transaction (SQLite)
        try:
            with s.begin_nested():
                s.add(archive)
        except IntegrityError:
            return None
        return rows


def user_stats(
    s: Session, workspace_id: int, user_id: int, signatures: Sequence[str], channel_id: int | None = None
) -> UserStats:
    """Revealed, on-time answers only; a skill line for every id in `signatures`, in that order."""
    q = (
        select(Attempt)
        .join(Drill, Drill.id == Attempt.drill_id)  # unrevealed drills would leak the answer
        .where(
            Attempt.workspace_id == workspace_id,
            Attempt.user_id == user_id,
            Attempt.late.is_(False),
            Drill.revealed_at.is_not(None),
        )
    )
    if channel_id is not None:
        q = q.where(Attempt.channel_id == channel_id)
    attempts = list(s.scalars(q.order_by(Attempt.submitted_at)))
    st = UserStats(user_id)
    st.answers = len(attempts)
    st.total_points = sum(a.points for a in attempts)
    st.mean_score = round(sum(a.score for a in attempts) / len(attempts), 3) if attempts else 0.0
    for sig in signatures:
        mine = [a for a in attempts if a.signature == sig]
        right = sum(1 for a in mine if a.named == sig)
        mean = round(sum(a.score for a in mine) / len(mine), 3) if mine else 0.0
        st.skills.append(SignatureSkill(sig, len(mine), mean, right))
        if mine:
            row: dict[str, int] = {}
            for a in mine:
                key = a.named or "(none)"
                row[key] = row.get(key, 0) + 1
            st.confusion[sig] = row
    st.streak, st.best_streak = _streaks(s, workspace_id, attempts)
    return st


def _streaks(s: Session, workspace_id: int, attempts: list[Attempt]) -> tuple[int, int]:
    """Consecutive scheduled drills (in the channels this person plays) answered with score ≥ 0.5."""
    channels = {a.channel_id for a in attempts}
    if not channels:
        return 0, 0
    drills = s.scalars(
        select(Drill.id)
        .where(
            Drill.workspace_id == workspace_id,
            Drill.scheduled.is_(True),
            Drill.channel_id.in_(channels),
            Drill.revealed_at.is_not(None),
        )
        .order_by(Drill.posted_at)
    )
    good = {a.drill_id for a in attempts if a.score >= STREAK_THRESHOLD}
    best = run = 0
    for d in drills:
        run = run + 1 if d in good else 0
        best = max(best, run)
    return run, best


def stats_for(db: Database, platform: str, workspace: str, user: str, signatures: Sequence[str]) -> UserStats | None:
    """A person's stats by their platform id; None if they never answered here."""
    with db.session() as s:
        ws = repo.find_workspace(s, platform, workspace)
        u = repo.find_user(s, ws, user) if ws else None
        return user_stats(s, ws.id, u.id, signatures) if ws is not None and u is not None else None


@dataclass(frozen=True, slots=True)
class BoardScope:
    """Which board a channel (or, without one, the workspace) reads, in which timezone."""

    workspace_id: int
    scope: str
    scope_id: int
    timezone: str


def scope_for(
    db: Database, platform: str, workspace: str, channel: str | None, *, solo: bool = False
) -> BoardScope | None:
    """The channel's board, or with no channel the workspace's (or its solo board); None if nothing exists."""
    with db.session() as s:
        ws = repo.find_workspace(s, platform, workspace)
        ch: Channel | None = repo.find_channel(s, ws, channel) if ws and channel else None
        if ws is None or (channel and ch is None):
            return None
        if ch is not None:
            return BoardScope(ws.id, "channel", ch.id, ch.timezone)
        return BoardScope(ws.id, "solo" if solo else "workspace", ws.id, "UTC")


@dataclass(frozen=True, slots=True)
class PastAttempt:
    """One of a person's latest answers with its drill (signature and score only to be shown once revealed)."""

    drill_id: int
    answer: str
    revealed: bool
    signature: str
    seed: int
    difficulty: str
    trace_id: int | None
    score: float
    points: int
    late: bool


@dataclass(frozen=True, slots=True)
class History:
    """What a person's home shows: stats, latest answers, their latest channel, and on-time revealed scores
    (signature, submitted at, score) since a day."""

    stats: UserStats
    attempts: tuple[PastAttempt, ...]
    channel_name: str
    channel: ChannelSettingsRow | None
    scores: tuple[tuple[str, datetime, float], ...]


def history(
    db: Database, platform: str, workspace: str, user: str, last: int, since: datetime, signatures: Sequence[str]
) -> History | None:
    with db.session() as s:
        ws = repo.find_workspace(s, platform, workspace)
        u = repo.find_user(s, ws, user) if ws else None
        if ws is None or u is None:
            return None
        rows = s.execute(
            select(Attempt, Drill)
            .join(Drill, Drill.id == Attempt.drill_id)
            .where(Attempt.workspace_id == ws.id, Attempt.user_id == u.id)
            .order_by(Attempt.submitted_at.desc())
            .limit(last)
        ).all()
        attempts = tuple(
            PastAttempt(
                d.id,
                a.answer_text,
                d.revealed_at is not None,
                d.signature,
                d.seed,
                d.difficulty,
                d.trace_id,
                a.score,
                a.points,
                a.late,
            )
            for a, d in rows
        )
        channel = s.get(Channel, rows[0][0].channel_id) if rows else None  # the channel of the latest answer
        scores = s.execute(
            select(Attempt.signature, Attempt.submitted_at, Attempt.score)
            .join(Drill, Drill.id == Attempt.drill_id)
            .where(
                Attempt.workspace_id == ws.id,
                Attempt.user_id == u.id,
                Attempt.late.is_(False),
                Drill.revealed_at.is_not(None),
                Attempt.submitted_at >= since,
            )
        ).all()
        return History(
            user_stats(s, ws.id, u.id, signatures),
            attempts,
            (channel.name or channel.external_id) if channel else "",
            settings_row(channel) if channel else None,
            tuple((sig, when, score) for sig, when, score in scores),
        )
