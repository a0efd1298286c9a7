"""GPU idle that a host synchronisation caused: a hole that opens while the host sits in a sync call that waited.

A sync that drains the queue leaves the GPU idle from the moment its last queued kernel ends until the host, done
with whatever Python follows, launches again — so the hole opens inside the sync bar. A sync that returns at once
(an event already complete, a host far behind the GPU) or that waits on an earlier iteration while the next one is
queued leaves no such hole, and a launch-bound picket fence's many small gaps do not count either.
"""

from __future__ import annotations

from bisect import bisect_right

from ..scenarios.intervals import Interval, clip, gaps, union
from ..scenarios.model import Category, Rank

MIN_HOLE_US = 50.0  # smaller gaps are the ordinary space between kernels
MIN_WAIT_US = 30.0  # a sync shorter than this did not wait for the GPU
EDGE_US = 1.0  # timestamps are rounded to the nanosecond on export


def idle_after_syncs(model: Rank, windows: list[Interval]) -> float:
    """Total GPU idle (µs, over all `windows`) in holes that open during a sync call that waited."""
    calls = sorted(
        (e.start, e.end) for e in model.track("CUDA API").events if e.category is Category.SYNC and e.dur >= MIN_WAIT_US
    )
    if not calls:
        return 0.0
    starts = [a for a, _ in calls]
    busy = union((e.start, e.end) for e in model.kernels())
    held = 0.0
    for lo, hi in windows:
        for a, b in gaps(clip(busy, lo, hi), lo, hi):
            if b - a < MIN_HOLE_US:
                continue
            i = bisect_right(starts, a + EDGE_US) - 1
            if i >= 0 and calls[i][1] + EDGE_US >= a:
                held += b - a
    return held
