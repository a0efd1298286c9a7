"""Which rows a picture shows, in which order, over which time window. Pure: no matplotlib here.

Each rank is drawn once (rank 0's streams lead the per-rank lanes of a multi-rank trace), rows with nothing in
the window are left out, stream rows are named by what runs on them, and step marks carry the same
ProfilerStep number as the NVTX row.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field
from itertools import compress
from operator import attrgetter

import numpy as np

from ..scenarios.model import Category, Event, Rank, Scenario, TrackKind
from ..scenarios.pipeline import is_pipeline
from .links import interconnect_row

MAX_RANK_LANES = 8
PROJECT_MIN_SHIFT = 0.02  # add the GPU-projected NVTX row when ranges move by > 2% of the window on the GPU


@dataclass(slots=True)
class Row:
    label: str
    group: str  # CPU, NVTX, CUDA API, GPU, GPU metrics, Requests, Serving
    kind: TrackKind
    rank: int
    track: str
    events: list[Event] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    unit: str = ""
    scale: float = 100.0  # full-row value of a counter (100 for %, link peak for GB/s)


@dataclass(slots=True)
class Layout:
    rows: list[Row]
    window: tuple[float, float]
    step_marks: list[tuple[float, str]]  # (time, label) of GPU step boundaries inside the window
    zoom: tuple[float, float] | None
    steps_in_window: float = 1.0  # how many steps the window spans, for per-step figures


def window_of(s: Scenario) -> tuple[float, float]:
    """The stretch worth drawing: whole steps, few enough that bars stay readable."""
    steps = s.trace.steps
    if s.trace.kind == "serving" or len(steps) < 4:
        return steps[0][0], steps[-1][1]
    if is_pipeline(s.trace):
        return steps[1]
    if s.trace.world_size > 1 or s.zoom is not None:
        return steps[1][0], steps[2][1]
    return steps[1][0], steps[3][1]


_START, _DUR = attrgetter("start"), attrgetter("dur")


def clip(events: list[Event], lo: float, hi: float) -> list[Event]:
    """The events overlapping [lo, hi), in their order (numpy mask: a track has thousands)."""
    n = len(events)
    starts = np.fromiter(map(_START, events), float, n)
    inside = (starts < hi) & (starts + np.fromiter(map(_DUR, events), float, n) > lo)
    return list(compress(events, inside.tolist()))


def lane_of(events: list[Event]) -> str:
    """What runs on a stream, by GPU time: 'NCCL', 'memcpy', 'compute', or two of them ('compute + memcpy')."""
    time: dict[Category, float] = {}
    for e in events:
        time[e.category] = time.get(e.category, 0.0) + max(e.dur, 1e-3)
    if not time:
        return "compute"
    name = {Category.NCCL: "NCCL", Category.MEMCPY: "memcpy"}
    ranked = sorted(time.items(), key=lambda kv: -kv[1])
    top = name.get(ranked[0][0], "compute")
    total = sum(time.values())
    for category, t in ranked[1:]:  # a stream that also runs a good share of another kind says so
        other = name.get(category, "compute")
        if other != top and t >= 0.2 * total:
            return f"{top} + {other}"
    return top


def _stream_label(name: str, lane: str) -> str:
    return name if lane in name or (lane == "NCCL" and "nccl" in name.lower()) else f"{name} ({lane})"


def _host_rows(rank: Rank, lo: float, hi: float) -> list[Row]:
    rows: list[Row] = []
    for kind, group in (
        (TrackKind.CPU_THREAD, "CPU"),
        (TrackKind.ANNOTATION, "NVTX"),
        (TrackKind.CUDA_API, "CUDA API"),
    ):
        for track in rank.tracks_of(kind):
            events = clip(track.events, lo, hi)
            if not events:
                continue  # an empty row says nothing
            if kind is TrackKind.ANNOTATION and any(e.category is Category.STEP for e in events):
                # Steps and the ranges nested in them would overprint: give each its own row.
                steps = [e for e in events if e.category is Category.STEP]
                ranges = [e for e in events if e.category is not Category.STEP]
                rows.append(Row(f"{track.name} steps", "NVTX", kind, rank.rank, track.name, steps))
                if ranges:
                    rows.append(Row(f"{track.name} ranges", "NVTX", kind, rank.rank, track.name, ranges))
                    projected = _projected(rank, ranges, lo, hi)
                    if projected is not None:
                        rows.append(Row(f"{track.name} on GPU", "NVTX", kind, rank.rank, track.name, projected))
                continue
            group_name = "Requests" if track.name == "requests" else group
            rows.append(Row(track.name, group_name, kind, rank.rank, track.name, events))
    return rows


def _launch_times(rank: Rank) -> dict[int, float]:
    return {e.correlation: e.start for t in rank.tracks_of(TrackKind.CUDA_API) for e in t.events if e.correlation}


def _projected(rank: Rank, ranges: list[Event], lo: float, hi: float) -> list[Event] | None:
    """NVTX ranges moved to where their kernels ran (as nsys's 'NVTX on GPU' projection): worth a row when the
    GPU runs well behind the CPU, which is when the CPU row misleads."""
    launch = _launch_times(rank)
    kernels = sorted(
        ((launch[k.correlation], k) for k in rank.kernels() if k.correlation in launch), key=lambda p: p[0]
    )
    keys = [p[0] for p in kernels]
    out: list[Event] = []
    shift = 0.0
    for r in ranges:
        a, b = bisect.bisect_left(keys, r.start), bisect.bisect_left(keys, r.end)
        if a >= b:
            continue
        ks = [p[1] for p in kernels[a:b]]
        start, end = min(k.start for k in ks), max(k.end for k in ks)
        out.append(Event(r.name, start, end - start, r.category))
        shift = max(shift, abs(start - r.start))
    out = clip(out, lo, hi)
    return out if out and shift > PROJECT_MIN_SHIFT * (hi - lo) else None


def _stream_rows(rank: Rank, lo: float, hi: float, prefix: str) -> list[Row]:
    found = [(t, clip(t.events, lo, hi)) for t in rank.tracks_of(TrackKind.GPU_STREAM)]
    lanes = [(t, events, lane_of(events)) for t, events in found if events]
    count = Counter(lane for _, _, lane in lanes)
    rows: list[Row] = []
    for track, events, lane in lanes:
        if prefix:
            # Two streams doing the same kind of work keep their stream id, so the labels stay distinct.
            label = f"{prefix} · {lane}" if count[lane] == 1 else f"{prefix} · {lane} · s{track.stream or track.name}"
        else:
            label = _stream_label(track.name, lane)
        rows.append(Row(label, "GPU", TrackKind.GPU_STREAM, rank.rank, track.name, events))
    return rows


def _counter_rows(s: Scenario, rank: Rank, lo: float, hi: float, multi: bool) -> list[Row]:
    rows: list[Row] = []
    metrics = "GPU metrics · rank 0" if multi else "GPU metrics"
    for track in rank.tracks_of(TrackKind.COUNTER):
        times, values = np.asarray(track.sample_times, float), np.asarray(track.sample_values, float)
        inside = (times >= lo) & (times < hi)
        if not inside.any():
            continue
        times, values = times[inside], values[inside]
        group = metrics if track.unit == "%" else "Serving"
        scale = 100.0 if track.unit == "%" else max(float(values.max()), 1e-9)
        rows.append(
            Row(
                track.name,
                group,
                TrackKind.COUNTER,
                rank.rank,
                track.name,
                times=times.tolist(),
                values=values.tolist(),
                unit=track.unit,
                scale=scale,
            )
        )
    if multi:
        link = interconnect_row(s, rank, lo, hi)
        if link is not None:
            bins, rates, label, peak = link
            rows.append(
                Row(
                    label,
                    metrics,
                    TrackKind.COUNTER,
                    rank.rank,
                    "interconnect",
                    times=bins,
                    values=rates,
                    unit="GB/s",
                    scale=peak,
                )
            )
    return rows


def _step_marks(s: Scenario, lo: float, hi: float, projected: bool) -> list[tuple[float, str]]:
    """GPU step boundaries, named by the ProfilerStep whose launches they run (the NVTX row's own name);
    marked (GPU) when the GPU runs far enough behind the CPU to have its own NVTX row."""
    if s.trace.kind == "serving":
        return []
    rank = s.trace.ranks[0]
    launch = _launch_times(rank)
    steps = sorted(
        (e for t in rank.tracks_of(TrackKind.ANNOTATION) for e in t.events if e.category is Category.STEP),
        key=lambda e: e.start,
    )
    starts = [e.start for e in steps]
    kernels = sorted(rank.kernels(), key=lambda k: k.start)
    kstarts = [k.start for k in kernels]
    marks: list[tuple[float, str]] = []
    suffix = " (GPU)" if projected else ""
    for i, (a, b) in enumerate(s.trace.steps):
        if not lo <= a <= hi:
            continue
        # The step whose launches most of this GPU step's kernels came from.
        votes: Counter[int] = Counter()
        for kernel in kernels[bisect.bisect_left(kstarts, a - 1.0) : bisect.bisect_left(kstarts, b - 1.0)]:
            at = launch.get(kernel.correlation)
            if at is not None:
                k = bisect.bisect_right(starts, at) - 1
                if k >= 0 and steps[k].end >= at:
                    votes[k] += 1
        label = f"step {s.trace.first_step_number + i}"
        if votes:
            label = steps[votes.most_common(1)[0][0]].name + suffix
        marks.append((a, label))
    return marks


def layout(s: Scenario) -> Layout:
    lo, hi = window_of(s)
    ranks = s.trace.ranks
    multi = len(ranks) > 1
    rows = _host_rows(ranks[0], lo, hi)
    if multi:
        # Compute, copy and NCCL lanes for each rank (stage), as HTA or an nsys multi-report shows; rank 0 first.
        noun = "stage" if is_pipeline(s.trace) else "rank"
        for rank in ranks[:MAX_RANK_LANES]:
            rows += _stream_rows(rank, lo, hi, f"{noun} {rank.rank}")
    else:
        rows += _stream_rows(ranks[0], lo, hi, "")
    rows += _counter_rows(s, ranks[0], lo, hi, multi)
    in_window = sum(max(0.0, min(b, hi) - max(a, lo)) / max(b - a, 1e-9) for a, b in s.trace.steps)
    marks = _step_marks(s, lo, hi, any(r.label.endswith(" on GPU") for r in rows))
    return Layout(rows, (lo, hi), marks, s.zoom, max(in_window, 1.0))
