"""Folding compound spellings and code identifiers into one token before tokenising (`next(it)` → dataloadernext).

The vocabulary's `[compounds]` patterns run in order over the whole reply. Most never match, so each carries a
trigger, a literal every match holds: a text without it is not scanned.
"""

from __future__ import annotations

import re
import threading
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

from .literals import Gated, required_any
from .vocabulary import vocabulary
from .wordgate import Words, needed_words, words

_STRAY_POSSESSIVE = Gated(re.compile(r"(?<=\s)'s\b"))  # "each rank's" → "multirank 's" → "multirank"
_LOCK = threading.Lock()
# pattern, replacement, trigger, any-of, and the words one of which every match holds whole (wordgate.py)
Fold = tuple[re.Pattern[str], str, str | None, tuple[str, ...] | None, Words | None]
_FOLDS: list[tuple[Fold, ...]] = []
# "rank3", "gpu#5", "node-7" → "rank 3": the number is its own token.
_NUMBERED = Gated(re.compile(r"\b(rank|gpu|node|worker|stage|host|box|device|card)[#_-]?(\d+)\b"))
# Dictation spells an acronym out letter by letter: "n c u", "h b m", "s m throughput" are ncu, hbm, sm. Runs of two
# or more single letters join ("a" and "i" are words, so they neither start nor join a run).
_SPELLED = re.compile(r"\b[b-hj-z](?: [b-hj-z]\b)+")
SPELLED_LETTERS = frozenset(bytes([c]) for c in b"bcdefghjklmnopqrstuvwxyz")  # a match starts with one, a word alone


def _compounds() -> tuple[Fold, ...]:
    """The vocabulary's compound spellings, compiled once (under a lock): (pattern, replacement, trigger, any-of),
    where the trigger is a literal every match holds and any-of are literals every match holds one of ("ranks",
    "gpus", … for "each of the ranks"), so a text without them is not scanned at all."""
    if not _FOLDS:
        with _LOCK:
            if not _FOLDS:
                folds = []
                for token, patterns in vocabulary().compounds.items():
                    for p in patterns:
                        fast, leading = _literal_first(p)
                        # the longest literal every match must contain: a text without it is skipped unscanned
                        required = _required_literal(p)
                        trigger = max((t for t in (leading, required) if t), key=len, default=None)
                        trigger = trigger or _required_symbol(p)
                        any_of = required_any(p)
                        if any_of is not None and (any_of == (trigger,) or len(min(any_of, key=len)) < 2):
                            any_of = None  # the trigger already says it, or one letter, which nearly every text holds
                        needs = needed_words(p) or needed_words(_LOOKAROUND.sub("(?:", p))
                        folds.append((re.compile(fast), f" {token} ", trigger, any_of, needs))
                _FOLDS.append(tuple(folds))
    return _FOLDS[0]


# A positive lookahead or lookbehind ("(?=", "(?<="): the words it needs are in the text whenever the pattern matches,
# though not in the match, so they gate the text as well (a pattern that folds only a number before "kernels")
_LOOKAROUND = re.compile(r"(?<!\\)\(\?<?=")


def _required_literal(pattern: str) -> str | None:
    """The longest run of plain characters every match must contain (top level of the pattern), or None."""
    try:
        items = list(_parser.parse(pattern))
    except re.error:
        return None
    best, run = "", ""
    for op, arg in items:
        if op is sre.LITERAL:
            run += chr(arg)
            best = max(best, run, key=len)
        elif op is sre.AT:  # \b, ^, $ take no characters
            continue
        else:
            run = ""
    return best if len(best) >= 3 else None


DIGIT = "\x00digit"  # a trigger meaning "the text holds a digit"
_DIGIT = re.compile(r"\d")
_STARTS_WITH_NUMBER = re.compile(r"^(?:\\b)?\\d")


