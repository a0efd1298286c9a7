"""A data-parallel training loop on top of RankSim: transformer kernels, dataloader, buckets, optimizer.

A step is a list of ops that every rank interprets in order. Generators inject the pathology as ops
(a sync after the loss, a cudaMalloc before a layer, one monolithic collective) or as loop settings
(slow dataloader workers, a slower rank), and the mechanism produces the picture.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from . import kernels as K
from .model import Category, Event, Hardware
from .sim import COMPUTE_STREAM, PendingCollective, RankSim, jitter, resolve_collectives

# Relative cost of each kernel in one transformer block (forward); backward costs about twice as much.
_BLOCK_FWD: tuple[tuple[str, str, float], ...] = (
    ("norm", "rmsnorm", 0.02),
    ("gemm", "qkv", 0.16),
    ("elementwise", "rotary", 0.012),
    ("attn", "flash", 0.15),
    ("gemm", "out", 0.055),
    ("elementwise", "add", 0.012),
    ("norm", "rmsnorm", 0.02),
    ("gemm", "up", 0.25),
    ("elementwise", "silu", 0.03),
    ("gemm", "down", 0.25),
    ("elementwise", "add", 0.012),
)


@dataclass(frozen=True, slots=True)
class Op:
    """One entry of a step's program. `kind` picks the interpreter branch."""

    kind: str  # kernel | bucket | sync | malloc | phase | barrier | cpu
    name: str = ""
    us: float = 0.0
    metric: str = "gemm"
    nbytes: int = 0
    api: str = ""
    label: str = ""  # what the kernel computes ("up", "down_bwd", ...), for generators that retarget ops
    levels: tuple[float, float, float] | None = None  # SM / tensor / DRAM levels overriding the kind's


@dataclass(slots=True)
class DataLoaderSpec:
    workers: int
    decode_us: float  # one batch on one worker
    prefetch: int = 2
    h2d_us: float = 0.0
    batch_bytes: int = 0
    work: str = "decode + augment"  # what a worker row shows it doing to one batch


@dataclass(slots=True)
class LoopSpec:
    n_steps: int
    program: list[Op]  # one step, ops in order; a "barrier" op splits backward from the optimizer
    dataloader: DataLoaderSpec | None = None
    slow_factor: dict[int, float] = field(default_factory=dict)  # per-rank multiplier on kernel time
    step_overhead_us: float = 40.0
    first_step_number: int = 100
    host_us: tuple[float, float] = (8.0, 20.0)  # Python between two launches (eager); ~1–3 µs when compiled
    # Hard drills add the course's benign traps: a warm-up cudaMalloc storm in the first profiled step, one
    # one-off slow kernel in a later step, and (multi-rank) one rank whose step time jitters by a few percent.
    distractors: bool = False


def gemm_name(hw: Hardware, which: str) -> str:
    a, b, c = K.gemms(hw)
    return {"qkv": a, "up": a, "out": b, "down": c, "dgrad": b, "wgrad": c, "head": a}.get(which, a)


def _kernel_name(hw: Hardware, metric: str, label: str, backward: bool) -> str:
    if metric == "gemm":
        return gemm_name(hw, label)
    if metric == "attn":
        return K.FLASH_BWD if backward else K.FLASH_FWD
    if label == "rmsnorm":
        return K.RMSNORM_BWD if backward else K.RMSNORM
    if label == "silu":
        return K.SILU_BWD if backward else K.SILU
    if label == "rotary":
        return K.ROTARY
    return K.ADD


