"""Grading from the command line: one answer, or JSON lines in and JSON lines out, never an exception."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from ..scenarios.ids import DIFFICULTIES, MAX_SEED, SIGNATURE_IDS
from ..scenarios.model import Scenario
from .model import Grade
from .scorer import grade


@lru_cache(maxsize=512)
def _scenario(signature: str, seed: int, difficulty: str) -> Scenario:
    # Imported here, not at the top: the scenario generators cost ~50 ms of start-up and only seeded lines need them.
    from ..scenarios.registry import generate

    return generate(signature, seed, difficulty)


def grade_one(signature: str, answer: str, seed: int | None = None, difficulty: str = "medium") -> Grade:
    target: Scenario | str = signature if seed is None else _scenario(signature, seed, difficulty)
    return grade(target, answer)


def grade_line(line: str, number: int) -> dict[str, Any]:
    """One JSON line in, one result out; a bad line gets a result with an `error` and zero credit."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        return _error(number, None, f"line {number} is not JSON: {exc.msg}")
    if not isinstance(item, dict):
        return _error(number, None, f"line {number} must be a JSON object")
    signature = item.get("signature")
    if signature not in SIGNATURE_IDS:
        return _error(
            number, signature if isinstance(signature, str) else None, f"line {number}: unknown signature {signature!r}"
        )
    seed = item.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED):
        return _error(number, signature, f"line {number}: seed must be an integer from 0 to {MAX_SEED}")
    difficulty = item.get("difficulty", "medium")
    if difficulty not in DIFFICULTIES:
        return _error(number, signature, f"line {number}: difficulty must be one of {', '.join(DIFFICULTIES)}")
    answer = item.get("answer", "")
    if not isinstance(answer, str):
        answer = "" if answer is None else json.dumps(answer)
    result = grade_one(signature, answer, seed, difficulty).as_dict()
    return result


def _error(number: int, signature: str | None, message: str) -> dict[str, Any]:
    return {
        "signature": 0.0,
        "measurement": 0.0,
        "fix": 0.0,
        "score": 0.0,
        "named": None,
        "feedback": message,
        "error": message,
        "line": number,
    }
