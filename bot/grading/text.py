"""Turning a chat reply into clauses of canonical tokens, keeping where each token came from."""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

import snowballstemmer

from .vocabulary import vocabulary

# snowballstemmer's stemmers keep per-call state in the instance: one per thread, never shared.
_LOCAL = threading.local()


def _stem(word: str) -> str:
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        stemmer = _LOCAL.stemmer = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word))


_STRAY_POSSESSIVE = re.compile(r"(?<=\s)'s\b")  # "each rank's" → "multirank 's" → "multirank"
_LOCK = threading.Lock()
_FOLDS: list[tuple[tuple[re.Pattern[str], str, str | None], ...]] = []
# "rank3", "gpu#5", "node-7" → "rank 3": the number is its own token.
_NUMBERED = re.compile(r"\b(rank|gpu|node|worker|stage|host|box|device|card)[#_-]?(\d+)\b")


def _compounds() -> tuple[tuple[re.Pattern[str], str, str | None], ...]:
    """The vocabulary's compound spellings, compiled once (under a lock): (pattern, replacement, trigger), where
    the trigger is a literal the pattern starts with, so a text without it is not scanned at all."""
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
                        folds.append((re.compile(fast), f" {token} ", trigger))
                _FOLDS.append(tuple(folds))
    return _FOLDS[0]


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
    return DIGIT if _STARTS_WITH_NUMBER.match(pattern) else None


_LEADING_LITERAL = re.compile(r"^\\b((?:[a-z0-9_ @-]|\\[.()/])+)")


def _literal_first(pattern: str) -> tuple[str, str | None]:
    """`\\bword…` → `word(?<!\\w.{4})…`: the same matches, but a pattern that starts with a literal lets the regex
    engine jump straight to candidate positions (about 6× faster over a long reply). Also returns that literal."""
    m = _LEADING_LITERAL.match(pattern)
    if m is None:
        return pattern, None
    literal = m.group(1)
    rest = pattern[m.end() :]
    if rest[:1] in ("?", "*", "+", "{"):  # the last character is quantified: it is not part of the literal
        literal, rest = literal[:-1], literal[-1] + rest
        if literal.endswith("\\"):
            literal, rest = literal[:-1], "\\" + rest
    plain = re.sub(r"\\(.)", r"\1", literal)
    if len(plain) < 2:
        return pattern, None
    return f"{literal}(?<!\\w.{{{len(plain)}}}){rest}", plain


COMMA_GAP = 5