def transformer_program(
    hw: Hardware,
    rng: np.random.Generator,
    *,
    layers: int,
    compute_us: float,
    buckets: int = 0,
    grad_bytes: float = 0.0,
    bucket_xfer_us: float = 0.0,
    optimizer_us: float | None = None,
) -> list[Op]:
    """Forward, backward and optimizer of a `layers`-block transformer taking `compute_us` of GPU time.

    With `buckets` > 0, backward issues that many gradient all-reduces as their layers finish, the way
    DDP's reducer does; `bucket_xfer_us` is the wire time of one bucket.
    """
    fwd_weight = sum(w for _, _, w in _BLOCK_FWD) * layers + 0.05
    total_weight = fwd_weight * 3.0  # backward ≈ 2× forward
    scale = compute_us / total_weight
    ops: list[Op] = [Op("phase", "forward")]
    for _ in range(layers):
        for metric, label, w in _BLOCK_FWD:
            ops.append(Op("kernel", _kernel_name(hw, metric, label, False), w * scale, metric, label=label))
    ops.append(Op("kernel", gemm_name(hw, "head"), 0.035 * scale, "gemm"))
    ops.append(Op("kernel", K.SOFTMAX_XENT, 0.015 * scale, "elementwise"))
    ops.append(Op("phase", "backward"))
    ops.append(Op("kernel", K.SOFTMAX_XENT, 0.03 * scale, "elementwise"))
    ops.append(Op("kernel", gemm_name(hw, "dgrad"), 0.07 * scale, "gemm"))
    bucket_bytes = int(grad_bytes / buckets) if buckets else 0
    bucket_name = K.nccl_allreduce(bucket_bytes)
    issued = 0
    for layer in range(layers):
        for metric, label, w in reversed(_BLOCK_FWD):
            name = _kernel_name(hw, metric, label, True)
            if metric == "gemm":  # data-gradient and weight-gradient GEMMs
                ops.append(Op("kernel", gemm_name(hw, "dgrad"), w * scale, metric, label=f"{label}_bwd"))
                ops.append(Op("kernel", gemm_name(hw, "wgrad"), w * scale, metric, label=f"{label}_bwd"))
            else:
                ops.append(Op("kernel", name, 2 * w * scale, metric, label=f"{label}_bwd"))
        # DDP's reducer fires a bucket as soon as its gradients are all produced (backward runs last layer
        # first); the last layer's completion flushes what is left.
        ready = buckets if layer == layers - 1 else int(buckets * (layer + 1) / layers)
        for _ in range(ready - issued):
            ops.append(Op("bucket", bucket_name, bucket_xfer_us, "nccl", bucket_bytes))
        issued = max(issued, ready)
    ops.append(Op("barrier"))
    ops.append(Op("phase", "optimizer"))
    opt_us = optimizer_us if optimizer_us is not None else 0.025 * compute_us
    ops.append(Op("kernel", K.GRAD_NORM, 0.15 * opt_us, "optimizer"))
    ops.append(Op("kernel", K.REDUCE, 0.05 * opt_us, "elementwise"))
    for _ in range(4):
        ops.append(Op("kernel", K.ADAM, 0.2 * opt_us, "optimizer"))
    ops.append(Op("phase", ""))
    return ops


def program_kernel_us(program: list[Op]) -> float:
    return sum(op.us for op in program if op.kind == "kernel")


@dataclass(slots=True)
class _DataLoaderState:
    spec: DataLoaderSpec
    worker_free: list[float]
    origin: float = 0.0  # when batch 0 is ready: the workers were already running before the profile
    ready: dict[int, float] = field(default_factory=dict)
    consumed: dict[int, float] = field(default_factory=dict)
    produced: int = 0


def _produce_until(sim: RankSim, state: _DataLoaderState, batch: int) -> float:
    """Run the workers forward until `batch` exists; returns when it is ready."""
    spec = state.spec
    # Workers keep decoding ahead of the consumer (up to the prefetch window), so produce past `batch`.
    while state.produced <= batch + spec.workers - 1:
        b = state.produced
        w = b % spec.workers
        dur = jitter(sim.u, spec.decode_us, 0.04)
        if b < spec.workers:  # steady state: worker w's first batch is due w periods after batch 0
            end = state.origin + b * spec.decode_us / spec.workers
            start = end - dur
        else:
            gate = state.consumed.get(b - spec.workers * spec.prefetch, 0.0)
            start = max(state.worker_free[w], gate)
            end = start + dur
        shown = max(start, 0.0)
        sim.workers[w].events.append(Event(f"{spec.work} (batch {b})", shown, end - shown, Category.DATALOADER))
        state.worker_free[w] = end
        state.ready[b] = end
        state.produced += 1
    return state.ready[batch]


