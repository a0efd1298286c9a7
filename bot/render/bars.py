"""Bars of a timeline row: clipped to the window, separated where they touch, merged where they blur, and filled
as one compound path per colour (the fast path)."""

from __future__ import annotations

from operator import attrgetter

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import PathPatch
from matplotlib.path import Path

from .rows import Row

SEPARATOR_PX = 1.3  # gap cut between touching bars
COUNTABLE_PX = 3.0  # bars narrower than this are not separated (there would be nothing left to see)

_START, _DUR = attrgetter("start"), attrgetter("dur")


def extents(row: Row, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """Each event's start and end in ms from `lo`, clipped to the window (numpy, no per-event Python)."""
    n = len(row.events)
    starts = np.fromiter(map(_START, row.events), float, n)
    ends = starts + np.fromiter(map(_DUR, row.events), float, n)
    return (np.maximum(starts, lo) - lo) / 1000, (np.minimum(ends, hi) - lo) / 1000


def boxes(
    starts: np.ndarray, ends: np.ndarray, codes: np.ndarray, px_per_ms: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bars (start, end in ms, colour code) to fill, from events that are not instants: separators cut between
    touching bars wide enough to count, then runs of same-colour bars closer than a pixel merged into one
    (thousands of sub-pixel kernels would otherwise be thousands of rectangles Agg fills to the same pixels)."""
    order = np.argsort(starts, kind="stable")
    s, t, c = starts[order], ends[order].copy(), codes[order]
    wide = (t - s) * px_per_ms >= COUNTABLE_PX
    if len(s) > 1:
        gap_px = (s[1:] - t[:-1]) * px_per_ms
        touching = (gap_px > -1.0) & (gap_px < SEPARATOR_PX)  # back to back, not nested (a range inside another)
        cut = touching & wide[:-1] & wide[1:]
        t[:-1] = np.where(cut, np.minimum(t[:-1], s[1:] - SEPARATOR_PX / px_per_ms), t[:-1])
    # Merge runs of one colour: time-order neighbours of the same colour less than a pixel apart, unless both
    # are wide enough to count (those keep the separator cut above); overlapping ones always (a nested range
    # adds nothing). A bar of another colour between them keeps them apart, so interleaved kinds still show.
    if len(s) > 1:
        gap_px = (s[1:] - t[:-1]) * px_per_ms
        join = (c[1:] == c[:-1]) & (gap_px < 1.0) & (~(wide[1:] & wide[:-1]) | (gap_px <= -1.0))
        first = np.flatnonzero(np.concatenate(([True], ~join)))
        s, c = s[first], c[first]
        t = np.maximum.reduceat(t, first)
    # Sub-pixel bars still need a pixel to be seen: widen them to ~0.7 px.
    return s, np.maximum(t, s + 0.7 / px_per_ms), c


def add_bars(ax: Axes, quads: np.ndarray, codes: np.ndarray, names: list[str]) -> None:
    """One compound path per colour: Agg fills thousands of rectangles from a single path much faster than
    a collection builds a Path object for each."""
    for code, color in enumerate(names):
        rects = quads[codes == code]
        if not len(rects):
            continue
        verts = np.concatenate([rects, rects[:, :1]], axis=1).reshape(-1, 2)
        ops = np.full(len(rects) * 5, Path.LINETO, dtype=np.uint8)
        ops[::5] = Path.MOVETO
        ops[4::5] = Path.CLOSEPOLY
        path = Path(verts, ops)
        path.should_simplify = False  # simplification would merge touching rectangles and lose the separators
        patch = PathPatch(
            path, facecolor=color, edgecolor="none", linewidth=0, antialiased=False, zorder=1, transform=ax.transData
        )
        ax.add_artist(patch)  # not add_patch: its data-limit update walks every vertex in Python