STOPWORDS = frozenset(
    """
    a an the is are was were be been being of to in on at for
    it its it's this that these those there and with by as from into i i'd
    i'm we our you your so just very also then which who what has have had
    do does did would will can could should my me us they them their
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

_CONTROL = re.compile(r"[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f]")
_DUNDER = re.compile(r"__([a-z]+)__")
_ARROW = re.compile(r"\s*(?:-+>|=>)\s*")
_FENCE = re.compile(r"```[a-zA-Z0-9_+-]*")
_MARKDOWN = re.compile(r"[*`>#~|]+|(?<!\w)_+|_+(?!\w)")
_MENTION = re.compile(r"<[@#!][^>]{0,80}>")
_TOKEN = re.compile(r"[a-z0-9][a-z0-9']*[a-z0-9]|[a-z0-9]")
# Clause boundaries: sentence punctuation, dashes, and the turns where one claim ends and another begins.
_CLAUSE = re.compile(
    r"[.;!?\n]+(?:\s|$)|:\s|\s[-–—]+\s|\s+(?:but|however|although|though|whereas|instead(?!\s+of)|actually|rather(?!\s+than))\s+"
    r"|,\s*(?=(?:it'?s|it is|its|this is|that'?s|that is|the real|the actual|so)\b)"
)


@dataclass(frozen=True, slots=True)
class Token:
    stem: str  # canonical, stemmed
    start: int  # character offsets in the clause's folded text
    end: int
    position: int = 0  # word position; a comma counts as COMMA_GAP words, so phrases rarely span one
    word: str = ""  # the word as written (lower case), for typo matching


@dataclass(frozen=True, slots=True)
class Clause:
    text: str  # lower case, compounds folded: what polarity rules read
    quote: str  # the same clause as the person wrote it (cleaned): what feedback quotes
    tokens: tuple[Token, ...]  # content tokens (no stop words)
    colon: bool = False  # ends with a colon: introduces what follows ("I'd check: …")


_BARE_CONTRACTION = re.compile(
    r"\b(is|are|was|were|does|do|did|has|have|had|could|should|would|wo|ca)nt\b", re.IGNORECASE
)


def clean(raw: str) -> str:
    """NFKC, no control characters, no mentions, no markdown decoration; case kept for quoting."""
    text = unicodedata.normalize("NFKC", raw)
    text = _BARE_CONTRACTION.sub(r"\1n't", text)  # "isnt overlapping" is a negation typed without the apostrophe
    text = _CONTROL.sub(" ", text)
    text = _MENTION.sub(" ", text)
    text = _DUNDER.sub(r"dunder\1", text)  # __next__ is code, not markdown emphasis
    text = _ARROW.sub(" → ", text)  # "if X -> do A" stays one clause (and ">" is not a quote marker)
    text = _FENCE.sub(" ", text)
    text = _MARKDOWN.sub(" ", text)
    return text.replace("’", "'").replace("‘", "'")


def fold(piece: str) -> str:
    text = _NUMBERED.sub(r"\1 \2", piece.lower())
    has_digit = bool(_DIGIT.search(text))
    for pattern, repl, trigger in _compounds():
        if trigger is None or (has_digit if trigger is DIGIT else trigger in text):
            text = pattern.sub(repl, text)
    return _STRAY_POSSESSIVE.sub(" ", text)


def _lower_same_length(text: str) -> str:
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)


@lru_cache(maxsize=65536)
def canonical(word: str) -> str:
    aliases = vocabulary().aliases
    word = word.strip("'./")
    word = aliases.get(word, word)
    if word.endswith("n't"):
        return "not"
    if any(ch.isdigit() for ch in word):
        return word
    stem = _stem(word)
    return aliases.get(stem, stem)


# Between clauses while folding them all at once: no compound spelling can match across it.
_SEPARATOR = ")\n.;\u0001;.\n("


def clauses(cleaned: str) -> list[Clause]:
    """Split cleaned text into clauses of content tokens."""
    low = _lower_same_length(cleaned)
    spans: list[tuple[int, int]] = []
    pieces: list[str] = []
    colons: list[bool] = []
    pos = 0
    for m in [*_CLAUSE.finditer(low), None]:
        end = m.start() if m else len(low)
        # A question mark stays with its clause: "a straggler?" is a hedge.
        pieces.append(low[pos:end] + (" ?" if m is not None and "?" in m.group() else ""))
        spans.append((pos, end))
        colons.append(m is not None and m.group().startswith(":"))
        pos = m.end() if m else len(low)
    folded = fold(_SEPARATOR.join(pieces)).split(_SEPARATOR)  # one pass of each pattern over the whole reply
    if len(folded) != len(pieces):  # a spelling swallowed a separator (cannot happen with the bundled ones)
        folded = [fold(p) for p in pieces]
    out: list[Clause] = []
    for piece, (start, end), colon in zip(folded, spans, colons, strict=True):
        if piece.endswith(" ?"):
            piece = piece[:-2] + "?"
        tokens = []
        position = 0
        last_end = 0
        for t in _TOKEN.finditer(piece):
            position += 1 + COMMA_GAP * piece.count(",", last_end, t.start())
            last_end = t.end()
            if t.group() not in STOPWORDS:
                tokens.append(Token(canonical(t.group()), t.start(), t.end(), position, t.group()))
        if tokens:
            out.append(Clause(piece, cleaned[start:end].strip(), tuple(tokens), colon))
    return out


_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(ms|msec|milliseconds?|µs|us|microseconds?|s|sec|seconds?|%|"
    r"percent|gb/s|tb/s|gbps|gb|mb|x|×|mhz|tflop/s|tflops|flop/b|kernels?)?(?![\w/])"
)


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float
    unit: str  # "ms", "us", "s", "%", "gb/s", "x", "" ...
    text: str


def quantities(text: str) -> list[Quantity]:
    out = []
    for m in _NUMBER.finditer(text):
        value = float(m.group(1).replace(",", ""))
        unit = (m.group(2) or "").lower()
        unit = {
            "msec": "ms",
            "millisecond": "ms",
            "milliseconds": "ms",
            "µs": "us",
            "microsecond": "us",
            "microseconds": "us",
            "sec": "s",
            "second": "s",
            "seconds": "s",
            "percent": "%",
            "×": "x",
            "gbps": "gb/s",
            "tflops": "tflop/s",
            "kernel": "kernels",
        }.get(unit, unit)
        out.append(Quantity(value, unit, m.group(0)))
    return out


def reset() -> None:
    """Forget what was loaded (see matcher.clear_caches)."""
    with _LOCK:
        _FOLDS.clear()
