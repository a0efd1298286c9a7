"""Mental-math questions for interview prep: seeded, realistic givens, formulas explained with the numbers."""

from .answers import CheckResult, UnreadableAnswer, check, parse_answer
from .questions import DEFAULT_TOLERANCE, KINDS, Question, question

__all__ = [
    "DEFAULT_TOLERANCE",
    "KINDS",
    "CheckResult",
    "Question",
    "UnreadableAnswer",
    "check",
    "parse_answer",
    "question",
]