def run_loop(sims: list[RankSim], hw: Hardware, spec: LoopSpec) -> list[list[tuple[float, float]]]:
    """Run `spec.n_steps` steps on every rank; returns per-rank GPU step windows (start, end) in µs."""
    rng_jitter = 0.03
    loaders = [
        _DataLoaderState(spec.dataloader, [0.0] * spec.dataloader.workers) if spec.dataloader else None for _ in sims
    ]
    barrier = next(i for i, op in enumerate(spec.program) if op.kind == "barrier")
    head, tail = spec.program[:barrier], spec.program[barrier + 1 :]
    windows: list[list[tuple[float, float]]] = [[] for _ in sims]

    # Lead-in: the profile opens on the tail of the previous, unprofiled step's optimizer.
    lead_end = []
    for sim in sims:
        for op in tail:
            if op.kind == "kernel":
                sim.launch(op.name, jitter(sim.u, op.us, rng_jitter), op.metric)
        sim.idle_host(spec.step_overhead_us)
        lead_end.append(sim.gpu_drained_at())
    previous_end = list(lead_end)
    _start_loaders(sims, loaders, lead_end, program_kernel_us(spec.program))

    jittery = int(sims[0].u(0, len(sims))) if spec.distractors and len(sims) > 1 else -1
    odd_step = 2 if spec.distractors else -1
    head_segments, tail_segments = _segments(head), _segments(tail)
    odd_segments = _segments(_with_odd_kernel(head, hw)) if spec.distractors else head_segments
    for step in range(spec.n_steps):
        number = spec.first_step_number + step
        step_cpu_start = [sim.cpu for sim in sims]
        pendings: list[list[PendingCollective]] = [[] for _ in sims]
        phase_marks: list[list[tuple[str, float]]] = [[] for _ in sims]
        for r, sim in enumerate(sims):
            state = loaders[r]
            if state is not None:
                _next_batch(sim, state, step)
            if spec.distractors and step == 0:
                _warmup_storm(sim, head)
            slow = spec.slow_factor.get(r, 1.0) * (sim.u(0.96, 1.04) if r == jittery else 1.0)
            program = odd_segments if step == odd_step else head_segments
            _interpret(sim, program, slow, rng_jitter, pendings[r], phase_marks[r], spec.host_us)
        ends = resolve_collectives(sims, pendings) if pendings[0] else []
        for r, sim in enumerate(sims):
            if ends:
                sim.wait_stream(COMPUTE_STREAM, ends[-1])
            slow_r = spec.slow_factor.get(r, 1.0)
            _interpret(sim, tail_segments, slow_r, rng_jitter, pendings[r], phase_marks[r], spec.host_us)
            sim.idle_host(jitter(sim.u, spec.step_overhead_us, 0.2))
            _annotate_step(sim, number, step_cpu_start[r], phase_marks[r])
            end = sim.gpu_drained_at()
            windows[r].append((previous_end[r], end))
            previous_end[r] = end
    return windows


def _next_batch(sim: RankSim, state: _DataLoaderState, step: int) -> None:
    """The main thread waits in `__next__` until the workers have this step's batch, then copies it over."""
    ready = _produce_until(sim, state, step)
    wait = max(ready - sim.cpu, 0.0) + (sim.u(60.0, 180.0))
    sim.cpu_op("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", wait, Category.DATALOADER)
    state.consumed[step] = sim.cpu
    if state.spec.h2d_us:
        copy = sim.memcpy(K.MEMCPY_H2D, jitter(sim.u, state.spec.h2d_us, 0.05), state.spec.batch_bytes)
        sim.wait_stream(COMPUTE_STREAM, copy.end)


