"""Turning a chat reply into clauses of canonical tokens, keeping where each token came from."""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import snowballstemmer

from .compounds import fold
from .vocabulary import vocabulary
from .wordgate import needed_words, words

# snowballstemmer's stemmers keep per-call state in the instance: one per thread, never shared.
_LOCAL = threading.local()


def _stem(word: str) -> str:
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        stemmer = _LOCAL.stemmer = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word))


COMMA_GAP = 5

STOPWORDS = frozenset(
    """
    a an the is are was were be been being of to in on at for
    it its it's this that these those there and with by as from into i i'd
    i'm we our you your so just very also then which who what has have had
    do does did would will can could should my me us they them their
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

# Intensifiers carry no concept and do not stretch a rule's window: "one GPU, rank 23, is just consistently slower"
# reads as close as "one GPU is slower".
FILLERS = frozenset(
    """
    just really consistently always clearly visibly noticeably significantly slightly basically literally simply
    actually still quite pretty totally super fairly somewhat
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

_CONTROL = re.compile(r"[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f]")
_DUNDER = re.compile(r"__([a-z]+)__")
_ARROW = re.compile(r"\s*(?:-+>|=+>|⇒|⟹|⟶|↦)\s*")  # every arrow is "→"
_ARROW_CHARS = ">⇒⟹⟶↦"
# A setting changed from one number to another ("micro-batch 1 → 4", "num_workers 4 -> 12", "mbs 4->1") is raised or
# lowered; a duration or a size after the new value ("kernel time 7 → 3.5 ms") is a prediction, not a setting.
_SETTING_STEP = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*→\s*~?(\d+(?:\.\d+)?)(?![\w.%/×]|\s*(?:ms|µs|us|s|sec|gb|mb|tb|x|×|%)\b)"
)
# … and so is a diff's removed and added line of one setting ("-eval_batch_size: 4" then "+eval_batch_size: 64"); any
# other new value is the setting changed ("+layers_per_stage = [9, 9, 9, 5]", "+#SBATCH --nodelist=gpu[01-02,04-05]")
_DIFF_SETTING = re.compile(
    r"^([ \t]*)-[ \t]*([^\n:=+-][^\n:=]{0,60}?)[ \t]*([:=])[ \t]*([^\n]*?)[ \t]*\n"
    r"[ \t]*\+[ \t]*\2[ \t]*[:=][ \t]*([^\n]*?)[ \t]*$",
    re.MULTILINE,
)
_NUMBER_ONLY = re.compile(r"\d+(?:\.\d+)?")
# the comma first, then the digit before it: the same matches, but sre jumps from comma to comma (10× faster)
_THOUSANDS = re.compile(r",(?<=\d,)(?=\d{3}\b)")
_UNKNOWN_STEP = re.compile(r"(?:→|:)[ \t]*\?+(?=\s*$|\s*\n)|→\s*\?+", re.MULTILINE)
# "comb of µs kernels → launch total ≈ wall time → CUDA graphs": a chain of statements, one clause each; but
# "if X → do A" stays one clause (the condition holds the fix).
_CHAIN = re.compile(r"\s→\s")
_CONDITIONAL = re.compile(r"\b(?:if|when|unless|whether)\b")
# Where a run-on's next statement starts: a speaker's "I'd …", "then …", "so it's …".
_RUN_ON_TURN = re.compile(r"\s(?=(?:i'?d|i would|i'?ll|i'?m going to|then|and then|so (?:it'?s|i'?d|the|that'?s))\s)")
RUN_ON_CHARS = 150  # a span this long with no punctuation is a run-on
RUN_ON_MIN_CHARS = 25  # … and a statement in it is at least this long
_FENCE = re.compile(r"```[a-zA-Z0-9_+-]*")
_MARKDOWN = re.compile(r"[*`>#~|]+|(?<!\w)_+|_+(?!\w)")
_MARKDOWN_CHARS = "*`>#~|_"
_SPACE_RUN = re.compile(r"(?<=\w)[ \t]{2,}(?=\w)")
_SAID_QUESTION_MARK = re.compile(r"\s*\bquestion mark\b", re.IGNORECASE)
_MENTION = re.compile(r"<[@#!][^>]{0,80}>")
_TOKEN = re.compile(r"\d+(?:\.\d+)+|[a-z0-9][a-z0-9']*[a-z0-9]|[a-z0-9]")  # "1.9" is one number
# Clause boundaries: sentence punctuation, dashes, and the turns where one claim ends and another begins. A dash
# between two numbers is a minus ("560 - 402 = 158"): the arithmetic stays one clause.
_CLAUSE = re.compile(
    r"[.;!?\n]+(?:\s|$)|\n+|:\s|\s—+\s|(?<![\d)])(?<!\dms)\s[-–]+\s|\s[-–]+\s(?![~≈(]?\d)|\s+(?:but|however|although|though|whereas|instead(?!\s+of)|actually|rather(?!\s+than))\s+"
    r"|,\s*(?=(?:it'?s|it is|its|this is|that'?s|that is|the real|the actual|so)\b)"
)