def _required_symbol(pattern: str) -> str | None:
    """For a pattern with no word to look for: a punctuation character every match holds at the top level of the
    pattern ("(" of "(p-1)/(m+p-1)", "=" of "p=8, m=16"), or DIGIT for one that starts with a number."""
    try:
        items = list(_parser.parse(pattern))
    except re.error:
        return None
    for op, arg in items:
        if op is sre.LITERAL and not chr(arg).isalnum() and not chr(arg).isspace():
            return chr(arg)
    return DIGIT if _STARTS_WITH_NUMBER.match(pattern) or any(_needs_digit(op, arg) for op, arg in items) else None


def _needs_digit(op: object, arg: object) -> bool:
    """A top-level `\\d` or `\\d+` ("p8 m8"): a text without a digit cannot match."""
    digit = [(sre.IN, [(sre.CATEGORY, sre.CATEGORY_DIGIT)])]
    if op is sre.IN:
        return [(op, arg)] == digit
    return op is sre.MAX_REPEAT and isinstance(arg, tuple) and arg[0] >= 1 and list(arg[2]) == digit


_LEADING_LITERAL = re.compile(r"^\\b((?:[a-z0-9_ @-]|\\[.()/])+)")


_LEADING_NUMBER = r"\b\d+"
_NUMBER_FIRST = r"\d(?<!\w\d)\d*"  # the same matches, longest first, with no word character before


def _literal_first(pattern: str) -> tuple[str, str | None]:
    """`\\bword…` → `word(?<!\\w.{4})…`: the same matches, but a pattern that starts with a literal lets the regex
    engine jump straight to candidate positions (about 6× faster over a long reply). Also returns that literal."""
    m = _LEADING_LITERAL.match(pattern)
    if m is None:
        if pattern.startswith(_LEADING_NUMBER):  # "\\b\\d+" → "\\d(?<!\\w\\d)\\d*": the engine jumps to digits
            return _NUMBER_FIRST + pattern[len(_LEADING_NUMBER) :], None
        return pattern, None
    literal = m.group(1)
    rest = pattern[m.end() :]
    if rest[:1] in ("?", "*", "+", "{"):  # the last character is quantified: it is not part of the literal
        literal, rest = literal[:-1], literal[-1] + rest
        if literal.endswith("\\"):
            literal, rest = literal[:-1], "\\" + rest
    plain = re.sub(r"\\(.)", r"\1", literal)
    if not plain or (len(plain) == 1 and not (plain.isalnum() or plain == "_")):
        return pattern, None  # "\\b" before a symbol asks for a word before it, which the rewrite would forbid
    fast = f"{literal}(?<!\\w.{{{len(plain)}}}){rest}"
    # one letter ("\\bm\\.?b\\.?s") still lets the engine jump to it (10× faster), but is too common to be a trigger
    return fast, plain if len(plain) >= 2 else None


def fold(piece: str) -> str:
    text = _NUMBERED.sub(r"\1 \2", piece.lower())
    said = words(text)  # one set test skips a spelling whose words the text lacks, cheaper than `trigger in text`
    if not said.isdisjoint(SPELLED_LETTERS) and _SPELLED.search(text):  # rare: few replies spell an acronym out
        text = _SPELLED.sub(_joined, text)
        said = words(text)
    has_digit = bool(_DIGIT.search(text))
    for pattern, repl, trigger, any_of, needs in _compounds():
        if needs is not None and said.isdisjoint(needs):
            continue
        if (trigger is None or (has_digit if trigger is DIGIT else trigger in text)) and (
            any_of is None or any(lit in text for lit in any_of)
        ):
            folded = pattern.sub(repl, text)
            if folded is not text:  # a spelling folded: the text's words changed
                text, said = folded, words(folded)
    return _STRAY_POSSESSIVE.sub(" ", text)


def _joined(m: re.Match[str]) -> str:
    return m.group().replace(" ", "")


def reset() -> None:
    """Forget what was loaded (see rulebook.clear_caches)."""
    with _LOCK:
        _FOLDS.clear()
