"""Running a 1F1B pipeline job as a trace: one rank per stage, every micro-batch's kernels, p2p sends, the
optimizer, launches ahead of the GPU, and an NVTX range per micro-batch forward and backward (so the micro-batch
count is read from the trace).

Kernel names and their shares of a block come from the data-parallel transformer program, so a pipeline stage
launches the same kernels as any other training drill on its GPU. Past ~1,000 kernels per rank and step a stage's
blocks are drawn in groups (one group's kernels as one bar each), so eight ranks stay readable and fast to draw.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import attrgetter

import numpy as np

from . import kernels as K
from .intervals import Bounds, union_bounds
from .model import Category, Event, Rank, TrackKind
from .pipeline import PipeOp, schedule
from .pipeline_job import PipeJob
from .sim import COMPUTE, COMPUTE_STREAM, NCCL_STREAM, RankSim
from .training import transformer_program

N_STEPS = 5  # four steady steps for HTA (it drops the last) plus the lead-in
KERNEL_BUDGET = 1000  # compute kernels per rank and step to aim for when grouping blocks
KERNEL_GAP_US = 2.0  # GPU gap between back-to-back kernels of one micro-batch
STEP_GAP_US = 500.0  # host work between steps (zero_grad, logging, the next ProfilerStep)
STEP_LEAD_US = 450.0  # a ProfilerStep opens this long before its first kernel may start
LAUNCH_LEAD_US = (60.0, 400.0)  # how far the host runs ahead of the GPU
JITTER = 0.03

Kernel = tuple[str, str, float, tuple[float, float, float] | None]  # name, metric kind, µs, own SM/tensor/DRAM levels
_START, _DUR, _NAME = attrgetter("start"), attrgetter("dur"), attrgetter("name")
_CORRELATION = attrgetter("correlation")


@dataclass(frozen=True, slots=True)
class Shares:
    """Each kernel's share of its part (a block's forward or backward, the head's, the optimizer's)."""

    fwd: tuple[tuple[str, str, float], ...]
    bwd: tuple[tuple[str, str, float], ...]
    head_fwd: tuple[tuple[str, str, float], ...]
    head_bwd: tuple[tuple[str, str, float], ...]
    optimizer: tuple[tuple[str, str, float], ...]


def kernel_shares(job: PipeJob) -> Shares:
    """Read one block's kernels off the transformer program: its phases say which part each kernel belongs to."""
    program = transformer_program(job.hw, np.random.default_rng(0), layers=1, compute_us=1.0)
    parts: dict[str, list[tuple[str, str, float]]] = {k: [] for k in ("fwd", "bwd", "head_fwd", "head_bwd", "opt")}
    phase = ""
    for op in program:
        if op.kind == "phase":
            phase = op.name
        elif op.kind == "kernel":
            key = {"forward": "fwd", "backward": "bwd"}.get(phase, "opt")
            if key != "opt" and not op.label:  # the LM head and the loss carry no block label
                key = f"head_{key}"
            parts[key].append((op.name, op.metric, op.us))

    def norm(items: list[tuple[str, str, float]]) -> tuple[tuple[str, str, float], ...]:
        whole = sum(us for _, _, us in items)
        return tuple((n, m, us / whole) for n, m, us in items)

    return Shares(*(norm(parts[k]) for k in ("fwd", "bwd", "head_fwd", "head_bwd", "opt")))


def kernels_per_group(shares: Shares) -> int:
    return len(shares.fwd) + len(shares.bwd)


