"""What mental math in chat needs from a platform, next to ChatPort: a question post and its reveal."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from ..drills.ports import ChannelRef, MessageRef, UserRef
from .questions import Question


@dataclass(frozen=True, slots=True)
class MathPost:
    question_id: int
    question: Question
    posted_at: datetime
    deadline: datetime


@dataclass(frozen=True, slots=True)
class MathScore:
    user: str
    value: float | None
    correct: bool
    points: int
    seconds: float


@dataclass(frozen=True, slots=True)
class MathRevealPost:
    question_id: int
    question: Question
    scores: tuple[MathScore, ...] = field(default=())

    def text(self) -> str:
        """The reveal, plain: the answer, the worked arithmetic, and who got it (platforms add markup)."""
        q = self.question
        right = [s for s in self.scores if s.correct]
        lines = [
            f"Math #{self.question_id} — the answer is {q.answer:,.4g} {q.unit} (±{q.tolerance:.0%} counts).",
            f"Formula: {q.formula}",
            f"Worked: {q.worked}",
        ]
        if q.context:
            lines.append(q.context)
        if right:
            lines.append("Right: " + ", ".join(f"{s.user} ({s.points} pts, {s.seconds:.0f} s)" for s in right))
        wrong = len(self.scores) - len(right)
        lines.append(
            f"{len(self.scores)} answered, {len(right)} right, {wrong} not."
            if self.scores
            else "Nobody answered this one."
        )
        return "\n".join(lines)


class MathChat(Protocol):
    async def post_math(self, channel: ChannelRef, post: MathPost) -> MessageRef: ...

    async def post_math_reveal(self, ref: MessageRef, post: MathRevealPost) -> MessageRef: ...

    async def send_private(self, channel: ChannelRef, user: UserRef, text: str) -> None: ...
