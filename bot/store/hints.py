"""Hints in the database: which levels a person took on a drill, and what they cost that person's attempt."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from . import repo
from .db import Database, begin_write
from .models import Attempt, Drill, HintTaken


@dataclass(frozen=True, slots=True)
class AttemptScore:
    """What an on-time attempt's points are computed from (the scoring policy lives in bot.drills)."""

    score: float
    hint_cost: int
    posted_at: datetime
    deadline_at: datetime
    submitted_at: datetime
    late: bool
    speed_bonus: bool  # False: a drill played without a timer


def attempt_score(d: Drill, a: Attempt) -> AttemptScore:
    return AttemptScore(a.score, a.hint_cost, d.posted_at, d.deadline_at, a.submitted_at, a.late, d.speed_bonus)


class HintRefusal(StrEnum):
    NO_DRILL = "no_drill"
    DRILL_OVER = "drill_over"
    NO_MORE = "no_more"  # every level taken
    JUST_GIVEN = "just_given"  # two clicks at once: the other one took this level


class HintRefused(Exception):
    """Raised inside the transaction, so nothing it began is kept."""

    def __init__(self, refusal: HintRefusal) -> None:
        super().__init__(refusal.value)
        self.refusal = refusal


@dataclass(frozen=True, slots=True)
class HintRequest:
    platform: str
    workspace: str
    user: str
    name: str
    drill_id: int


@dataclass(frozen=True, slots=True)
class TakenHint:
    """The level taken and its cost, with what it takes to rebuild the drill's scenario."""

    level: int
    cost: int
    drill_id: int
    workspace_id: int
    signature: str
    seed: int
    difficulty: str
    trace_id: int | None


def hints_cost(s: Session, drill_id: int, user_id: int) -> int:
    total = s.scalar(
        select(func.coalesce(func.sum(HintTaken.cost), 0)).where(
            HintTaken.drill_id == drill_id, HintTaken.user_id == user_id
        )
    )
    return int(total or 0)


def take_hint(
    db: Database,
    request: HintRequest,
    now: datetime,
    costs: Sequence[int],
    points_of: Callable[[AttemptScore], int],
) -> TakenHint:
    """Record the person's next level (costs[level - 1]) on an open drill; an attempt already made pays for it
    at once (`points_of` gives its points). Raises HintRefused."""
    with db.session() as s:
        ws = repo.find_workspace(s, request.platform, request.workspace)
        d = repo.drill(s, ws.id, request.drill_id) if ws else None
        if ws is None or d is None:
            raise HintRefused(HintRefusal.NO_DRILL)
        if d.revealed_at is not None or now > d.deadline_at:
            raise HintRefused(HintRefusal.DRILL_OVER)
        u = repo.user(s, ws, request.user, request.name)
        level, cost = _take_next(s, d, u.id, now, costs)
        a = s.scalars(
            select(Attempt).where(Attempt.drill_id == d.id, Attempt.user_id == u.id, Attempt.late.is_(False))
        ).first()
        if a is not None:
            a.hint_cost = hints_cost(s, d.id, u.id)
            a.points = points_of(attempt_score(d, a))
        return TakenHint(level, cost, d.id, d.workspace_id, d.signature, d.seed, d.difficulty, d.trace_id)


def _take_next(s: Session, d: Drill, user_id: int, now: datetime, costs: Sequence[int]) -> tuple[int, int]:
    taken = s.scalar(
        select(func.count()).select_from(HintTaken).where(HintTaken.drill_id == d.id, HintTaken.user_id == user_id)
    )
    level = int(taken or 0) + 1
    if level > len(costs):
        raise HintRefused(HintRefusal.NO_MORE)
    cost = costs[level - 1]
    begin_write(s)  # SQLite: the savepoint must not be the outermost transaction
    try:
        with s.begin_nested():  # two clicks at once: the database lets one of them take this level
            s.add(
                HintTaken(
                    workspace_id=d.workspace_id, drill_id=d.id, user_id=user_id, level=level, cost=cost, created_at=now
                )
            )
    except IntegrityError as exc:
        raise HintRefused(HintRefusal.JUST_GIVEN) from exc
    return level, cost
