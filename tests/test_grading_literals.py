"""The literals a regex match must hold (bot/grading/literals.py): the grader skips a scan when a text holds none,
so every match anywhere must hold one of them, or grades would change."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.grading.literals import Gated, required_any
from bot.grading.vocabulary import vocabulary

DATA = Path(__file__).parent / "data"


def _texts() -> list[str]:
    rows = [json.loads(line) for line in (DATA / "replies.jsonl").read_text(encoding="utf-8").splitlines() if line]
    return [str(r["answer"]).lower() for r in rows]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\b(?:each|every) (?:of )?(?:ranks|gpus)\b", {"each", "every", "ranks", "gpus"}),
        (r"\bmemory[\s-]stat(?:istic)?s\b", {"memory"}),
        (r"\b(?:delete|deleting|deleted) it\b", {"delete", "deleting", "deleted"}),
        (r"(?:nccl|gloo)+_debug", {"_debug"}),
        (r"x[-−–]y", {"x", "y"}),
    ],
)
def test_every_match_holds_one_of_the_literals(pattern: str, expected: set[str]) -> None:
    found = required_any(pattern)
    assert found is not None
    assert all(any(lit in word for word in expected) for lit in found), found  # pieces of what the pattern spells
    for text in ["each of the ranks", "every gpus", "memory-stats", "deleting it", "gloo_debug", "x–y"]:
        if re.search(pattern, text):
            assert any(lit in text for lit in found), (pattern, text)


@pytest.mark.parametrize("pattern", [r"(?i)\bnccl\b", r"(?:a|b)?c?", r"\w+\d", r"(?:x|\d)y?", r"(?i:ab)cd?"])
def test_no_literal_is_claimed_where_none_is_required(pattern: str) -> None:
    """Case-insensitive patterns, optional items and classes promise no literal."""
    assert required_any(pattern) is None


def test_the_vocabulary_spellings_never_match_without_their_literals() -> None:
    texts = _texts()
    checked = 0
    for patterns in vocabulary().compounds.values():
        for p in patterns:
            found = required_any(p)
            if found is None:
                continue
            compiled = re.compile(p)
            for text in texts:
                if compiled.search(text):
                    checked += 1
                    assert any(lit in text for lit in found), (p, text)
    assert checked > 0


def test_a_gated_pattern_answers_as_the_pattern_does() -> None:
    texts = [*_texts(), "rank3 is slow", "sure, it's the network /s", "each rank 's step", "no literal here"]
    for pattern in [r"\b(rank|gpu)[#_-]?(\d+)\b", r"(?:^|\s)/s\b", r"(?<=\s)'s\b", r"\bmaybe\b|\?\s*$"]:
        compiled = re.compile(pattern)
        gated = Gated(compiled)
        assert gated.literals is not None
        for text in texts:
            assert bool(gated.search(text)) == bool(compiled.search(text))
            assert gated.sub("X", text) == compiled.sub("X", text)
