"""A mock interview: drills of rising difficulty on a 5-minute clock, graded as usual plus a narration score,
ending with a summary and the model spoken answer for each drill (built from the scenario's own figures)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..grading import Grade, grade
from ..scenarios.ids import DIFFICULTIES, SIGNATURE_IDS, TWINS
from ..scenarios.model import Scenario
from ..scenarios.registry import generate, signature
from .narration import Narration, narration

ROUND_SECONDS = 300
MAX_ROUNDS = 10
GRADE_WEIGHT = 0.7  # the combined score: what was diagnosed counts more than how it was said
SEED_RANGE = 2**31  # fits every database's integer column


@dataclass(frozen=True, slots=True)
class RoundSpec:
    number: int  # 1-based
    signature: str
    seed: int
    difficulty: str


def plan(rounds: int, seed: int) -> list[RoundSpec]:
    """`rounds` distinct signatures, difficulty rising from easy to hard, fixed by the seed."""
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds must be between 1 and {MAX_ROUNDS}")
    rng = random.Random(f"interview:{seed}")
    sigs = rng.sample(SIGNATURE_IDS, rounds)
    specs = []
    for i, sig in enumerate(sigs):
        level = DIFFICULTIES[min(len(DIFFICULTIES) - 1, i * len(DIFFICULTIES) // rounds)]
        specs.append(RoundSpec(i + 1, sig, rng.randrange(SEED_RANGE), level))
    return specs


def scenario_for(spec: RoundSpec) -> Scenario:
    return generate(spec.signature, spec.seed, spec.difficulty)


def model_answer(scenario: Scenario) -> str:
    """The model spoken answer: the reveal's 60-second read (built from this scenario's own figures), with the
    lookalike rejected out loud when the signature has a twin."""
    spoken = scenario.reveal.spoken.strip()
    lookalike = TWINS.get(scenario.signature)
    if lookalike:
        # Said plainly: the reasons live in the tell, but quoting it would name the twin without rejecting it.
        spoken += f" It is not {signature(lookalike).title.lower()}."
    return spoken


@dataclass(frozen=True, slots=True)
class RoundResult:
    spec: RoundSpec
    title: str  # the signature's title, for the summary (after the round)
    grade: Grade
    narration: Narration
    seconds: float
    answer: str

    @property
    def over_time(self) -> bool:
        return self.seconds > ROUND_SECONDS

    @property
    def combined(self) -> float:
        score = GRADE_WEIGHT * self.grade.score + (1 - GRADE_WEIGHT) * self.narration.score
        return round(score / 2 if self.over_time else score, 3)  # over the clock: half credit


def judge(spec: RoundSpec, scenario: Scenario, answer: str, seconds: float) -> RoundResult:
    return RoundResult(
        spec, signature(scenario.signature).title, grade(scenario, answer), narration(scenario, answer), seconds, answer
    )


def summary_lines(results: list[RoundResult]) -> list[str]:
    if not results:
        return ["No rounds answered."]
    lines = []
    for r in results:
        clock = f"{int(r.seconds) // 60}:{int(r.seconds) % 60:02d}" + (" over time" if r.over_time else "")
        lines.append(
            f"Round {r.spec.number} ({r.spec.difficulty}) — {r.title}: grade {r.grade.score:.0%}, "
            f"narration {r.narration.score:.0%} (order {r.narration.order:.0%}, numbers "
            f"{r.narration.numbers:.0%}, twin {r.narration.twin:.0%}), {clock} → {r.combined:.0%}"
        )
    mean = sum(r.combined for r in results) / len(results)
    weakest = min(results, key=lambda r: r.combined)
    lines.append(
        f"Overall {mean:.0%} over {len(results)} round(s). Work on: round {weakest.spec.number} ({weakest.title})."
    )
    return lines
