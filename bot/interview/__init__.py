"""Mock interviews: drills of rising difficulty on a clock, graded plus a narration score, with a summary."""

from .narration import Narration, narration
from .session import ROUND_SECONDS, RoundResult, RoundSpec, judge, model_answer, plan, scenario_for, summary_lines

__all__ = [
    "ROUND_SECONDS",
    "Narration",
    "RoundResult",
    "RoundSpec",
    "judge",
    "model_answer",
    "narration",
    "plan",
    "scenario_for",
    "summary_lines",
]
