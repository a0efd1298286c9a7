"""Hints in the database: which levels a person took on a drill, and what they cost that person's attempt."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..store.models import Attempt, Drill, HintTaken
from .errors import DrillError
from .hints import MAX_LEVEL, cost_of
from .policy import points


def hints_cost(s: Session, drill_id: int, user_id: int) -> int:
    total = s.scalar(
        select(func.coalesce(func.sum(HintTaken.cost), 0)).where(
            HintTaken.drill_id == drill_id, HintTaken.user_id == user_id
        )
    )
    return int(total or 0)


def attempt_points(d: Drill, a: Attempt) -> int:
    """An on-time attempt's points: its score with the speed bonus as first earned, less what hints cost."""
    return max(0, points(a.score, d.posted_at, d.deadline_at, a.submitted_at, a.late) - a.hint_cost)


def take_next(s: Session, d: Drill, user_id: int, now: datetime) -> tuple[int, int]:
    """Record the next hint level for this person; (level, cost). The cost comes off an attempt already made."""
    taken = (
        s.scalar(
            select(func.count()).select_from(HintTaken).where(HintTaken.drill_id == d.id, HintTaken.user_id == user_id)
        )
        or 0
    )
    level = int(taken) + 1
    if level > MAX_LEVEL:
        raise DrillError(f"No more hints on drill #{d.id}: you have had both.")
    cost = cost_of(level)
    try:
        with s.begin_nested():  # two clicks at once: the database lets one of them take this level
            s.add(
                HintTaken(
                    workspace_id=d.workspace_id, drill_id=d.id, user_id=user_id, level=level, cost=cost, created_at=now
                )
            )
    except IntegrityError as exc:
        raise DrillError("That hint was just given to you; ask again for the next one.") from exc
    a = s.scalars(
        select(Attempt).where(Attempt.drill_id == d.id, Attempt.user_id == user_id, Attempt.late.is_(False))
    ).first()
    if a is not None:
        a.hint_cost = hints_cost(s, d.id, user_id)
        a.points = attempt_points(d, a)
    return level, cost
