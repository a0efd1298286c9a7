"""What plain text every match of a regex must hold: a cheap `in` test that skips a scan that cannot match.

`required_any(pattern)` reads the parsed pattern and returns literals of which every match contains at least one
("ranks", "gpus", "nodes" for `… (?:ranks|gpus|nodes)\\b`), or None when it finds no such set. A text holding none of
them cannot match, so skipping the search changes nothing.
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

from .boundary import compile_hoisted

Literals = tuple[str, ...]
_ZERO_WIDTH = (sre.AT, sre.ASSERT, sre.ASSERT_NOT)  # take no characters: the literals either side stay adjacent
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
MAX_LITERALS = 24  # more alternatives than this cost about what the scan they would skip costs


def parsed_items(pattern: str) -> list[tuple[Any, Any]] | None:
    """The parsed pattern's top-level items, or None when literals cannot be read from it (it does not parse, or
    an inline or compiled flag — ignore case, verbose — changes what a literal means)."""
    if "(?" in pattern and re.search(r"\(\?[a-zA-Z]*[ix]", pattern):
        return None
    try:
        parsed = _parser.parse(pattern)
    except re.error:
        return None
    if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):
        return None
    return list(parsed)


def required_any(pattern: str) -> Literals | None:
    """Literals of which every match of `pattern` holds one, or None (case-insensitive patterns: always None)."""
    items = parsed_items(pattern)
    if items is None:
        return None
    found = _sequence(items)
    return found if found is not None and len(found) <= MAX_LITERALS else None


def _sequence(items: list[tuple[Any, Any]]) -> Literals | None:
    """The best set any item of a sequence requires (every item must match, so any one item's set will do)."""
    best: Literals | None = None
    run = ""
    for op, arg in items:
        if op is sre.LITERAL:
            run += chr(arg)
            continue
        if op in _ZERO_WIDTH:
            continue
        if run:
            best, run = _better(best, (run,)), ""
        best = _better(best, _item(op, arg))
    return _better(best, (run,)) if run else best


def _item(op: Any, arg: Any) -> Literals | None:
    if op is sre.SUBPATTERN:
        _group, add_flags, _del_flags, inner = arg
        return None if add_flags & (re.IGNORECASE | re.VERBOSE) else _sequence(list(inner))
    if op is sre.BRANCH:
        alternatives = [_sequence(list(alt)) for alt in arg[1]]
        if any(a is None for a in alternatives):
            return None
        return _minimal([lit for a in alternatives if a is not None for lit in a])
    if op in _REPEATS:
        low, _high, inner = arg
        return _sequence(list(inner)) if low >= 1 else None
    if op is sre.IN and arg and all(o is sre.LITERAL for o, _ in arg):
        return _minimal([chr(a) for _, a in arg])
    return None


def _minimal(literals: list[str]) -> Literals:
    """Any-of literals without those holding a shorter one ("delete", "deleted" → "delete"): the same test."""
    out: list[str] = []
    for lit in sorted(set(literals), key=len):
        if not any(o in lit for o in out):
            out.append(lit)
    return tuple(out)


def _better(a: Literals | None, b: Literals | None) -> Literals | None:
    """The more selective set: the longer shortest literal, then fewer literals."""
    if a is None or not a:
        return b or a
    if b is None or not b:
        return a
    return max(a, b, key=lambda s: (min(len(x) for x in s), -len(s)))


class Gated:
    """A compiled pattern searched only in a text holding one of the literals its every match holds: the same
    answer as `pattern.search`, without scanning the many clauses that hold none of them."""

    __slots__ = ("literals", "pattern")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = compile_hoisted(pattern.pattern, pattern.flags)
        self.literals = None if pattern.flags & (re.IGNORECASE | re.VERBOSE) else required_any(pattern.pattern)

    def search(self, text: str) -> re.Match[str] | None:
        return self.pattern.search(text) if self.may_match(text) else None

    def sub(self, repl: str, text: str) -> str:
        return self.pattern.sub(repl, text) if self.may_match(text) else text

    def may_match(self, text: str) -> bool:
        if self.literals is None:
            return True
        for lit in self.literals:  # noqa: SIM110 (a plain loop: any() builds a generator, and this runs per clause)
            if lit in text:
                return True
        return False
