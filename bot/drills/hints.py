"""Hints during a drill: they follow the reading order and point at evidence, never at the answer, and cost
points off the person's attempt. Pure.

Level 1 names the step of the reading order where the finding shows and the question to ask there; level 2 names
the rows of the picture and the time range (ms on the picture's own axis) to look at. Twins get the same level-1
question on purpose: the hint narrows where to look, the reader still has to tell which one it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..render.rows import MAX_RANK_LANES, layout, window_of
from ..scenarios.model import Annotation, Scenario
from ..scenarios.pipeline import is_pipeline
from ..store.hints import AttemptScore
from .policy import points

HINT_COSTS = (15, 25)  # points off that person's attempt for level 1, then level 2
MAX_LEVEL = len(HINT_COSTS)

READING_ORDER = ("step boundary", "gaps", "overlap", "top kernels", "per-rank work")

# signature → (reading step index, the question to ask at that step). Worded with no signature's own words
# (tests/giveaways.py checks every level of every signature).
_STEP: dict[str, tuple[int, str]] = {
    "unoverlapped_allreduce": (2, "which streams run at the same time as the compute stream, and which run alone?"),
    "straggler": (4, "put the ranks side by side: does every rank spend the same time computing in a step?"),
    "input_starvation": (
        1,
        "where in each step is the compute stream idle, and what is the main CPU thread doing at that moment?",
    ),
    "launch_bound": (
        1,
        "compare how long each kernel runs with the idle time between consecutive kernels, and "
        "look at how full the CUDA API row is.",
    ),
    "memory_bound_kernel": (
        3,
        "take the kernel family that dominates GPU time and read the GPU-metrics rows underneath it.",
    ),
    "healthy": (
        1,
        "measure how much of each step the compute stream is idle, then read the GPU-metrics rows "
        "under the longest kernel.",
    ),
    "pipeline_bubbles": (
        4,
        "line the stages up: where in the step is each stage idle, and does the idle time "
        "change from the first stage to the last?",
    ),
    "sync_stall": (
        1,
        "find each idle hole on the compute stream and read which call sits on the CUDA API row just before it.",
    ),
    "alloc_stall": (
        1,
        "find each idle hole on the compute stream and read which call sits on the CUDA API row just before it.",
    ),
    "prefill_blocks_decode": (
        0,
        "compare the length of each scheduler iteration with what the requests row shows "
        "arriving, and with the ITL row.",
    ),
}


@dataclass(frozen=True, slots=True)
class Hint:
    level: int
    cost: int
    text: str


def cost_of(level: int) -> int:
    return HINT_COSTS[level - 1]


def attempt_points(a: AttemptScore) -> int:
    """An on-time attempt's points: its score with the speed bonus as first earned, less what hints cost."""
    return max(0, points(a.score, a.posted_at, a.deadline_at, a.submitted_at, a.late, a.speed_bonus) - a.hint_cost)


def hint_for(scenario: Scenario, level: int) -> Hint:
    if not 1 <= level <= MAX_LEVEL:
        raise ValueError(f"hint level must be 1..{MAX_LEVEL}")
    if level == 1:
        step, question = _STEP[scenario.signature]
        name = READING_ORDER[step]
        if scenario.trace.kind == "serving" and step == 0:
            name = "iteration boundary"
        text = f"Reading order, step {step + 1} ({name}): {question}"
    else:
        text = _where(scenario)
    return Hint(level, cost_of(level), text)


def _where(scenario: Scenario) -> str:
    lo, hi = window_of(scenario)
    span = (hi - lo) / 1000
    spans: list[tuple[str, float, float]] = []
    drawn = {(r.rank, r.track): r.label for r in layout(scenario).rows}  # the picture's own row labels
    for a in scenario.annotations:
        row = drawn.get((a.rank, a.track)) or _row_label(scenario, a)
        if row is None:
            continue
        start, end = max(a.start, lo), min(a.end, hi)
        if end <= start:  # the evidence repeats every step: point at the first copy inside the picture
            period = _period(scenario)
            if period <= 0:
                continue
            shift = ((lo - a.start) // period + 1) * period
            start, end = max(a.start + shift, lo), min(a.end + shift, hi)
            if end <= start:
                continue
        spans.append((row, (start - lo) / 1000, (end - lo) / 1000))
    if not spans:  # a drill from a real trace: no marked evidence, so point at the busiest-looking stretch
        return (
            f"Rows: every GPU stream row and the CUDA API row above it, over the whole picture "
            f"(0–{span:.0f} ms); compare one step with the next."
        )
    rows = ", ".join(dict.fromkeys(r for r, _, _ in spans))
    first = min(s for _, s, _ in spans)
    last = max(e for _, _, e in spans)
    return f"Rows: {rows}. Time: {_ms(first)}–{_ms(last)} ms on the picture's axis (of {span:.0f} ms)."


def _row_label(scenario: Scenario, a: Annotation) -> str | None:
    if a.rank == 0:
        return a.track
    if a.rank >= MAX_RANK_LANES:
        return None
    noun = "stage" if is_pipeline(scenario.trace) else "rank"
    lane = "compute" if "compute" in a.track else "NCCL"
    return f"{noun} {a.rank} · {lane}"


def _period(scenario: Scenario) -> float:
    steps = scenario.trace.steps
    return (steps[-1][1] - steps[0][0]) / len(steps) if steps else 0.0


def _ms(value: float) -> str:
    return f"{value:.0f}" if value >= 20 else f"{value:.1f}"
