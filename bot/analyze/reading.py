"""The reading order as an analysis: step boundary → gaps → overlap → top kernels, then the likeliest signature.

Figures are computed the same way the scenario engine computes its ground truth (RankActivity), plus HTA's own
definitions where the tests compare with HTA (whole-span idle and overlap over kernels launched before the last
ProfilerStep)."""

from __future__ import annotations

import statistics
from bisect import bisect_right

from ..scenarios.figures import RankActivity
from ..scenarios.intervals import Interval, clip, intersect, total, union
from ..scenarios.model import Category, Event, Rank, TrackKind
from .classify import classify
from .importer import RawRank, TraceFileError, to_rank
from .model import RankReading, Reading
from .syncs import idle_after_syncs

WARMUP_FACTOR = 1.5


def _step_windows(raw: RawRank) -> tuple[list[Interval], list[int]]:
    """GPU step windows: step k ends when the last GPU work launched inside ProfilerStep#k ends; it starts where
    step k−1 ended (the first starts at its own first kernel)."""
    steps = sorted((e for e in raw.annotations if e.category is Category.STEP), key=lambda e: e.start)
    if not steps:  # a profile without prof.step(): read the whole GPU span as one window, and say so
        return [(min(k.start for k in raw.kernels), max(k.end for k in raw.kernels))], [-1]
    starts = [s.start for s in steps]
    launch = {e.correlation: e.start for e in raw.runtime if e.correlation}
    first: dict[int, float] = {}
    last: dict[int, float] = {}
    for k in raw.kernels:
        t = launch.get(k.correlation, k.start)
        i = bisect_right(starts, t) - 1
        if i < 0 or t > steps[i].end:
            continue
        first[i] = min(first.get(i, k.start), k.start)
        last[i] = max(last.get(i, k.end), k.end)
    windows: list[Interval] = []
    numbers: list[int] = []
    prev_end: float | None = None
    for i in sorted(last):
        lo = first[i] if prev_end is None else prev_end
        if last[i] > lo:
            windows.append((lo, last[i]))
            numbers.append(_step_number(steps[i].name, i))
        prev_end = last[i]
    if not windows:
        raise TraceFileError(f"{raw.source}: 0 usable steps — no ProfilerStep#N annotation launches GPU work")
    return windows, numbers


def _step_number(name: str, default: int) -> int:
    try:
        return int(name.split("#", 1)[1])
    except (IndexError, ValueError):
        return default


def _steady(windows: list[Interval], numbers: list[int]) -> tuple[list[Interval], list[int]]:
    """Steady-state steps. The first window starts at its own first kernel, so the gap before it is unknown:
    with three or more steps it is left out, and so is a second one much longer than the rest (warm-up:
    autotuning, allocator growth, compilation)."""
    if len(windows) < 3:
        return windows, numbers
    windows, numbers = windows[1:], numbers[1:]
    if len(windows) >= 3:
        rest = statistics.median(b - a for a, b in windows[1:])
        if windows[0][1] - windows[0][0] > WARMUP_FACTOR * rest:
            return windows[1:], numbers[1:]
    return windows, numbers


def hta_figures(raw: RawRank) -> dict[str, float]:
    """HTA's temporal breakdown and overlap: kernels launched before the last ProfilerStep, over the span from
    the first to the last of them."""
    steps = sorted(e.start for e in raw.annotations if e.category is Category.STEP)
    launch = {e.correlation: e.start for e in raw.runtime if e.correlation}
    cutoff = steps[-1] if len(steps) > 1 else float("inf")
    kept = [k for k in raw.kernels if launch.get(k.correlation, float("inf")) < cutoff]
    if not kept:
        return {"idle_pct": 0.0, "compute_pct": 0.0, "non_compute_pct": 0.0, "overlap_pct": 0.0}
    every = union((k.start, k.end) for k in kept)
    comp = union((k.start, k.end) for k in kept if k.category is Category.COMPUTE)
    comm = union((k.start, k.end) for k in kept if k.category is Category.NCCL)
    span = every[-1][1] - every[0][0]
    idle = span - total(every)
    return {
        "idle_pct": 100 * idle / span,
        "compute_pct": 100 * total(comp) / span,
        "non_compute_pct": 100 * (span - total(comp) - idle) / span,
        "overlap_pct": 100 * total(intersect(comm, comp)) / total(comm) if comm else 0.0,
    }


