"""Ground truth computed from the generated events: what a careful reader would measure."""

from __future__ import annotations

import statistics
from operator import attrgetter

import numpy as np

from .intervals import (
    Bounds,
    Interval,
    clip,
    clip_bounds,
    gaps,
    intersect_bounds,
    total_bounds,
    union_arrays,
    union_bounds,
    union_of,
)
from .model import Category, Event, Rank, Trace, TrackKind
from .sim import COMPUTE_STREAM

_START, _DUR, _CATEGORY = attrgetter("start"), attrgetter("dur"), attrgetter("category")


def _intervals(events: list[Event]) -> list[Interval]:
    n = len(events)
    starts = np.fromiter(map(_START, events), float, n)
    return union_arrays(starts, starts + np.fromiter(map(_DUR, events), float, n))


def _bounds(events: list[Event]) -> Bounds:
    """`_intervals` as (starts, ends) arrays."""
    n = len(events)
    starts = np.fromiter(map(_START, events), float, n)
    return union_bounds(starts, starts + np.fromiter(map(_DUR, events), float, n))


def rank_kernels(rank: Rank) -> tuple[list[Event], list[Event], list[Event]]:
    """(compute kernels, NCCL kernels, copies) of one rank."""
    compute: list[Event] = []
    nccl: list[Event] = []
    copies: list[Event] = []
    for track in rank.tracks_of(TrackKind.GPU_STREAM):
        kinds = set(map(_CATEGORY, track.events))
        if len(kinds) == 1:  # a stream usually runs one category: take its events whole, in order
            (only,) = kinds
            (nccl if only is Category.NCCL else copies if only is Category.MEMCPY else compute).extend(track.events)
            continue
        for e in track.events:
            if e.category is Category.NCCL:
                nccl.append(e)
            elif e.category is Category.MEMCPY:
                copies.append(e)
            else:
                compute.append(e)
    return compute, nccl, copies


class RankActivity:
    """A rank's GPU activity as merged intervals, computed once and clipped per step.

    Intervals are kept as (starts, ends) arrays: a rank holds tens of thousands of kernels and every figure
    clips them per step. The arithmetic is the interval functions' own, so the floats are the same."""

    def __init__(self, rank: Rank) -> None:
        compute, nccl, copies = rank_kernels(rank)
        n = len(compute)
        starts = np.fromiter(map(_START, compute), float, n)
        durs = np.fromiter(map(_DUR, compute), float, n)
        order = np.argsort(starts, kind="stable")  # as sorted(key=start): ties keep their order
        self.compute_starts = starts[order]
        self._compute_durs = durs[order].tolist()
        nccl_starts = np.fromiter(map(_START, nccl), float, len(nccl))
        self.nccl_starts = np.sort(nccl_starts)
        self.comp_bounds = union_bounds(starts, starts + durs)  # _bounds(compute), from the arrays read above
        self.comm_bounds = union_bounds(nccl_starts, nccl_starts + np.fromiter(map(_DUR, nccl), float, len(nccl)))
        self.copy_bounds = _bounds(copies)

    @property
    def comp(self) -> list[Interval]:
        return _as_list(self.comp_bounds)

    @property
    def comm(self) -> list[Interval]:
        return _as_list(self.comm_bounds)

    @property
    def copy(self) -> list[Interval]:
        return _as_list(self.copy_bounds)

    def step(self, window: Interval) -> dict[str, float]:
        """Split one step window into compute, exposed comm, exposed copies and idle; they sum to the step."""
        lo, hi = window
        comp = clip_bounds(self.comp_bounds, lo, hi)
        comm = clip_bounds(self.comm_bounds, lo, hi)
        copy = clip_bounds(self.copy_bounds, lo, hi)
        comm_exposed = total_bounds(comm) - total_bounds(intersect_bounds(comm, comp))
        busy_any = total_bounds(union_of(comp, comm, copy))
        copy_exposed = busy_any - total_bounds(union_of(comp, comm))
        i, j = np.searchsorted(self.compute_starts, (lo, hi), side="left").tolist()
        nccl_i, nccl_j = np.searchsorted(self.nccl_starts, (lo, hi), side="left").tolist()
        return {
            "step_us": hi - lo,
            "compute_us": total_bounds(comp),
            "comm_us": total_bounds(comm),
            "comm_exposed_us": comm_exposed,
            "copy_exposed_us": copy_exposed,
            "idle_us": (hi - lo) - busy_any,
            "kernels": float(j - i),
            "kernel_sum_us": sum(self._compute_durs[i:j]),
            "collectives": float(nccl_j - nccl_i),
        }


def _as_list(b: Bounds) -> list[Interval]:
    return list(zip(b[0].tolist(), b[1].tolist(), strict=True))


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
    every = union_of(activity.comp_bounds, activity.comm_bounds, activity.copy_bounds)
    lo = float(every[0][0])
    busy = clip_bounds(every, lo, hi)
    comp = clip_bounds(activity.comp_bounds, lo, hi)
    comm = clip_bounds(activity.comm_bounds, lo, hi)
    overlap = total_bounds(intersect_bounds(comm, comp))
    return {
        "idle_pct": 100.0 * (1.0 - total_bounds(busy) / (hi - lo)),
        "overlap_pct": 100.0 * overlap / total_bounds(comm) if len(comm[0]) else 0.0,
    }


def gpu_gaps(rank: Rank, window: Interval, min_us: float = 0.0) -> list[Interval]:
    """Idle stretches of the whole GPU (all streams) inside a window."""
    return gpu_gaps_each(rank, [window], min_us)[0]


def gpu_gaps_each(rank: Rank, windows: list[Interval], min_us: float = 0.0) -> list[list[Interval]]:
    """`gpu_gaps` of each window, with the rank's kernels merged once."""
    compute, nccl, copies = rank_kernels(rank)
    busy = _intervals([*compute, *nccl, *copies])
    return [[g for g in gaps(clip(busy, *w), *w) if g[1] - g[0] >= min_us] for w in windows]


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
