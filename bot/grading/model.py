"""The value a grade is: three part results, a score, and the per-part table a person reads in a thread."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MARK = {1.0: "✓", 0.5: "~", 0.0: "✗"}


@dataclass(frozen=True, slots=True)
class PartResult:
    credit: float  # 0, 0.5 or 1
    evidence: str | None  # the span of the reply that earned it
    hint: str  # what would have earned it
    note: str = ""

    def line(self, name: str) -> str:
        """One row of the feedback table: ✓ / ~ / ✗, then the quoted span or the hint."""
        mark = MARK.get(self.credit, "~")
        if self.credit > 0 and self.evidence:
            return f"{mark} {name}: “{self.evidence}”" + (f" ({self.note})" if self.note else "")
        if self.note and self.evidence:
            return f"{mark} {name}: you wrote “{self.evidence}” — {self.note.rstrip('.')}. {self.hint}"
        return f"{mark} {name}: {self.hint}" + (f" ({self.note})" if self.note else "")


@dataclass(frozen=True, slots=True)
class Grade:
    signature_id: str
    signature: PartResult
    measurement: PartResult
    fix: PartResult
    score: float
    named: str | None  # the signature the reply committed to, if any
    bonus: float = 0.0
    notes: tuple[str, ...] = field(default=())

    def parts(self) -> list[tuple[str, PartResult]]:
        return [("Signature", self.signature), ("Measurement", self.measurement), ("Fix", self.fix)]

    def feedback(self) -> str:
        """A short per-part table for a chat thread: ✓ / ~ / ✗, the quoted span, or the hint."""
        lines = [part.line(name) for name, part in self.parts()]
        lines.extend(f"• {n}" for n in self.notes)
        lines.append(f"Score {round(100 * self.score)}/100")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "signature": self.signature.credit,
            "measurement": self.measurement.credit,
            "fix": self.fix.credit,
            "score": self.score,
            "named": self.named,
            "feedback": self.feedback(),
        }
