"""Host/launch-bound decode: an eager serving loop at a small batch dispatches ~1,000 unfused kernels per token from
Python, each shorter than its launch; the GPU waits between every pair: a picket fence."""

from __future__ import annotations

import numpy as np

from ..common import by_difficulty, ms, us_
from ..engine import Loop, Step
from ..figures import RankActivity
from ..model import Annotation, Reveal, Scenario
from ..served import Batch
from ..serving import draw_serving, finish_served, host_work, run_engine, serving_figures, with_streams
from ..sim import COMPUTE, CUDA_API

ID = "launch_bound"
TITLE = "Host / launch-bound"
SUMMARY = "Thousands of tiny kernels; launch overhead ≥ kernel time; the GPU waits between kernels."
TWIN = None
LAUNCH_US = 5.5  # mean cudaLaunchKernel cost (RankSim draws 4–7 µs)
PYTHON_US = (6.0, 24.0)  # eager per-op dispatch besides the launch call: ATen, autograd checks, module hooks


def _plan(rng: np.random.Generator, streams: int, ctx: int, n: int) -> list[Step]:
    """Decode at a small batch; one or two short prompts arrive and prefill in one iteration each."""
    arrive = {int(x) for x in rng.choice(np.arange(3, n - 1), size=int(rng.integers(1, 3)), replace=False)}
    req = int(rng.integers(4000, 9000))
    plan = []
    for i in range(n):
        sched, proc = host_work(rng, float(rng.uniform(250.0, 600.0)))
        if i in arrive:
            tokens = int(rng.integers(100, 500))
            req += int(rng.integers(3, 40))
            plan.append(Step(Batch(streams, ctx, tokens, 0), sched, proc, ((req, tokens),)))
        else:
            plan.append(Step(Batch(streams, ctx), sched, proc))
    return plan


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    setup = with_streams(draw_serving(rng, difficulty), int(rng.integers(1, 5)), 500)
    kernels = setup.costs.iteration(Batch(setup.streams, setup.ctx), fused=False)
    busy_us = sum(c.us for c in kernels)
    # The token is `idle_share` launch overhead: the host needs that long to dispatch its kernels.
    idle_share = by_difficulty(difficulty, (0.62, 0.72), (0.5, 0.62), (0.38, 0.5), rng)
    python_us = busy_us / (1.0 - idle_share) / len(kernels) - LAUNCH_US
    python_us = min(max(python_us, PYTHON_US[0]), PYTHON_US[1])
    plan = _plan(rng, setup.streams, setup.ctx, setup.iterations)
    run = run_engine(rng, setup, Loop(blocking=False, eager=True, python_us=python_us), plan)
    activity = RankActivity(run.rank)
    f = serving_figures(setup, run, activity)
    windows = run.windows
    decode = [i for i, d in enumerate(run.steps) if i and not d.batch.prefill]
    rows = [activity.step(windows[i]) for i in decode]
    token_us = float(np.mean([r["step_us"] for r in rows]))
    kernel_sum = float(np.mean([r["kernel_sum_us"] for r in rows]))
    n_kernels = float(np.mean([r["kernels"] for r in rows]))
    idle = token_us - kernel_sum
    mean_kernel = kernel_sum / n_kernels
    mean_gap = idle / n_kernels
    lo, hi = windows[decode[0]]
    api_time = sum(e.dur for e in run.rank.track(CUDA_API).events if lo <= e.start < hi)
    weight_bytes = setup.model.params * setup.precision.weight_bytes
    floor_us = weight_bytes / (setup.hw.dram_gbps * 1e9) * 1e6
    graphs_idle = 500.0
    after = kernel_sum * 0.85 + graphs_idle
    f |= {
        "token_ms": token_us / 1000,
        "step_ms": token_us / 1000,
        "kernel_sum_ms": kernel_sum / 1000,
        "gpu_idle_ms": idle / 1000,
        "gpu_idle_pct": 100 * idle / token_us,
        "kernels_per_step": n_kernels,
        "mean_kernel_us": mean_kernel,
        "mean_gap_us": mean_gap,
        "launch_api_share_pct": 100 * api_time / (hi - lo),
        "bandwidth_floor_ms": floor_us / 1000,
        "step_after_ms": after / 1000,
        "speedup": token_us / after,
        "host_us_per_launch": mean_kernel + mean_gap,
        "graphs_idle_ms": graphs_idle / 1000,
        "kernel_sum_after_ms": kernel_sum * 0.85 / 1000,
        "python_us_per_op": python_us,
    }
    reveal = _reveal(f, setup.hw.dram_gbps)
    w = windows[decode[1]]
    zoom_start = w[0] + 0.4 * (w[1] - w[0])
    zoom = (zoom_start, zoom_start + 3000.0)
    annotations = [
        Annotation(
            0, COMPUTE, *zoom, f"{n_kernels:,.0f} kernels/token · mean {us_(mean_kernel)} · gap {us_(mean_gap)}"
        ),
        Annotation(0, CUDA_API, *zoom, f"launch wall: API time {f['launch_api_share_pct']:.0f}% of wall time"),
    ]
    return finish_served(ID, seed, difficulty, rng, setup, run, f, reveal, annotations, windows=windows, zoom=zoom)


