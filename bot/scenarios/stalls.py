"""Shared mechanism of the two API-bar-then-GPU-gap twins: sync_stall and alloc_stall.

Both inject host calls that drain the GPU's queue; what differs is the API (cudaStreamSynchronize after
`.item()` vs cudaMalloc/cudaFree after an allocator miss) and the reveal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .common import TrainingSetup, by_difficulty, ms, pick, setup_figures
from .dp import DPRun, run_dp
from .families import draw_family_training, setup_context
from .figures import api_calls_per_step, gpu_gaps_each, hta_view
from .model import Annotation, Category, Context, Event
from .sim import COMPUTE, CUDA_API
from .training import Op, transformer_program


@dataclass(slots=True)
class StallRun:
    setup: TrainingSetup
    run: DPRun
    figures: dict[str, float]
    stall_calls: list[Event]  # the API bars in the first step, in order
    gaps: list[tuple[float, float]]  # GPU idle stretches ≥ 0.3 ms in the first step


def _insert_after_phase(program: list[Op], phase: str, ops: list[Op], offset: int = 0) -> None:
    i = next(k for k, op in enumerate(program) if op.kind == "phase" and op.name == phase)
    program[i + 1 + offset : i + 1 + offset] = ops


def run_stall(rng: np.random.Generator, difficulty: str, kind: str, family: str) -> StallRun:
    setup = draw_family_training(rng, family, (120.0, 400.0))
    program = transformer_program(setup.hw, rng, layers=setup.model.blocks, compute_us=setup.compute_us)
    count = round(by_difficulty(difficulty, (3.5, 5.4), (2.5, 3.4), (1.0, 2.4), rng))
    pause = by_difficulty(difficulty, (0.06, 0.1), (0.04, 0.06), (0.03, 0.05), rng) * setup.compute_us
    n_kernels = sum(1 for op in program if op.kind == "kernel")
    positions = sorted(int(x) for x in rng.choice(np.arange(5, n_kernels - 5), size=count, replace=False))
    stall_ops = [_stall_ops(rng, kind, pause) for _ in range(count)]
    # Insert at kernel positions, from the back so earlier indices stay valid.
    kernel_index = [k for k, op in enumerate(program) if op.kind == "kernel"]
    for pos, ops in sorted(zip(positions, stall_ops, strict=True), key=lambda x: -x[0]):
        at = kernel_index[pos]
        program[at:at] = ops
    run = run_dp(setup, rng, program, with_nccl=False, distractors=difficulty == "hard")
    b = run.rank0
    step = b["step_us"]
    w = run.windows[0][1]
    api = run.ranks[0].track(CUDA_API).events
    category = Category.SYNC if kind == "sync" else Category.MALLOC
    calls = [e for e in api if e.category is category and w[0] <= e.start < w[1]]
    # Holes counted over the steady steps (the first window's start is unknown to a reader), per step.
    steady = run.windows[0][1:]
    gaps, *steady_gaps = gpu_gaps_each(run.ranks[0], [w, *steady], min_us=300.0)
    all_gaps = [g for per_step in steady_gaps for g in per_step]
    stall_idle = sum(e - s for s, e in all_gaps) / len(steady)
    holes = len(all_gaps) / len(steady)
    per_call = api_calls_per_step(run.ranks[0], run.windows[0], category)
    after = step - b["idle_us"] + 0.02 * b["idle_us"]
    hta = hta_view(run.ranks[0], len(run.windows[0]) - 1, run.windows[0])
    figures = {
        **setup_figures(setup),
        "step_ms": step / 1000,
        "compute_ms": b["compute_us"] / 1000,
        "gpu_idle_ms": b["idle_us"] / 1000,
        "gpu_idle_pct": 100 * b["idle_us"] / step,
        "gpu_busy_pct": 100 * b["compute_us"] / step,
        "stall_calls_per_step": per_call,
        "stall_gaps_per_step": holes,
        "mean_gap_ms": stall_idle / max(holes, 1e-9) / 1000,
        "stall_idle_ms": stall_idle / 1000,
        "step_after_ms": after / 1000,
        "speedup": step / after,
        "mfu_pct": 100 * setup.mfu(step),
        "mfu_after_pct": 100 * setup.mfu(after),
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
    }
    return StallRun(setup, run, figures, calls, gaps)


def _stall_ops(rng: np.random.Generator, kind: str, pause: float) -> list[Op]:
    """One stall: a host sync and the Python that waited for it, or an allocator call (after a cache flush)."""
    if kind == "sync":
        return [
            Op(
                "sync",
                pick(rng, ("aten::item", "aten::item", "aten::_local_scalar_dense", "aten::nonzero")),
                api=pick(rng, ("cudaStreamSynchronize", "cudaStreamSynchronize", "cudaDeviceSynchronize")),
            ),
            Op("cpu", pick(rng, ("log_metrics (python)", "print(loss)", "wandb.log", "if loss > best: ...")), pause),
        ]
    ops = [Op("malloc", "aten::empty_strided", pause, api="cudaMalloc")]
    if rng.uniform() < 0.5:
        ops.insert(0, Op("malloc", "torch.cuda.empty_cache", pause * 0.4, api="cudaFree"))
    return ops


def stall_context(rng: np.random.Generator, run: StallRun, family: str, difficulty: str = "medium") -> Context:
    return setup_context(rng, family, run.setup, difficulty)


def stall_annotations(run: StallRun, api_label: str, after_what: str) -> list[Annotation]:
    """Mark the first stalling API bar and the GPU hole after it."""
    first = run.stall_calls[0]
    gap = next((g for g in run.gaps if g[0] >= first.start - 1.0), run.gaps[0])
    f = run.figures
    return [
        Annotation(0, CUDA_API, first.start, first.end, api_label),
        Annotation(
            0,
            COMPUTE,
            gap[0],
            gap[1],
            f"GPU idle ~{ms(f['mean_gap_ms'] * 1000)} after each {after_what} · {f['gpu_idle_pct']:.0f}% of the step",
        ),
    ]
