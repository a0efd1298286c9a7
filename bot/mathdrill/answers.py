"""Reading a typed answer leniently ("~1.2e3", "1,200 GB/s", "45%", "128 KiB") and judging it in tolerance."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from .questions import Question

MAX_ANSWER_CHARS = 200  # an answer is one number; longer text is read on its first 200 characters

_NUMBER = re.compile(
    r"(?P<num>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:[.,]\d+)?(?:[eE][-+]?\d+)?|[-+]?[.,]\d+(?:[eE][-+]?\d+)?)"
    r"(?:\s*(?:[x×*·]\s*10\s*\^\s*(?P<pow>[-+]?\d+)))?"
    r"\s*(?P<rest>.*)",
    re.DOTALL,
)
_MAGNITUDE = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_BYTES = {
    "b": 1.0,
    "byte": 1.0,
    "bytes": 1.0,
    "kb": 1e3,
    "kib": 1024.0,
    "mb": 1e6,
    "mib": 2.0**20,
    "gb": 1e9,
    "gib": 2.0**30,
}
# Unit words understood for each answer unit, as multipliers into that unit.
_UNITS: dict[str, dict[str, float]] = {
    "bytes": _BYTES,
    "GB/s": {"gb/s": 1.0, "gbps": 1.0, "tb/s": 1e3, "mb/s": 1e-3, "gib/s": 2.0**30 / 1e9},
    "ms": {"ms": 1.0, "s": 1e3, "sec": 1e3, "us": 1e-3, "µs": 1e-3, "μs": 1e-3},
    "%": {"%": 1.0, "percent": 1.0},
    "FLOP/byte": {},
}
_UNIT_WORD = re.compile(r"^(?P<word>%|[A-Za-zµμ]+(?:/[A-Za-z]+)?)")


class UnreadableAnswer(ValueError):
    pass


def parse_answer(text: str, unit: str = "") -> float:
    """The number in `text`, in `unit` when the text names a convertible unit. Raises UnreadableAnswer."""
    raw = (text or "")[:MAX_ANSWER_CHARS].strip()
    if "=" in raw:  # "2·7/8·16e9/0.175 = 160" — the answer is what follows the last '='
        raw = raw.rsplit("=", 1)[1]
    raw = re.sub(r"^(?:~|≈|about|approx(?:imately)?\.?|roughly|around)\s*", "", raw.strip(), flags=re.IGNORECASE)
    m = _NUMBER.search(raw)
    if m is None:
        raise UnreadableAnswer(f"no number in {_clip(text)!r}; type a number like 1200, 1.2e3 or 45%")
    value = _number(m.group("num"))
    if m.group("pow"):
        value *= 10.0 ** int(m.group("pow"))
    rest = m.group("rest").strip()
    value *= _unit_factor(rest, unit)
    if not math.isfinite(value):
        raise UnreadableAnswer(f"{_clip(text)!r} is not a finite number")
    if unit == "%" and "%" not in rest and "percent" not in rest.lower() and 0 < abs(value) <= 1:
        value *= 100  # "0.45" for a percentage means 45%: no answer of ours is below 1%
    return value


def _number(token: str) -> float:
    if re.fullmatch(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:[eE][-+]?\d+)?", token):
        token = token.replace(",", "")  # thousands separators
    else:
        token = token.replace(",", ".")  # a decimal comma: "2,5"
    return float(token)


def _unit_factor(rest: str, unit: str) -> float:
    known = _UNITS.get(unit, {})
    w = _UNIT_WORD.match(rest)
    if w is None:
        return 1.0
    word = w.group("word")
    if word.lower() in known:
        return known[word.lower()]
    # A magnitude letter ("1.2k", "160 K", "1.2 KB" for bytes is caught above); then an optional unit.
    head = word[0]
    if head in _MAGNITUDE and (len(word) == 1 or word[1:].lower() in ("", *known) or word[1:] in ("B",)):
        tail = word[1:].lower()
        return _MAGNITUDE[head] * known.get(tail, 1.0) if tail else _MAGNITUDE[head]
    return 1.0  # an unknown word ("GB/s" said as "gigs") is ignored: the number counts


def _clip(text: str) -> str:
    text = text or ""
    return text if len(text) <= 40 else text[:39] + "…"


@dataclass(frozen=True, slots=True)
class CheckResult:
    correct: bool
    answer: float
    explanation: str
    value: float | None  # what was read from the reply

    def as_json(self) -> dict[str, Any]:
        """The shape `tracedrill math --check` prints (pinned by the issue)."""
        return {"correct": self.correct, "answer": self.answer, "explanation": self.explanation}


def within(value: float, answer: float, tolerance: float) -> bool:
    return abs(value - answer) <= tolerance * abs(answer)


def check(q: Question, text: str, tolerance: float | None = None) -> CheckResult:
    """Judge a reply. Raises UnreadableAnswer when there is no number in it."""
    tol = q.tolerance if tolerance is None else tolerance
    value = parse_answer(text, q.unit)
    ok = within(value, q.answer, tol)
    verdict = "Right" if ok else "Not quite"
    off = (value - q.answer) / q.answer if q.answer else 0.0
    head = (
        f"{verdict}: you said {_fmt(value)} {q.unit}, the answer is {_fmt(q.answer)} {q.unit} "
        f"({off:+.0%}; within ±{tol:.0%} counts)."
    )
    return CheckResult(ok, q.answer, f"{head} {q.explanation}", value)


def _fmt(x: float) -> str:
    return f"{x:,.4g}" if abs(x) < 1e6 else f"{x:.4g}"
