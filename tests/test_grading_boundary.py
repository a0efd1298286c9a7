"""Hoisting a word boundary out of alternatives (bot/grading/boundary.py): the rewritten pattern must find the very
same matches as the original, or grades would change."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from bot.grading.boundary import hoisted
from bot.grading.matcher import Reply
from bot.grading.vocabulary import vocabulary

DATA = Path(__file__).parent / "data"
GRADING = Path(__file__).parent.parent / "bot" / "grading"


def _texts() -> list[str]:
    rows = [json.loads(line) for line in (DATA / "replies.jsonl").read_text(encoding="utf-8").splitlines() if line]
    replies = [Reply.parse(str(r["answer"])) for r in rows]
    return [r.text for r in replies] + [c.text for r in replies for c in r.clauses]


def _patterns() -> list[re.Pattern[str]]:
    """Every pattern the grader compiles from a literal (read from its source, as written) that hoisting changes, and
    the vocabulary's compound spellings that it changes."""
    sources = [
        node.args[0].value
        for path in sorted(GRADING.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and ast.unparse(node.func) in ("re.compile", "compile_hoisted")
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ]
    sources += [p for patterns in vocabulary().compounds.values() for p in patterns]
    return [re.compile(p) for p in sources if hoisted(p) != p]


def test_hoists_runs_of_boundaries_at_every_depth() -> None:
    assert hoisted(r"\ba|\bb|c|\bd(?:\be|\bf)|[|\b]\bg") == r"\b(?:a|b)|c|\bd(?:\b(?:e|f))|[|\b]\bg"
    assert hoisted(r"(?i)\ba|\bb") == r"(?i)\ba|\bb"  # inline flags: left as written
    assert hoisted(r"(\ba)|\bb\1") == r"(\ba)|\bb\1"  # a back reference: left as written


def test_some_patterns_are_hoisted() -> None:
    assert len(_patterns()) >= 10


@pytest.mark.parametrize("pattern", _patterns(), ids=lambda p: p.pattern[:40])
def test_hoisted_pattern_finds_the_same_matches(pattern: re.Pattern[str]) -> None:
    again = re.compile(hoisted(pattern.pattern), pattern.flags)
    for said in _texts():
        assert [m.span() for m in again.finditer(said)] == [m.span() for m in pattern.finditer(said)], said
