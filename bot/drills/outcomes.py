"""What the drill core returns: typed outcomes, never bare tuples or status strings."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..grading import Grade
from ..store.attempts import AnswerStatus
from .ports import MessageRef

__all__ = ["AnswerStatus", "RevealDueReport", "StartedDrill", "SubmitOutcome"]

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
