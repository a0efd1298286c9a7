"""Keyword-and-rubric grading of a free-text diagnosis: signature, confirming measurement, fix."""

from .scorer import MAX_ANSWER_CHARS, Grade, PartResult, grade

__all__ = ["MAX_ANSWER_CHARS", "Grade", "PartResult", "grade"]