class Token(NamedTuple):  # a tuple, not a dataclass: a reply makes dozens, and a tuple is made fastest
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
    stop: bool = True  # ends a sentence (not a comma turn or a dash): a list a colon opened ends here


_NT = re.compile("nt", re.IGNORECASE)  # what every bare contraction holds
_BARE_CONTRACTION = re.compile(
    r"\b(is|are|was|were|does|do|did|has|have|had|could|should|would|wo|ca)nt\b", re.IGNORECASE
)
_BARE_WORDS = needed_words(_BARE_CONTRACTION.pattern)  # "isnt", "dont", …: each match is one of these words, any case


def _bare_contraction(text: str) -> bool:
    """Whether the text may hold a bare contraction: one set test on an ASCII text, not a case-blind scan."""
    return _BARE_WORDS is None or not text.isascii() or not words(text.lower()).isdisjoint(_BARE_WORDS)


def clean(raw: str) -> str:
    """NFKC, no control characters, no mentions, no markdown decoration; case kept for quoting.

    The slower patterns run only on a text holding a character they need (most replies hold none)."""
    text = unicodedata.normalize("NFKC", raw)
    if _NT.search(text) and _bare_contraction(text):
        text = _BARE_CONTRACTION.sub(r"\1n't", text)  # "isnt overlapping" is a negation typed without the apostrophe
    if "question mark" in text.lower():
        text = _SAID_QUESTION_MARK.sub("?", text)  # dictation writes out the punctuation it hears
    if "  " in text:
        text = _SPACE_RUN.sub("\n ", text)  # chat lines pasted without their line breaks: a run of spaces ends a line
    text = _CONTROL.sub(" ", text)
    text = _MENTION.sub(" ", text)
    text = _DUNDER.sub(r"dunder\1", text)  # __next__ is code, not markdown emphasis
    if any(ch in text for ch in _ARROW_CHARS):
        text = _ARROW.sub(" → ", text)  # ">" is not a quote marker
    if "→" in text:
        text = _SETTING_STEP.sub(_stepped, text)
    if "\n+" in text:
        text = _DIFF_SETTING.sub(_diffed, text)
    if "∴" in text:
        text = text.replace("∴", " so ")  # "∴ AR on rank 0 ≈ waiting": a conclusion
    if "?" in text and ("→" in text or ":" in text):
        text = _UNKNOWN_STEP.sub(" unknown", text)  # "fix: ?", "slow rank → ? → drain it": a blank
    text = _FENCE.sub(" ", text)
    if any(ch in text for ch in _MARKDOWN_CHARS):
        text = _MARKDOWN.sub(" ", text)
    return text.replace("’", "'").replace("‘", "'")


def _change(old: str, new: str) -> str:
    before, after = float(old), float(new)
    return "raised to" if after > before else "lowered to" if after < before else "kept at"


def _stepped(m: re.Match[str]) -> str:
    return f"{m.group(1)} {_change(m.group(1), m.group(2))} {m.group(2)}"


def _diffed(m: re.Match[str]) -> str:
    indent, key, sep, old, new = m.groups()
    if old == new:
        return m.group()
    numbers = bool(_NUMBER_ONLY.fullmatch(old) and _NUMBER_ONLY.fullmatch(new))
    change = _change(old, new) if numbers else "changed to"
    # the key in words, so its spellings fold as prose does ("layers_per_stage" → "layers per stage"); one clause: a
    # ": " would end it
    return f"{indent}-{key}{sep} {old}\n+{key.replace('_', ' ')} {change} {new}"


