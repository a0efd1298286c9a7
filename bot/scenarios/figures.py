"""Ground truth computed from the generated events: what a careful reader would measure."""

from __future__ import annotations

import statistics
from bisect import bisect_left
from operator import attrgetter

import numpy as np

from .intervals import Interval, clip, gaps, intersect, total, union, union_arrays
from .model import Category, Event, Rank, Trace, TrackKind
from .sim import COMPUTE_STREAM

_START, _DUR = attrgetter("start"), attrgetter("dur")


def _intervals(events: list[Event]) -> list[Interval]:
    n = len(events)
    starts = np.fromiter(map(_START, events), float, n)
    return union_arrays(starts, starts + np.fromiter(map(_DUR, events), float, n))


def rank_kernels(rank: Rank) -> tuple[list[Event], list[Event], list[Event]]:
    """(compute kernels, NCCL kernels, copies) of one rank."""
    compute: list[Event] = []
    nccl: list[Event] = []
    copies: list[Event] = []
    for track in rank.tracks_of(TrackKind.GPU_STREAM):
        for e in track.events:
            if e.category is Category.NCCL:
                nccl.append(e)
            elif e.category is Category.MEMCPY:
                copies.append(e)
            else:
                compute.append(e)
    return compute, nccl, copies


class RankActivity:
    """A rank's GPU activity as merged intervals, computed once and clipped per step."""

    def __init__(self, rank: Rank) -> None:
        compute, nccl, copies = rank_kernels(rank)
        self.compute_events = sorted(compute, key=lambda e: e.start)
        self.compute_starts = [e.start for e in self.compute_events]
        self.nccl_starts = sorted(e.start for e in nccl)
        self.comp = _intervals(compute)
        self.comm = _intervals(nccl)
        self.copy = _intervals(copies)

    def step(self, window: Interval) -> dict[str, float]:
        """Split one step window into compute, exposed comm, exposed copies and idle; they sum to the step."""
        lo, hi = window
        comp = clip(self.comp, lo, hi)
        comm = clip(self.comm, lo, hi)
        copy = clip(self.copy, lo, hi)
        comm_exposed = total(comm) - total(intersect(comm, comp))
        busy_any = union([*comp, *comm, *copy])
        copy_exposed = total(busy_any) - total(union([*comp, *comm]))
        i, j = bisect_left(self.compute_starts, lo), bisect_left(self.compute_starts, hi)
        return {
            "step_us": hi - lo,
            "compute_us": total(comp),
            "comm_us": total(comm),
            "comm_exposed_us": comm_exposed,
            "copy_exposed_us": copy_exposed,
            "idle_us": (hi - lo) - total(busy_any),
            "kernels": float(j - i),
            "kernel_sum_us": sum(e.dur for e in self.compute_events[i:j]),
            "collectives": float(bisect_left(self.nccl_starts, hi) - bisect_left(self.nccl_starts, lo)),
        }


def step_breakdown(rank: Rank, window: Interval) -> dict[str, float]:
    return RankActivity(rank).step(window)


def mean_breakdown(rank: Rank, windows: list[Interval]) -> dict[str, float]:
    activity = RankActivity(rank)
    rows = [activity.step(w) for w in windows]
    return {k: statistics.fmean(r[k] for r in rows) for k in rows[0]}


def hta_view(rank: Rank | RankActivity, steps_kept: int, windows: list[Interval]) -> dict[str, float]:
    """Idle and overlap over the span HTA analyses: first kernel to the end of the last kept step.

    HTA drops the last ProfilerStep; the span starts at the first kernel (the lead-in).
    """
    activity = rank if isinstance(rank, RankActivity) else RankActivity(rank)
    hi = windows[steps_kept - 1][1]
    every = union([*activity.comp, *activity.comm, *activity.copy])
    lo = every[0][0]
    busy = clip(every, lo, hi)
    comp = clip(activity.comp, lo, hi)
    comm = clip(activity.comm, lo, hi)
    overlap = total(intersect(comm, comp))
    return {
        "idle_pct": 100.0 * (1.0 - total(busy) / (hi - lo)),
        "overlap_pct": 100.0 * overlap / total(comm) if comm else 0.0,
    }


def gpu_gaps(rank: Rank, window: Interval, min_us: float = 0.0) -> list[Interval]:
    """Idle stretches of the whole GPU (all streams) inside a window."""
    compute, nccl, copies = rank_kernels(rank)
    busy = clip(_intervals([*compute, *nccl, *copies]), *window)
    return [g for g in gaps(busy, *window) if g[1] - g[0] >= min_us]


def compute_stream_gaps(rank: Rank, window: Interval) -> list[Interval]:
    stream = next(t for t in rank.tracks_of(TrackKind.GPU_STREAM) if t.stream == COMPUTE_STREAM)
    busy = clip(_intervals(stream.events), *window)
    return gaps(busy, *window)


def top_kernels(rank: Rank, windows: list[Interval], n: int = 5) -> list[tuple[str, float, float]]:
    """(name, total µs per step, share of kernel time) of the kernels that dominate, most first."""
    lo, hi = windows[0][0], windows[-1][1]
    sums: dict[str, float] = {}
    for track in rank.tracks_of(TrackKind.GPU_STREAM):
        for e in track.events:
            if lo <= e.start < hi and e.category is Category.COMPUTE:
                sums[e.name] = sums.get(e.name, 0.0) + e.dur
    grand = sum(sums.values()) or 1.0
    ranked = sorted(sums.items(), key=lambda kv: -kv[1])[:n]
    return [(name, s / len(windows), s / grand) for name, s in ranked]


def api_calls_per_step(rank: Rank, windows: list[Interval], category: Category) -> float:
    lo, hi = windows[0][0], windows[-1][1]
    api = rank.track("CUDA API")
    return sum(1 for e in api.events if e.category is category and lo <= e.start < hi) / len(windows)


def trace_windows(trace: Trace) -> list[Interval]:
    return trace.steps
