"""The numbers bonus: figures a reply quotes that match this trace's own, or arithmetic that is consistent."""

from __future__ import annotations

from .rubric import QuantityCheck
from .text import Quantity

NUMBER_BONUS = 0.05  # per stated figure within tolerance of this scenario's own, at most two
CONSISTENT_ARITHMETIC_BONUS = 0.05

_UNIT_SCALE = {
    ("ms", "ms"): 1.0,
    ("s", "ms"): 1000.0,
    ("us", "ms"): 0.001,
    ("us", "us"): 1.0,
    ("ms", "us"): 1000.0,
    ("%", "%"): 1.0,
    ("gb/s", "gb/s"): 1.0,
    ("x", "x"): 1.0,
    ("", ""): 1.0,
}


def number_bonus(
    stated: list[Quantity], figures: dict[str, float], checks: list[QuantityCheck], notes: list[str]
) -> float:
    """The bonus for these stated numbers; appends a note for each figure matched."""
    matched: set[str] = set()
    for q in stated:  # each stated number counts once, for the figure it is closest to
        figure = _closest_figure(q, figures, checks, matched)
        if figure is not None:
            matched.add(figure)
            notes.append(f"“{q.text.strip()}” matches this trace ({figure.replace('_', ' ')}).")
    bonus = NUMBER_BONUS * min(len(matched), 2)
    if not matched and _consistent_arithmetic(stated):
        bonus += CONSISTENT_ARITHMETIC_BONUS
        notes.append("Your numbers are internally consistent.")
    return bonus


def _closest_figure(
    q: Quantity, figures: dict[str, float], checks: list[QuantityCheck], matched: set[str]
) -> str | None:
    """The not yet matched figure this number is within tolerance of, the closest one."""
    best: tuple[float, str] | None = None
    for check in checks:
        truth = figures.get(check.figure)
        scale = _UNIT_SCALE.get((q.unit, check.unit))
        if truth is None or scale is None or truth == 0 or check.figure in matched:
            continue
        error = abs(q.value * scale - truth) / abs(truth)
        if error <= check.tolerance and (best is None or error < best[0]):
            best = (error, check.figure)
    return None if best is None else best[1]


def _consistent_arithmetic(stated: list[Quantity]) -> bool:
    """A part, a whole and the percentage between them that agree (e.g. 175 ms of 620 ms = 28%)."""
    times = [q.value for q in stated if q.unit == "ms"]
    percents = [q.value for q in stated if q.unit == "%"]
    return any(abs(100.0 * a / b - p) <= 2.0 for a in times for b in times if b > a > 0 for p in percents)
