"""Pipeline stages compared: how many micro-batches a step runs (from the NVTX ranges) and how long each stage
takes over the same kernels (a throttled GPU runs them longer; a stage holding more layers runs more of them)."""

from __future__ import annotations

import statistics

from ..scenarios.model import Category, Rank, TrackKind
from .model import Reading


def micro_batches_per_step(rank: Rank) -> float:
    """Forward NVTX ranges per ProfilerStep (one per micro-batch under a pipeline schedule, or per step when a
    loop marks only its phases); 0 when the trace has no such ranges."""
    ranges = [e for t in rank.tracks_of(TrackKind.ANNOTATION) for e in t.events]
    steps = [e for e in ranges if e.category is Category.STEP]
    if not steps:
        return 0.0
    lo, hi = min(e.start for e in steps), max(e.end for e in steps)
    forwards = sum(
        1 for e in ranges if e.category is Category.RANGE and e.name.startswith("forward") and lo <= e.start < hi
    )
    return forwards / len(steps)


def _medians(rank: Rank, windows: list[tuple[float, float]]) -> dict[str, float]:
    lo, hi = windows[0][0], windows[-1][1]
    durations: dict[str, list[float]] = {}
    for track in rank.tracks_of(TrackKind.GPU_STREAM):
        for e in track.events:
            if e.category is Category.COMPUTE and lo <= e.start < hi:
                durations.setdefault(e.name, []).append(e.dur)
    return {name: statistics.median(ds) for name, ds in durations.items()}


def kernel_time_ratios(r: Reading) -> list[float]:
    """Per rank, how long it takes over the kernels every rank runs, relative to the ranks' median: the median over
    kernel names of (this rank's median duration / the median of the ranks' medians). 1.0 everywhere when every
    stage's GPU runs at the same speed, whatever each stage's share of the layers."""
    models = {m.rank: m for m in r.model_ranks}
    medians = [_medians(models[x.rank], x.steps) for x in r.ranks]
    common = set.intersection(*(set(m) for m in medians)) if medians else set()
    if not common:
        return [1.0] * len(r.ranks)
    reference = {name: statistics.median(m[name] for m in medians) for name in common}
    return [statistics.median(m[name] / reference[name] for name in common) for m in medians]