def group_count(job: PipeJob, shares: Shares) -> int:
    """Block groups per stage and micro-batch: as many as the kernel budget allows, at most one block each."""
    target = round(KERNEL_BUDGET / (kernels_per_group(shares) * job.micros))
    return int(min(max(target, 1), job.model.blocks // job.stages))


@dataclass(frozen=True, slots=True)
class MemoryBound:
    """GEMMs below the roofline ridge (few tokens per micro-batch): a part's GEMMs do all of its FLOPs at `tensor`
    of the GPU's peak (the part's time at the drawn kernel efficiency times efficiency ÷ tensor), at the SM /
    tensor / DRAM `levels` they reach; every other kernel of a full block group takes at least `floor_us` (a
    kernel's fixed device cost times the group's blocks, no longer hidden under a few tokens' work)."""

    slow: float  # kernel efficiency ÷ tensor-active share
    levels: tuple[float, float, float]
    floor_us: float


@dataclass(frozen=True, slots=True)
class StageWork:
    """What one stage runs per micro-batch: its block groups (1.0 = a full group; a stage holding more blocks has
    more, the last maybe partial) and how much longer its GPU takes over the same kernel (a throttled clock)."""

    groups: tuple[float, ...]
    slow: float = 1.0


@dataclass(slots=True)
class PipeRun:
    job: PipeJob
    ranks: list[Rank]
    windows: list[tuple[float, float]]
    first_step: int
    fwd_us: list[float]  # per stage, one micro-batch
    bwd_us: list[float]
    opt_us: list[float]
    stats: StageStats = field(init=False)

    def __post_init__(self) -> None:
        self.stats = stage_stats(self.ranks, self.windows[1:])


@dataclass(frozen=True, slots=True)
class StageStats:
    """Per-stage figures over the steady steps, measured on the generated trace."""

    step_us: float
    compute_us: list[float]  # kernel time per step
    idle: list[float]  # share of the step with no kernel at all
    flash_fwd_us: list[float]  # median duration of the attention forward kernel: the same kernel on every stage
    kernels: list[float]  # compute kernels per step


def _covered(merged: Bounds, lo: float, hi: float) -> float:
    """Time inside [lo, hi) covered by disjoint sorted intervals (starts, ends)."""
    return float((np.clip(merged[1], lo, hi) - np.clip(merged[0], lo, hi)).sum())


def stage_stats(ranks: list[Rank], windows: list[tuple[float, float]]) -> StageStats:
    """The same split as figures.RankActivity (compute, idle = no kernel on any stream, kernels launched per step),
    in numpy: a pipeline rank holds tens of thousands of kernels."""
    compute, idle, flash, kernels = [], [], [], []
    lo, hi = windows[0][0], windows[-1][1]
    for rank in ranks:
        comp = rank.track(COMPUTE).events
        other = [e for t in rank.tracks_of(TrackKind.GPU_STREAM) if t.name != COMPUTE for e in t.events]
        starts = np.fromiter(map(_START, comp), float, len(comp))
        durs = np.fromiter(map(_DUR, comp), float, len(comp))
        ends = starts + durs
        other_starts = np.fromiter(map(_START, other), float, len(other))
        other_ends = other_starts + np.fromiter(map(_DUR, other), float, len(other))
        busy = union_bounds(np.concatenate((starts, other_starts)), np.concatenate((ends, other_ends)))
        merged = union_bounds(starts, ends)
        compute.append(statistics.fmean(_covered(merged, a, b) for a, b in windows))
        idle.append(statistics.fmean(1.0 - _covered(busy, a, b) / (b - a) for a, b in windows))
        ordered = np.sort(starts)
        counts = [np.searchsorted(ordered, b) - np.searchsorted(ordered, a) for a, b in windows]
        kernels.append(float(np.mean(counts)))
        is_flash = np.fromiter(map(K.FLASH_FWD.__eq__, map(_NAME, comp)), bool, len(comp))
        flash.append(statistics.median(durs[is_flash & (starts >= lo) & (starts < hi)].tolist()))
    step = statistics.fmean(b - a for a, b in windows)
    return StageStats(step, compute, idle, flash, kernels)


def _scaled(
    items: tuple[tuple[str, str, float], ...], total_us: float, mb: MemoryBound | None = None, part: float = 1.0
) -> list[Kernel]:
    """Each kernel's share of `total_us`; under `mb`, the GEMMs take the whole part's FLOPs at the memory-bound
    rate and the rest at least the device floor of `part` of a block group."""
    if mb is None:
        return [(n, m, share * total_us, None) for n, m, share in items]
    gemms = sum(share for _, m, share in items if m == "gemm")
    return [
        (n, "skinny_gemm", share / gemms * total_us * mb.slow, mb.levels)
        if m == "gemm"
        else (n, m, max(share * total_us, mb.floor_us * part), None)
        for n, m, share in items
    ]


def _stage_kernels(
    job: PipeJob, shares: Shares, work: StageWork, last: bool, groups: int, mb: MemoryBound | None = None
) -> tuple[list[Kernel], ...]:
    """(forward, backward, optimizer) kernels of one stage for one micro-batch, at its GPU's speed."""
    group_us = job.fwd_us / groups * work.slow
    fwd = [k for g in work.groups for k in _scaled(shares.fwd, g * group_us, mb, g)]
    bwd = [k for g in reversed(work.groups) for k in _scaled(shares.bwd, 2.0 * g * group_us, mb, g)]
    if last:
        fwd += _scaled(shares.head_fwd, job.head_fwd_us * work.slow, mb)
        bwd = _scaled(shares.head_bwd, 2.0 * job.head_fwd_us * work.slow, mb) + bwd
    return fwd, bwd, _scaled(shares.optimizer, job.optimizer_us * work.slow)


def stage_spans(
    job: PipeJob, work: list[StageWork], mb: MemoryBound | None = None
) -> tuple[list[float], list[float], list[float]]:
    """Per stage, the GPU time of one micro-batch's forward, its backward, and the optimizer (kernels and the gaps
    between them): what the 1F1B schedule places."""
    return _spans(_per_stage(job, work, mb))


def _spans(per_stage: list[tuple[list[Kernel], ...]]) -> tuple[list[float], list[float], list[float]]:
    return [_span(f) for f, _, _ in per_stage], [_span(b) for _, b, _ in per_stage], [_span(o) for *_, o in per_stage]


def _per_stage(job: PipeJob, work: list[StageWork], mb: MemoryBound | None) -> list[tuple[list[Kernel], ...]]:
    shares = kernel_shares(job)
    groups = group_count(job, shares)
    return [_stage_kernels(job, shares, w, s == job.stages - 1, groups, mb) for s, w in enumerate(work)]


def _span(kernels: list[Kernel]) -> float:
    return sum(k[2] for k in kernels) + KERNEL_GAP_US * len(kernels)


def run_pipeline(
    job: PipeJob, rng: np.random.Generator, work: list[StageWork], mb: MemoryBound | None = None
) -> PipeRun:
    """Five steps of the job's 1F1B schedule, with `work[s]` on stage s (and its GEMMs memory-bound under `mb`)."""
    stages = job.stages
    per_stage = _per_stage(job, work, mb)
    fwd_us, bwd_us, opt_us = _spans(per_stage)
    sims = [RankSim(s, rng, with_memcpy=False, with_nccl=True) for s in range(stages)]
    ranges: list[list[tuple[str, int, int]]] = [[] for _ in sims]  # (NVTX name, first, last correlation)
    first = int(rng.integers(20, 300))
    t = STEP_LEAD_US + 200.0
    windows: list[tuple[float, float]] = []
    for step in range(N_STEPS):
        ops = schedule(stages, job.micros, fwd_us, bwd_us, job.p2p_us, t0=t)
        ends = [max(op.end for op in ops if op.stage == s) + 20.0 for s in range(stages)]
        step_end = max(e + o for e, o in zip(ends, opt_us, strict=True))
        for op in sorted(ops, key=lambda o: o.start):
            kernels = per_stage[op.stage][1 if op.backward else 0]
            ranges[op.stage].append(_emit_op(sims[op.stage], op, kernels, stages, job))
        for s, sim in enumerate(sims):
            corr = _fill(sim, ends[s], ends[s] + opt_us[s], per_stage[s][2])
            ranges[s].append(("optimizer", *corr))
            step_range = (t - STEP_LEAD_US, step_end + STEP_GAP_US - STEP_LEAD_US)
            sim.annotate(f"ProfilerStep#{first + step}", *step_range, Category.STEP)
        windows.append((t, step_end + STEP_GAP_US))
        t = step_end + STEP_GAP_US
    ranks = [_with_launches(sim, rs) for sim, rs in zip(sims, ranges, strict=True)]
    return PipeRun(job, ranks, windows, first, fwd_us, bwd_us, opt_us)


def _fill(sim: RankSim, start: float, end: float, kernels: list[Kernel]) -> tuple[int, int]:
    """Kernels back to back from `start`, each a few percent off its share, scaled to end at `end` (the schedule
    fixed the span); returns the first and last correlation ids."""
    n = len(kernels)
    jitter = sim.rng.uniform(1.0 - JITTER, 1.0 + JITTER, n).tolist()
    draws = [k[2] * j for k, j in zip(kernels, jitter, strict=True)]
    scale = (end - start - KERNEL_GAP_US * n) / sum(draws)
    durs = [d * scale for d in draws]
    # each kernel starts where the previous one ended plus the gap: t += dur + gap, summed in the same order
    starts = list(accumulate((d + KERNEL_GAP_US for d in durs[:-1]), initial=start))
    first = sim.take_correlations(n)
    names, metrics, levels = zip(*((k[0], k[1], k[3]) for k in kernels), strict=True)
    args = [{"_levels": lv} if lv else None for lv in levels]
    corrs = range(first, first + n)
    events = map(Event, names, starts, durs, repeat(Category.COMPUTE), corrs, args, metrics)
    sim.streams[COMPUTE_STREAM].events.extend(events)
    return first, first + n - 1


def _emit_op(sim: RankSim, op: PipeOp, kernels: list[Kernel], stages: int, job: PipeJob) -> tuple[str, int, int]:
    """One micro-batch's forward or backward through this stage, then the send to the neighbour stage."""
    first, last = _fill(sim, op.start, op.end, kernels)
    sends = (sim.rank > 0) if op.backward else (sim.rank < stages - 1)
    if sends:
        corr = sim.next_correlation()
        args = {"bytes": int(job.p2p_bytes)}
        send = Event(K.NCCL_SENDRECV, op.end + 5.0, job.p2p_us - 10.0, Category.NCCL, corr, args, "nccl")
        sim.streams[NCCL_STREAM].events.append(send)
    return f"{'backward' if op.backward else 'forward'} micro-batch {op.micro}", first, last


def _with_launches(sim: RankSim, ranges: list[tuple[str, int, int]]) -> Rank:
    """Give every kernel a launch on the CUDA API row, ahead of it and in order, as a host thread would; then the
    NVTX ranges around the launches of each micro-batch's kernels."""
    kernels = sorted((e for t in sim.streams.values() for e in t.events), key=_START)
    costs = sim.rng.uniform(4.0, 8.0, len(kernels)).tolist()
    leads = sim.rng.uniform(*LAUNCH_LEAD_US, len(kernels)).tolist()
    starts = _launch_starts(list(map(_START, kernels)), costs, leads)
    correlations = list(map(_CORRELATION, kernels))
    launches = map(Event, repeat("cudaLaunchKernel"), starts, costs, repeat(Category.LAUNCH), correlations)
    sim.api.events.extend(launches)
    at = dict(zip(correlations, range(len(kernels)), strict=True))  # a kernel's launch, by correlation id
    for name, first, last in ranges:
        sim.annotate(name, starts[at[first]], starts[at[last]] + costs[at[last]])
    for track in (*sim.streams.values(), sim.nvtx):
        track.events.sort(key=_START)
    return sim.rank_model()


def _launch_starts(kernel_starts: list[float], costs: list[float], leads: list[float]) -> list[float]:
    """Each launch `lead` ahead of its kernel but not before the previous launch returned, and done at least 1 µs
    before the kernel starts: min(max(cursor, start - lead), start - cost - 1), spelled out with max()/min()'s
    choice on ties."""
    out = []
    cursor = 0.0
    for at, cost, lead in zip(kernel_starts, costs, leads, strict=True):
        start = at - lead
        if not start > cursor:
            start = cursor
        latest = at - cost - 1.0
        if latest < start:
            start = latest
        out.append(start)
        cursor = start + cost
    return out


def even_work(job: PipeJob, slow: dict[int, float] | None = None) -> list[StageWork]:
    """Balanced stages: each holds the same blocks, except that the last holds fewer to make room for the LM head
    (as Megatron's uneven first/last-stage layer counts do); `slow` maps a stage to how much longer its GPU takes
    per kernel."""
    n = group_count(job, kernel_shares(job))
    groups = (1.0,) * n
    head = min(job.head_fwd_us / (job.fwd_us / n), 0.5)  # the head's time in block groups
    last = (*groups[:-1], groups[-1] - head)
    return [StageWork(last if s == job.stages - 1 else groups, (slow or {}).get(s, 1.0)) for s in range(job.stages)]


def with_heavy_stage(work: list[StageWork], stage: int, factor: float) -> list[StageWork]:
    """`stage` holds `factor` times the blocks of the others: more block groups (the last maybe partial), each
    launching the same kernels at the same durations."""
    base = work[stage].groups
    extra = (factor - 1.0) * len(base)
    full = int(extra)
    part = extra - full
    groups = (*base, *(1.0,) * full, *((part,) if part > 0.05 else ()))
    return [StageWork(groups, w.slow) if s == stage else w for s, w in enumerate(work)]
