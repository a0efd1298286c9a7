"""What the drill core returns: typed outcomes, never bare tuples or status strings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from ..grading import Grade
from .ports import MessageRef


class AnswerStatus(StrEnum):
    """What became of a submitted answer."""

    SCORED = "scored"
    REVISED = "revised"  # the person's latest answer replaces their earlier one
    LATE = "late"  # after the deadline or the reveal: graded privately, not scored
    DUPLICATE = "duplicate"  # the same platform event delivered again


_HEADS = {
    AnswerStatus.SCORED: "Recorded",
    AnswerStatus.REVISED: "Revised — your latest answer counts",
    AnswerStatus.LATE: "Too late to score (graded for you privately)",
    AnswerStatus.DUPLICATE: "Already recorded",
}


@dataclass(frozen=True, slots=True)
class StartedDrill:
    id: int
    signature: str  # for the operator and the tests; never shown before the reveal
    seed: int
    difficulty: str
    posted_at: datetime
    deadline: datetime
    message: MessageRef | None
    trace_id: int | None = None


@dataclass(frozen=True, slots=True)
class SubmitOutcome:
    status: AnswerStatus
    grade: Grade
    points: int
    late: bool
    drill_id: int

    def private_text(self) -> str:
        return f"{_HEADS[self.status]}. Drill #{self.drill_id}: feedback arrives with the reveal."


@dataclass(frozen=True, slots=True)
class RevealDueReport:
    """A sweep of overdue drills: the ids revealed, and (id, error) of those whose reveal failed."""

    revealed: list[int] = field(default_factory=list)
    failed: list[tuple[int, Exception]] = field(default_factory=list)
