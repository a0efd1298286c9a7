"""Keyword-and-rubric grading of a free-text diagnosis: signature, confirming measurement, fix."""

from .model import Grade, PartResult
from .scorer import MAX_ANSWER_CHARS, grade

__all__ = ["MAX_ANSWER_CHARS", "Grade", "PartResult", "grade"]