def _reveal(f: dict[str, float], dram_gbps: float) -> Reveal:
    token, kernel_sum, idle = f["token_ms"] * 1000, f["kernel_sum_ms"] * 1000, f["gpu_idle_ms"] * 1000
    n, mean_kernel, mean_gap = f["kernels_per_step"], f["mean_kernel_us"], f["mean_gap_us"]
    floor, after, graphs_idle = f["bandwidth_floor_ms"] * 1000, f["step_after_ms"] * 1000, f["graphs_idle_ms"] * 1000
    return Reveal(
        headline=f"Launch-bound — {n:,.0f} tiny kernels per token; the GPU waits for the CPU to launch each.",
        read=(
            (
                "Step boundary",
                f"One decode iteration = one token for each of {f['concurrent_streams']:.0f} streams = {ms(token)}. "
                "No single gap, no long kernel: a picket fence.",
            ),
            (
                "Gaps",
                f"~{n:,.0f} kernels per token averaging {us_(mean_kernel)}, with ~{us_(mean_gap)} idle between "
                f"consecutive ones: {ms(kernel_sum)} busy + {ms(idle)} idle = {ms(token)}. The token is "
                f"{f['gpu_idle_pct']:.0f}% launch overhead.",
            ),
            (
                "Overlap",
                "The CUDA API row is a steady stream of cudaLaunchKernel with Python between them, and each kernel "
                "starts right under its launch — the CPU never gets ahead, there is no queue.",
            ),
            (
                "Top kernels",
                "GEMVs and unfused elementwise kernels (casts, rotary, rmsnorm pieces) — each shorter than the "
                "launch that feeds it.",
            ),
        ),
        wrong_hypothesis=(
            "“The small GEMMs are inefficient — tune tiles or quantise.” At a batch this small the GEMVs are "
            f"bandwidth-bound and already near their floor: {f['weight_gb']:.1f} GB of weights over "
            f"{dram_gbps / 1000:.2f} TB/s ≈ {ms(floor)}, against the {ms(kernel_sum)} busy. Faster kernels attack "
            f"the busy part; the bug is the {ms(idle)} of nothing."
        ),
        measurement=(
            f"nsys stats --report cuda_api_sum: cudaLaunchKernel ≈ {n:,.0f} per token, API time "
            f"{f['launch_api_share_pct']:.0f}% of the token here with the Python dispatch between launches; kernels "
            f"per token vs a fused, graphed decode (a few hundred); mean kernel duration ({us_(mean_kernel)}) "
            f"against the host's ~{us_(f['host_us_per_launch'])} per launch (kernel + gap)."
        ),
        fix=(
            "Capture the decode step in a CUDA graph (static shapes per batch size) so one launch replays it, and "
            "fuse the elementwise soup with torch.compile (rmsnorm + rotary + residual)."
        ),
        arithmetic=(
            f"Graphs: idle {ms(idle)} → ~{ms(graphs_idle)}. Fusion: busy {ms(kernel_sum)} → "
            f"~{ms(f['kernel_sum_after_ms'] * 1000)}.",
            f"Before: {ms(token)}/token. After: ≈ {ms(after)}/token → {f['speedup']:.1f}×, near the {ms(floor)} "
            "weight-bandwidth floor.",
        ),
        spoken=(
            f"{ms(token)} per token, but the kernels only add up to {ms(kernel_sum)}. The timeline is a picket "
            f"fence: ~{n:,.0f} kernels per token averaging {us_(mean_kernel)} with {us_(mean_gap)} gaps — kernels "
            "shorter than their launches, the CPU's dispatch keeping the GPU starved. The GEMVs are already near "
            f"the weight-bandwidth floor, {ms(floor)}, so tuning them is the wrong target. CUDA-graph the decode "
            f"step and fuse the elementwise kernels; confirm with cuda_api_sum. Expect ~{ms(after)} per token, "
            f"{f['speedup']:.1f}×."
        ),
        tell="Confetti kernels with gaps between every pair, and launches vertically aligned with their kernels.",
    )
