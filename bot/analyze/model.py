"""What an analysis produces: per-rank readings, the findings ranked from them, and the result handed to the CLI
and the chat adapters. Plain values shared by the reading, the classifier, the report and the service."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..scenarios.intervals import Interval
from ..scenarios.model import Rank


@dataclass(slots=True)
class RankReading:
    rank: int
    steps: list[Interval]  # steady-state GPU step windows
    step_numbers: list[int]
    figures: dict[str, float]
    top_kernels: list[tuple[str, float, float]]  # name, µs per step, share
    hta: dict[str, float]


@dataclass(frozen=True, slots=True)
class Finding:
    signature: str
    confidence: float  # 0..1, for ranking; not a probability
    evidence: str


@dataclass(slots=True)
class Reading:
    ranks: list[RankReading]
    model_ranks: list[Rank]
    findings: list[Finding] = field(default_factory=list)

    @property
    def main(self) -> RankReading:
        return self.ranks[0]

    @property
    def top(self) -> Finding:
        return self.findings[0]


class AnalysisError(Exception):
    """An analysis that could not be done; the message is one line for the person who asked."""


@dataclass(frozen=True, slots=True)
class AnalysisResult:
    text: str
    json: dict[str, Any]
    png: bytes | None
    signature: str