def _unaccented() -> dict[int, str]:
    """Latin letters with an accent → the plain letter, one character each ("quítalo" → "quitalo", "más" → "mas")."""
    table = {}
    for code in range(0xC0, 0x250):
        base = unicodedata.normalize("NFKD", chr(code))[0]
        if base.isascii() and base.isalpha() and base != chr(code):
            table[code] = base
    return table


_UNACCENTED = _unaccented()
_ACCENTED = re.compile("[\u00c0-\u024f]")  # most non-ASCII replies hold only dashes, arrows and emoji


def _lower_same_length(text: str) -> str:
    low = text.lower()
    if len(low) != len(text):
        low = "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)
    return low.translate(_UNACCENTED) if not low.isascii() and _ACCENTED.search(low) else low


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
    stops: list[bool] = []
    pos = 0
    for m in [*_CLAUSE.finditer(low), None]:
        end = m.start() if m else len(low)
        for a, b in _links(low, pos, end):
            # A question mark stays with its clause: "a straggler?" is a hedge.
            last = b == end
            pieces.append(low[a:b] + (" ?" if last and m is not None and "?" in m.group() else ""))
            spans.append((a, b))
            colons.append(last and m is not None and m.group().startswith(":"))
            stops.append(not last or m is None or m.group()[0] in ".;!?\n")
        pos = m.end() if m else len(low)
    joined = fold(_SEPARATOR.join(pieces))  # one pass of each pattern over the whole reply
    if "," in joined:
        joined = _THOUSANDS.sub("", joined)  # "5,212 kernels" is one number, not two items of a list
    folded = joined.split(_SEPARATOR)
    if len(folded) != len(pieces):  # a spelling swallowed a separator (cannot happen with the bundled ones)
        folded = [fold(p) for p in pieces]
    out: list[Clause] = []
    for piece, (start, end), colon, stop in zip(folded, spans, colons, stops, strict=True):
        if piece.endswith(" ?"):
            piece = piece[:-2] + "?"
        tokens = _tokens(piece)
        if tokens:
            out.append(Clause(piece, cleaned[start:end].strip(), tokens, colon, stop))
    return out


def _links(low: str, start: int, end: int) -> list[tuple[int, int]]:
    """The links of an arrow chain in low[start:end], the statements of a run-on, or the whole span (no chain, or a
    conditional one)."""
    if "→" not in low[start:end]:
        return _statements(low, start, end) if end - start > RUN_ON_CHARS else [(start, end)]
    if _CONDITIONAL.search(low, start, end):
        return [(start, end)]
    out, pos = [], start
    for m in _CHAIN.finditer(low, start, end):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, end))
    return out


def _statements(low: str, start: int, end: int) -> list[tuple[int, int]]:
    """Dictated or breathless text runs its statements together with no punctuation ("… streaming weights from hbm
    I'd run ncu … then batch more"): a long span breaks where a speaker starts the next one ("I'd", "then", "so
    it's"), except inside a condition, whose consequence stays with it ("if it's the loader I'd add workers")."""
    out, pos = [], start
    for m in _RUN_ON_TURN.finditer(low, start, end):
        if m.start() - pos >= RUN_ON_MIN_CHARS and not _CONDITIONAL.search(low, pos, m.start()):
            out.append((pos, m.start()))
            pos = m.end()
    out.append((pos, end))
    return out


_new_token = tuple.__new__  # Token(...) goes through a Python-level __new__: 3× slower, and a reply makes dozens


def _tokens(piece: str) -> tuple[Token, ...]:
    """The content words of one folded clause, canonical, with where they sit."""
    tokens = []
    commas = "," in piece
    position = 0
    last_end = 0
    for m in _TOKEN.finditer(piece):
        start, end = m.span()
        word = m.group()
        if word in FILLERS:
            continue
        position += 1 + COMMA_GAP * piece.count(",", last_end, start) if commas else 1
        last_end = end
        if word not in STOPWORDS:
            tokens.append(_new_token(Token, (canonical(word), start, end, position, word)))
    return tuple(tokens)


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