def _annotate_step(sim: RankSim, number: int, cpu_start: float, marks: list[tuple[str, float]]) -> None:
    sim.annotate(f"ProfilerStep#{number}", cpu_start, sim.cpu, Category.STEP)
    for (name, t0), (_, t1) in itertools.pairwise(marks):
        if name:
            sim.annotate(name, t0, t1)


def _start_loaders(
    sims: list[RankSim], loaders: list[_DataLoaderState | None], lead_end: list[float], kernel_us: float
) -> None:
    """The workers were running before the profile: batch 0 is due one steady-state gap (a batch period less the
    step's kernels) after the lead-in drains, so the first step starves like the others."""
    for sim, state, lead in zip(sims, loaders, lead_end, strict=True):
        if state is not None:
            period = state.spec.decode_us / state.spec.workers
            state.origin = lead + max(period - kernel_us, 0.0)
            _produce_until(sim, state, 0)


def _warmup_storm(sim: RankSim, program: list[Op]) -> None:
    """The caching allocator growing its pool on the first step: a burst of cudaMalloc that never recurs."""
    compute = sum(op.us for op in program if op.kind == "kernel")
    calls = int(sim.u(12, 30))
    for _ in range(calls):
        sim.cpu_op("aten::empty_strided", sim.u(4.0, 9.0))
        sim.malloc(0.025 * compute / calls * sim.u(0.7, 1.3))


def _with_odd_kernel(program: list[Op], hw: Hardware) -> list[Op]:
    """One step with one one-off slow kernel (a deterministic scatter-add in a metrics/embedding update)."""
    del hw
    compute = sum(op.us for op in program if op.kind == "kernel")
    at = next(i for i, op in enumerate(program) if op.kind == "phase" and op.name == "backward")
    odd = Op("kernel", K.INDEX_PUT, 0.02 * compute, "elementwise")
    return [*program[:at], odd, *program[at:]]


Kernels = list[tuple[str, float, str, dict[str, object] | None]]
Segments = list[tuple[Kernels, list[Op]]]  # each: a run of kernels (for RankSim.launch_run) or of other ops


def _segments(ops: list[Op]) -> Segments:
    """A program cut into runs of kernel launches and runs of other ops, once per program rather than per step."""
    out: Segments = []
    for is_kernel, run in itertools.groupby(ops, lambda op: op.kind == "kernel"):
        if is_kernel:
            out.append(([(op.name, op.us, op.metric, {"_levels": op.levels} if op.levels else None) for op in run], []))
        else:
            out.append(([], list(run)))
    return out


def _interpret(
    sim: RankSim,
    segments: Segments,
    slow: float,
    spread: float,
    pendings: list[PendingCollective],
    marks: list[tuple[str, float]],
    host_us: tuple[float, float] = (8.0, 20.0),
) -> None:
    for kernels, others in segments:
        if kernels:  # the hot path: a run of kernels launched in one loop (same draws in the same order)
            sim.launch_run(kernels, slow, spread, host_us)
        for op in others:
            if op.kind == "bucket":
                pendings.append(sim.collective(op.name, jitter(sim.u, op.us, 0.02), op.nbytes))
            elif op.kind == "sync":
                sim.cpu_op(op.name, (sim.u(15.0, 30.0)))
                sim.synchronize(op.api or "cudaStreamSynchronize")
            elif op.kind == "malloc":
                sim.cpu_op(op.name, (sim.u(10.0, 25.0)))
                sim.malloc(jitter(sim.u, op.us, 0.15), op.api or "cudaMalloc")
            elif op.kind == "cpu":
                sim.cpu_op(op.name, jitter(sim.u, op.us, 0.1))
            elif op.kind == "phase":
                marks.append((op.name, sim.cpu))
