"""The attempt aggregate: recording an answer (once per delivery, revised in place until the deadline, late ones
apart), the delivery keys that make it idempotent, and the answers grading reads back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from . import repo
from .addresses import UserAddress
from .db import Database, begin_write
from .hints import hints_cost
from .models import Attempt, DeliveryKey, Drill, User, Workspace
from .synonyms import extra_phrases

MAX_ANSWER_STORED = 20_000  # characters kept in the database; the grader reads at most 4,000


class AnswerStatus(StrEnum):
    """What became of a submitted answer."""

    SCORED = "scored"
    REVISED = "revised"  # the person's latest answer replaces their earlier one
    LATE = "late"  # after the deadline or the reveal: graded privately, not scored
    DUPLICATE = "duplicate"  # the same platform event delivered again


class DrillMissing(LookupError):
    """No such drill in this workspace."""


class EmptyAnswer(ValueError):
    """An empty answer would replace a scored one: refused."""


@dataclass(frozen=True, slots=True)
class Credits:
    """What the grader made of an answer, as stored."""

    score: float
    signature: float
    measurement: float
    fix: float
    named: str | None


@dataclass(frozen=True, slots=True)
class DrillTiming:
    """What points depend on, read under the drill's lock."""

    posted_at: datetime
    deadline: datetime
    speed_bonus: bool


# (score, timing, submitted at, late) → points before hints: the scoring policy, which lives above the store.
PointsRule = Callable[[float, DrillTiming, datetime, bool], int]


@dataclass(frozen=True, slots=True)
class Recorded:
    status: AnswerStatus
    points: int
    late: bool


def record(
    db: Database,
    user: UserAddress,
    drill_id: int,
    text: str,
    credits: Credits,
    now: datetime,
    key: str | None,
    points_for: PointsRule,
) -> Recorded:
    """Store an answer. Raises DrillMissing, or EmptyAnswer for an empty revision.

    The drill row stays locked until this attempt commits, and the reveal's claim updates that row: so an
    attempt is either committed before the claim reads the answers (in the reveal) or sees the claim (late)."""
    with db.session(immediate=True) as s:
        ws = repo.find_workspace(s, user.platform, user.workspace)
        d = repo.drill(s, ws.id, drill_id, for_update=True) if ws else None
        if ws is None or d is None:
            raise DrillMissing(drill_id)
        if key is not None and not _first_delivery(s, ws, key, now):
            return Recorded(AnswerStatus.DUPLICATE, 0, False)
        u = repo.user(s, ws, user.user, user.name)
        late = now > d.deadline_at or d.revealed_at is not None
        hint_cost = 0 if late else hints_cost(s, d.id, u.id)
        timing = DrillTiming(d.posted_at, d.deadline_at, d.speed_bonus)
        pts = max(0, points_for(credits.score, timing, now, late) - hint_cost)
        status = _upsert(s, d, u, late, text, credits, pts, hint_cost, now)
        return Recorded(status, pts, late)


def _first_delivery(s: Session, ws: Workspace, key: str, now: datetime) -> bool:
    begin_write(s)  # the savepoint must not be the outermost transaction (SQLite)
    try:
        with s.begin_nested():
            s.add(DeliveryKey(key=key[:200], workspace_id=ws.id, created_at=now))
    except IntegrityError:
        return False
    return True


def _upsert(
    s: Session, d: Drill, u: User, late: bool, text: str, c: Credits, pts: int, hint_cost: int, now: datetime
) -> AnswerStatus:
    existing = s.scalars(
        select(Attempt).where(Attempt.drill_id == d.id, Attempt.user_id == u.id, Attempt.late.is_(late))
    ).first()
    if existing is not None and not text.strip():
        raise EmptyAnswer(d.id)  # a stray empty submit must not replace a scored answer with 0
    if existing is None:
        existing = Attempt(
            drill_id=d.id,
            user_id=u.id,
            workspace_id=d.workspace_id,
            channel_id=d.channel_id,
            group_id=d.group_id,
            signature=d.signature,
            late=late,
            revisions=0,
        )
        s.add(existing)
        status = AnswerStatus.LATE if late else AnswerStatus.SCORED
    else:
        existing.revisions = Attempt.revisions + 1  # in SQL: concurrent revisions all count
        status = AnswerStatus.LATE if late else AnswerStatus.REVISED
    existing.answer_text = text[:MAX_ANSWER_STORED]
    existing.signature_credit, existing.measurement_credit, existing.fix_credit = c.signature, c.measurement, c.fix
    existing.named, existing.score, existing.points = c.named, c.score, pts
    existing.hint_cost, existing.submitted_at = hint_cost, now
    return status


def workspace_phrases(db: Database, workspace_id: int, signature: str) -> dict[str, tuple[str, ...]]:
    """The wordings this workspace's reviewers chose to remember for a signature: {part: phrases}."""
    with db.session() as s:
        return extra_phrases(s, workspace_id, signature)


def last_answer(db: Database, user: UserAddress, drill_id: int) -> str | None:
    """This person's latest answer to this drill."""
    with db.session() as s:
        ws = repo.find_workspace(s, user.platform, user.workspace)
        if ws is None:
            return None
        q = (
            select(Attempt.answer_text)
            .join(User, User.id == Attempt.user_id)
            .where(Attempt.workspace_id == ws.id, Attempt.drill_id == drill_id, User.external_id == user.user)
            .order_by(Attempt.submitted_at.desc())
            .limit(1)
        )
        return s.scalar(q)


def purge_delivery_keys(db: Database, before: datetime) -> int:
    """Forget idempotency keys older than any redelivery (Slack retries for ~30 min, Discord for 15)."""
    with db.session() as s:
        result = s.execute(
            delete(DeliveryKey).where(DeliveryKey.created_at < before).execution_options(synchronize_session=False)
        )
        return int(result.rowcount)  # type: ignore[attr-defined]
