"""Interval arithmetic on (start, end) lists: union, clipping, overlap. The ground truth is built on it."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

import numpy as np

Interval = tuple[float, float]


_NUMPY_FROM = 64  # below this many intervals the plain loop is faster than building arrays


def union(intervals: Iterable[Interval]) -> list[Interval]:
    """Merge overlapping or touching intervals; the result is sorted and disjoint."""
    items = intervals if isinstance(intervals, list) else list(intervals)
    if len(items) >= _NUMPY_FROM:
        arr = np.array(items, dtype=float).reshape(-1, 2)
        return union_arrays(arr[:, 0], arr[:, 1])
    merged: list[Interval] = []
    for start, end in sorted(items):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def union_arrays(starts: np.ndarray, ends: np.ndarray) -> list[Interval]:
    """`union` of intervals given as start and end arrays (no arithmetic: the same floats come back)."""
    s, e = union_bounds(starts, ends)
    return list(zip(s.tolist(), e.tolist(), strict=True))


def union_bounds(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`union_arrays` as (starts, ends) arrays."""
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    if not len(starts):
        return starts, ends
    order = np.argsort(starts, kind="stable")
    s = starts[order]
    reach = np.maximum.accumulate(ends[order])  # furthest end so far: the end of the run being merged
    first = np.flatnonzero(np.concatenate(([True], s[1:] > reach[:-1])))  # touching (==) still merges
    last = np.concatenate((first[1:] - 1, [len(s) - 1]))
    return s[first], reach[last]


def total(intervals: Iterable[Interval]) -> float:
    return sum(end - start for start, end in intervals)


def clip(intervals: list[Interval], lo: float, hi: float) -> list[Interval]:
    """The parts of a sorted, disjoint interval list (as `union` returns) inside [lo, hi)."""
    first = bisect_right(intervals, (lo, float("inf"))) - 1
    out = []
    for start, end in intervals[max(first, 0) :]:
        if start >= hi:
            break
        s, e = max(start, lo), min(end, hi)
        if e > s:
            out.append((s, e))
    return out


def intersect(a: list[Interval], b: list[Interval]) -> list[Interval]:
    """Intersection of two disjoint sorted interval lists."""
    out: list[Interval] = []
    i = j = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if e > s:
            out.append((s, e))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def gaps(intervals: list[Interval], lo: float, hi: float) -> list[Interval]:
    """The parts of [lo, hi) that a disjoint sorted interval list does not cover."""
    out: list[Interval] = []
    cursor = lo
    for start, end in intervals:
        if start > cursor:
            out.append((cursor, min(start, hi)))
        cursor = max(cursor, end)
        if cursor >= hi:
            break
    if cursor < hi:
        out.append((cursor, hi))
    return [(s, e) for s, e in out if e > s]


# -- the same operations on (starts, ends) arrays of sorted, disjoint intervals: the same floats, found with
# searchsorted instead of a Python loop over tens of thousands of kernels.
Bounds = tuple[np.ndarray, np.ndarray]


def clip_bounds(b: Bounds, lo: float, hi: float) -> Bounds:
    """`clip` on arrays."""
    starts, ends = b
    first = max(int(np.searchsorted(starts, lo, side="right")) - 1, 0)
    stop = int(np.searchsorted(starts, hi, side="left"))
    s, e = np.maximum(starts[first:stop], lo), np.minimum(ends[first:stop], hi)
    keep = e > s
    return s[keep], e[keep]


def intersect_bounds(a: Bounds, b: Bounds) -> Bounds:
    """`intersect` on arrays: for each interval of `a`, the pieces of the intervals of `b` it overlaps."""
    (a_s, a_e), (b_s, b_e) = a, b
    first = np.searchsorted(b_e, a_s, side="right")  # the first b ending after a starts
    stop = np.searchsorted(b_s, a_e, side="left")  # the first b starting at or after a ends
    counts = np.maximum(stop - first, 0)
    which_a = np.repeat(np.arange(len(a_s)), counts)
    which_b = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(first, counts)
    s, e = np.maximum(b_s[which_b], a_s[which_a]), np.minimum(b_e[which_b], a_e[which_a])
    keep = e > s
    return s[keep], e[keep]


def union_of(*parts: Bounds) -> Bounds:
    """`union` of several interval arrays."""
    return union_bounds(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))


def total_bounds(b: Bounds) -> float:
    """`total` on arrays: Python's sum over the lengths in order, so the float is the same."""
    lengths: list[float] = (b[1] - b[0]).tolist()
    return sum(lengths)
