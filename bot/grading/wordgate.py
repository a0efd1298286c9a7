"""Skipping a keyword pattern on a clause that holds none of its words: one set test instead of a regex scan.

A pattern like `\\b(?:not|no|never|…|rul\\w*)\\b` has too many alternatives to gate with `in` tests (literals.py),
and sre scans it position by position. `gate(pattern)` reads the parsed pattern for what every match must hold:
a whole word of the text ("not": `\\b` or a non-word character on both sides) or a plain substring ("rul", "n't").
`words(text)` is the set of a text's words, made once per clause; a text holding none of the words and none of the
substrings cannot match, so the search is skipped and the answer is the same.
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from typing import Any

from .boundary import class_end, compile_hoisted
from .literals import parsed_items

Words = frozenset[bytes]
Need = tuple[frozenset[str], frozenset[str]]  # (whole words, substrings): every match holds one of them
_WORD_BYTES = bytes(range(48, 58)) + bytes(range(65, 91)) + bytes(range(97, 123)) + b"_"
# every byte but an ASCII word character → space: an ASCII word stays whole, a non-ASCII letter only splits a word
_SPACED = bytes(c if c in _WORD_BYTES else 32 for c in range(256))
_ZERO_WIDTH = (sre.ASSERT, sre.ASSERT_NOT)
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
_STARTS = (sre.AT_BEGINNING, sre.AT_BEGINNING_STRING, sre.AT_BOUNDARY)  # before a word character: a word starts
_ENDS = (sre.AT_END, sre.AT_END_STRING, sre.AT_BOUNDARY)  # after a word character: the word ends
_NON_WORD = (sre.CATEGORY_SPACE, sre.CATEGORY_NOT_WORD)
MAX_SUBSTRINGS = 20  # beyond this many `in` tests the gate costs about what the scan costs


def words(text: str) -> Words:
    """The text's ASCII words (maximal runs of \\w that hold only ASCII), and pieces of the others: a set that holds
    every ASCII word a pattern may need whole."""
    return frozenset(text.encode().translate(_SPACED).split())


def needed_words(pattern: str) -> Words | None:
    """The words one of which every match of `pattern` holds whole, when that alone gates it (no substrings)."""
    need = required(pattern)
    if need is None or need[1] or not need[0] or not all(w.isascii() for w in need[0]):
        return None
    return frozenset(w.encode() for w in need[0])


class WordGate:
    """A compiled pattern searched only in a text holding one of the words or substrings its every match holds."""

    __slots__ = ("pattern", "substrings", "whole")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = compile_hoisted(pattern.pattern, pattern.flags)
        need = None if pattern.flags & (re.IGNORECASE | re.VERBOSE) else required(pattern.pattern)
        if need is not None:  # a non-ASCII word is not in words(): test it as a substring
            need = (
                frozenset(w for w in need[0] if w.isascii()),
                need[1] | frozenset(w for w in need[0] if not w.isascii()),
            )
        if need is None or len(need[1]) > MAX_SUBSTRINGS:
            self.whole: Words | None = None
            self.substrings: tuple[str, ...] = ()
        else:
            self.whole = frozenset(w.encode() for w in need[0])
            self.substrings = tuple(sorted(need[1]))

    def search(self, text: str, held: Words | None) -> re.Match[str] | None:
        """`pattern.search(text)`, where `held` is `words(text)`."""
        if held is not None and self.whole is not None and held.isdisjoint(self.whole):
            for sub in self.substrings:  # a plain loop: any() builds a generator, and this runs per clause
                if sub in text:
                    break
            else:
                return None
        return self.pattern.search(text)


def required(pattern: str) -> Need | None:
    """Whole words and substrings of which every match of `pattern` holds one, or None when none are found."""
    items = parsed_items(pattern)
    return None if items is None else _sequence(items, False, False)


def _is_word(code: int) -> bool:
    return chr(code).isalnum() or code == 95


def _sequence(items: list[tuple[Any, Any]], start: bool, end: bool) -> Need | None:
    """The best need any item of a sequence sets (every item must match). `start`: a word starts where the sequence
    starts, if it starts with a word character; `end`: a word ends where it ends, if it ends with one."""
    best: Need | None = None
    at_start = start
    k = 0
    while k < len(items):
        op, arg = items[k]
        if op is sre.LITERAL:
            j = k
            while j < len(items) and items[j][0] is sre.LITERAL:
                j += 1
            best = _better(best, _run(items, k, j, at_start, end))
            branch = _branch_after(items, j)
            if branch is not None:  # the parser moves a prefix all alternatives share out: "n(?:ot|o|ever)"
                alternatives = [items[k:j] + list(alt) for alt in branch]
                best = _better(
                    best, _item(sre.BRANCH, (None, alternatives), at_start, _first_ends(items[j + 1 :], end))
                )
            k = j
            at_start = not _is_word(items[j - 1][1])
            continue
        if op in (sre.SUBPATTERN, sre.BRANCH) or (op in _REPEATS and arg[0] >= 1):
            best = _better(best, _item(op, arg, at_start, _first_ends(items[k + 1 :], end)))
            best = _better(best, _suffixed(items, k, at_start, end))
        at_start = _after(op, arg, at_start)
        k += 1
    return best


def _suffixed(items: list[tuple[Any, Any]], k: int, start: bool, end: bool) -> Need | None:
    """A branch at items[k] and the literals after it, as alternatives that end with them: "(is|was)nt" → isnt."""
    branch = _branch_after(items, k)
    j = k + 1
    while j < len(items) and items[j][0] is sre.LITERAL:
        j += 1
    if branch is None or j == k + 1:
        return None
    return _item(
        sre.BRANCH, (None, [list(alt) + items[k + 1 : j] for alt in branch]), start, _first_ends(items[j:], end)
    )


def _branch_after(items: list[tuple[Any, Any]], j: int) -> list[Any] | None:
    """The alternatives of a branch at items[j] (bare, or alone in a group without flags), or None."""
    if j >= len(items):
        return None
    op, arg = items[j]
    if op is sre.SUBPATTERN and not arg[1] and len(arg[3]) == 1:
        op, arg = next(iter(arg[3]))
    return list(arg[1]) if op is sre.BRANCH else None


def _run(items: list[tuple[Any, Any]], k: int, j: int, at_start: bool, end: bool) -> Need:
    """A run of literals: its words that stand whole, or else the whole run as a substring."""
    text = "".join(chr(items[i][1]) for i in range(k, j))
    found: list[str] = []
    for m in re.finditer(r"\w+", text):
        starts = m.start() > 0 or at_start
        ends = m.end() < len(text) or _first_ends(items[j:], end)
        if starts and ends:
            found.append(m.group())
    if found:
        return frozenset({max(found, key=len)}), frozenset()
    return frozenset(), frozenset({text})


def _item(op: Any, arg: Any, start: bool, end: bool) -> Need | None:
    if op is sre.SUBPATTERN:
        _group, add_flags, _del_flags, inner = arg
        return None if add_flags & (re.IGNORECASE | re.VERBOSE) else _sequence(list(inner), start, end)
    if op is sre.BRANCH:
        alternatives = [_sequence(list(alt), start, end) for alt in arg[1]]
        if any(a is None for a in alternatives):
            return None
        whole = frozenset(w for a in alternatives if a is not None for w in a[0])
        return whole, frozenset(s for a in alternatives if a is not None for s in a[1])
    _low, high, inner = arg  # a repeat, at least once: its first pass starts here, its last pass ends there
    return _sequence(list(inner), start, end and high == 1)


def _after(op: Any, arg: Any, start: bool) -> bool:
    """Whether, after this item, a word character that follows starts a word (a non-word character or the text's
    start comes before it)."""
    if op is sre.AT:
        return True if arg in _STARTS else start
    if op in _ZERO_WIDTH:
        return start
    if op is sre.IN:
        return _non_word_set(arg)
    if op is sre.SUBPATTERN:
        return _after_all(list(arg[3]), start)
    if op is sre.BRANCH:
        return all(_after_all(list(alt), start) for alt in arg[1])
    if op in _REPEATS:
        low, high, inner = arg
        passes = _after_all(list(inner), False) if high >= 1 else start
        return passes and (start if low == 0 else True)
    return False


def _after_all(items: list[tuple[Any, Any]], start: bool) -> bool:
    for op, arg in items:
        start = (not _is_word(arg)) if op is sre.LITERAL else _after(op, arg, start)
    return start


def _first_ends(items: list[tuple[Any, Any]], end: bool) -> bool:
    """Whether a word that ends right before these items ends there (they start with a non-word character, a
    boundary or the text's end)."""
    if not items:
        return end
    op, arg = items[0]
    rest = items[1:]
    if op is sre.LITERAL:
        return not _is_word(arg)
    if op is sre.AT:
        return True if arg in _ENDS else _first_ends(rest, end)
    if op in _ZERO_WIDTH:
        return _first_ends(rest, end)
    if op is sre.IN:
        return _non_word_set(arg)
    if op is sre.SUBPATTERN:
        return _first_ends(list(arg[3]) + rest, end)
    if op is sre.BRANCH:
        return all(_first_ends(list(alt) + rest, end) for alt in arg[1])
    if op in _REPEATS:
        low, _high, inner = arg
        first = _first_ends(list(inner), _first_ends(rest, end))
        return first and (_first_ends(rest, end) if low == 0 else True)
    return False


def _non_word_set(arg: list[tuple[Any, Any]]) -> bool:
    """A character class that holds no word character ("[ ,;]", "\\s", "[^\\w.;,]")."""
    if arg and arg[0][0] is sre.NEGATE:
        return any(o is sre.CATEGORY and a is sre.CATEGORY_WORD for o, a in arg[1:])
    return all((o is sre.LITERAL and not _is_word(a)) or (o is sre.CATEGORY and a in _NON_WORD) for o, a in arg)


def _better(a: Need | None, b: Need | None) -> Need | None:
    """The cheaper, more selective need: fewer substrings to test, then a longer shortest word."""
    if a is None or not (a[0] or a[1]):
        return b if b is not None and (b[0] or b[1]) else a
    if b is None or not (b[0] or b[1]):
        return a
    return min(a, b, key=_cost)


def _cost(need: Need) -> tuple[int, int]:
    return len(need[1]), -min(len(x) for x in (*need[0], *need[1]))


_INLINE_FLAGS = re.compile(r"\(\?[a-zA-Z]+\)")
_BACKREF = re.compile(r"\\[1-9]|\(\?P=")


def alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of `pattern` ("a|b(?:c|d)|e" → "a", "b(?:c|d)", "e"), or the pattern alone when
    splitting could change what it means (an inline flag, a back reference)."""
    if _INLINE_FLAGS.search(pattern) or _BACKREF.search(pattern):
        return [pattern]
    out: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i = class_end(pattern, i)
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    out.append(pattern[start:])
    return out


class AnyAlternative:
    """Whether a pattern `A|B|…` matches anywhere, asked of each alternative on its own: an alternation matches where
    one of its alternatives does, so the answer is the same; but an alternative whose words the text lacks is not
    scanned (WordGate), and sre no longer tries every alternative at every position."""

    __slots__ = ("gates",)

    def __init__(self, pattern: re.Pattern[str]) -> None:
        pieces = alternatives(pattern.pattern)
        self.gates = tuple(WordGate(re.compile(p, pattern.flags)) for p in pieces)

    def matches(self, text: str, held: Words | None = None) -> bool:
        """`bool(pattern.search(text))`, where `held`, if given, is `words(text)`."""
        if held is None:
            held = words(text)
        for gate in self.gates:  # noqa: SIM110 (a plain loop: any() builds a generator, and this runs per clause)
            if gate.search(text, held) is not None:
                return True
        return False
