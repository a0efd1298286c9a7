"""A person's history: per-signature accuracy, the confusion matrix, streaks, weakest signatures."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..scenarios.ids import SIGNATURE_IDS
from ..store.models import Attempt, Drill

STREAK_THRESHOLD = 0.5


@dataclass
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


def user_stats(s: Session, workspace_id: int, user_id: int, channel_id: int | None = None) -> UserStats:
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
    for sig in SIGNATURE_IDS:
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
    st.streak, st.best_streak = _streaks(s, workspace_id, user_id, attempts)
    return st


def _streaks(s: Session, workspace_id: int, user_id: int, attempts: list[Attempt]) -> tuple[int, int]:
    """Consecutive scheduled drills (in the channels this person plays) answered with score ≥ 0.5."""
    channels = {a.channel_id for a in attempts}
    if not channels:
        return 0, 0
    drills = list(
        s.scalars(
            select(Drill.id)
            .where(
                Drill.workspace_id == workspace_id,
                Drill.scheduled.is_(True),
                Drill.channel_id.in_(channels),
                Drill.revealed_at.is_not(None),
            )
            .order_by(Drill.posted_at)
        )
    )
    good = {a.drill_id for a in attempts if a.score >= STREAK_THRESHOLD}
    best = run = 0
    for d in drills:
        run = run + 1 if d in good else 0
        best = max(best, run)
    return run, best