def read_rank(raw: RawRank, model: Rank) -> RankReading:
    windows, numbers = _steady(*_shifted(_step_windows(raw), raw, model))
    activity = RankActivity(model)
    rows = [activity.step(w) for w in windows]
    mean = {k: statistics.fmean(r[k] for r in rows) for k in rows[0]}
    step = mean["step_us"]
    api = model.track("CUDA API").events
    lo, hi = windows[0][0], windows[-1][1]
    n = len(windows)
    syncs = sum(1 for e in api if e.category is Category.SYNC and lo <= e.start < hi) / n
    mallocs = sum(1 for e in api if e.category is Category.MALLOC and lo <= e.start < hi) / n
    loader = (
        sum(
            e.dur
            for t in model.tracks_of(TrackKind.CPU_THREAD)
            if t.name == "python (main)"
            for e in t.events
            if e.category is Category.DATALOADER and lo <= e.start < hi
        )
        / n
    )
    host_wait, between, first_gap = _idle_causes(model, windows)
    kernels = [e for e in model.kernels() if e.category is Category.COMPUTE and lo <= e.start < hi]
    nccl = [e for e in model.kernels() if e.category is Category.NCCL and lo <= e.start < hi]
    collectives = sum(1 for e in nccl if "SendRecv" not in e.name) / n
    sendrecv = sum(1 for e in nccl if "SendRecv" in e.name) / n
    durations = sorted(b - a for a, b in windows)
    figures = {
        "steps": float(n),
        "step_ms": step / 1000,
        "step_max_ms": durations[-1] / 1000,
        "step_median_ms": statistics.median(durations) / 1000,
        "compute_ms": mean["compute_us"] / 1000,
        "gpu_busy_pct": 100 * mean["compute_us"] / step,
        "gpu_idle_pct": 100 * mean["idle_us"] / step,
        "comm_ms": mean["comm_us"] / 1000,
        "comm_exposed_ms": mean["comm_exposed_us"] / 1000,
        "comm_exposed_pct": 100 * mean["comm_exposed_us"] / step,
        "comm_hidden_pct": 100 * (1 - mean["comm_exposed_us"] / mean["comm_us"]) if mean["comm_us"] else 100.0,
        "kernels_per_step": mean["kernels"],
        "mean_kernel_us": (sum(e.dur for e in kernels) / len(kernels)) if kernels else 0.0,
        "idle_host_wait_ms": host_wait / n / 1000,
        "idle_between_kernels_ms": between / n / 1000,
        "idle_at_step_start_ms": first_gap / n / 1000,
        "syncs_per_step": syncs,
        "idle_after_sync_pct": 100 * idle_after_syncs(model, windows) / n / step,
        "mallocs_per_step": mallocs,
        "dataloader_wait_ms": loader / 1000,
        "collectives_per_step": collectives,
        "sendrecv_per_step": sendrecv,
    }
    top = _top(kernels, n)
    figures |= _counter_levels(model, [(e.start, e.end) for e in kernels if top and e.name == top[0][0]])
    return RankReading(model.rank, windows, numbers, figures, top, {})


def _shifted(
    windows_numbers: tuple[list[Interval], list[int]], raw: RawRank, model: Rank
) -> tuple[list[Interval], list[int]]:
    """Windows come from raw (absolute) times; the model's times start at 0."""
    offset = _offset(raw, model)
    windows, numbers = windows_numbers
    return [(a - offset, b - offset) for a, b in windows], numbers


def _offset(raw: RawRank, model: Rank) -> float:
    k = raw.kernels[0]
    shifted = next(
        e
        for t in model.tracks_of(TrackKind.GPU_STREAM)
        for e in t.events
        if e.name == k.name and e.correlation == k.correlation and e.dur == k.dur
    )
    return k.start - shifted.start


def _idle_causes(model: Rank, windows: list[Interval]) -> tuple[float, float, float]:
    """Idle time on the GPU split by cause: waiting for the host to launch (the launch call ended after the GPU
    went idle) vs waiting between queued kernels; plus the idle at the start of each step."""
    launches = {e.correlation: e for e in model.track("CUDA API").events if e.correlation}
    gpu = sorted((e for e in model.kernels()), key=lambda e: e.start)
    busy = union((e.start, e.end) for e in gpu)
    starts = [e.start for e in gpu]
    host = between = first = 0.0
    for lo, hi in windows:
        inner = clip(busy, lo, hi)
        cursor = lo
        for i, (a, b) in enumerate([*inner, (hi, hi)]):
            gap = a - cursor
            if gap > 0:
                j = bisect_right(starts, a - 1e-9)
                nxt = gpu[j] if j < len(gpu) else None
                call = launches.get(nxt.correlation) if nxt is not None else None
                if call is not None and call.end >= cursor:
                    host += gap
                else:
                    between += gap
                if i == 0:
                    first += gap
            cursor = max(cursor, b)
    return host, between, first


def _top(kernels: list[Event], n: int) -> list[tuple[str, float, float]]:
    sums: dict[str, float] = {}
    for e in kernels:
        sums[e.name] = sums.get(e.name, 0.0) + e.dur
    grand = sum(sums.values()) or 1.0
    return [(name, s / n, s / grand) for name, s in sorted(sums.items(), key=lambda kv: -kv[1])[:5]]


def _counter_levels(model: Rank, spans: list[Interval]) -> dict[str, float]:
    """GPU-metrics levels while the dominant kernel runs (where nsys's rows tell memory- from compute-bound)."""
    spans = union(spans)
    starts = [a for a, _ in spans]
    out = {}
    for track in model.tracks_of(TrackKind.COUNTER):
        values = []
        for t, v in zip(track.sample_times, track.sample_values, strict=True):
            i = bisect_right(starts, t) - 1
            if i >= 0 and t < spans[i][1]:
                values.append(v)
        if values and track.unit == "%":
            key = {
                "DRAM Bandwidth %": "dram_busy_pct",
                "Tensor Active %": "tensor_busy_pct",
                "SM Active %": "sm_busy_pct",
            }.get(track.name)
            if key:
                out[key] = statistics.fmean(values)
    return out


def read(raws: list[RawRank]) -> Reading:
    t0 = min(min((k.start for k in r.kernels), default=float("inf")) for r in raws)
    t0 = min(
        t0,
        *(min((e.start for e in r.runtime), default=t0) for r in raws),
        *(min((e.start for e in r.annotations), default=t0) for r in raws),
    )
    models = [to_rank(r, t0) for r in raws]
    ranks = []
    for raw, model in zip(raws, models, strict=True):
        if not raw.kernels:
            continue
        reading = read_rank(raw, model)
        reading.hta = hta_figures(raw)
        ranks.append(reading)
    if not ranks:
        raise TraceFileError("no rank of this trace has GPU kernels")
    result = Reading(ranks, models)
    result.findings = classify(result)
    return result
