"""A sync stall in online serving: each iteration reads its sampled token ids back with a blocking copy (`.item()` /
`.tolist()` on a GPU tensor), so the launch queue drains and the GPU waits while Python processes the ids and
schedules the next iteration. Same engine, plan and budget as healthy serving; only the loop differs."""

from __future__ import annotations

import statistics

import numpy as np

from .common import by_difficulty, ms, pick
from .engine import Loop
from .model import Annotation, Reveal, Scenario
from .serving import (
    chunked_plan,
    draw_chunked,
    finish_served,
    iteration_gap_us,
    run_engine,
    serving_figures,
    steady_tokens,
)
from .sim import COMPUTE, CUDA_API

READBACK_OPS = ("aten::item", "aten::_local_scalar_dense", "aten::item")


def generate(signature: str, rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    drawn = draw_chunked(rng, difficulty)
    setup, budget, prompts, full_us = drawn.setup, drawn.budget, drawn.prompts, drawn.full_us
    share = by_difficulty(difficulty, (0.25, 0.36), (0.15, 0.24), (0.07, 0.13), rng)
    python_us = min(max(full_us * share / (1 - share), 400.0), 15_000.0)
    plan = chunked_plan(rng, setup, budget, prompts, python_us)
    op = str(pick(rng, READBACK_OPS))
    run = run_engine(rng, setup, Loop(blocking=True, eager=False, readback_op=op), plan)
    f = serving_figures(setup, run)
    gaps = iteration_gap_us(run)
    gap = statistics.fmean(gaps)
    step = f["step_ms"] * 1000
    after = step - gap + 20.0  # the overlapped loop keeps an event wait of ~10–20 µs at the boundary
    syncs = [e for e in run.rank.track(CUDA_API).events if e.name == "cudaStreamSynchronize"]
    tokens = steady_tokens(run)
    f |= {
        "syncs_per_step": len(syncs) / len(run.steps),
        "sync_gap_ms": gap / 1000,
        "sync_gap_pct": 100 * gap / step,
        "python_ms": python_us / 1000,
        "token_budget": budget,
        "tokens_p50": float(np.percentile(tokens, 50)),
        "step_after_ms": after / 1000,
        "speedup": step / after,
        "tokens_per_s": f["concurrent_streams"] / (step * 1e-6),
        "tokens_per_s_after": f["concurrent_streams"] / (after * 1e-6),
    }
    reveal = _reveal(f, op)
    k = 2
    sync = next(e for e in syncs if e.start >= run.windows[k][0])
    hole = (run.steps[k + 1].window[0], run.steps[k + 1].first_kernel)
    annotations = [
        Annotation(0, CUDA_API, sync.start, sync.end, f"cudaStreamSynchronize ×{f['syncs_per_step']:.0f}/iteration"),
        Annotation(
            0, COMPUTE, *hole, f"GPU idle ~{ms(gap)} after each sync · {f['sync_gap_pct']:.0f}% of the iteration"
        ),
    ]
    return finish_served(signature, seed, difficulty, rng, setup, run, f, reveal, annotations)


def _reveal(f: dict[str, float], op: str) -> Reveal:
    step, gap, after = f["step_ms"] * 1000, f["sync_gap_ms"] * 1000, f["step_after_ms"] * 1000
    compute = f["compute_ms"] * 1000
    share = f"{f['sync_gap_pct']:.0f}%"
    return Reveal(
        headline="Sync stalls — every iteration reads its sampled tokens back with a blocking copy; the GPU drains "
        "and waits while Python schedules the next one.",
        read=(
            (
                "Step boundary",
                f"One scheduler iteration every ~{ms(step)}: {ms(compute)} of kernels, then a hole before the next "
                "iteration's first kernel.",
            ),
            (
                "Gaps",
                f"Each iteration ends with a Memcpy DtoH and a cudaStreamSynchronize under {op} on the CUDA API row "
                f"({f['syncs_per_step']:.0f} per iteration). The GPU then sits idle ~{ms(gap)} ({share} of the "
                "iteration) while the host processes the ids and schedules, and only then launches again.",
            ),
            (
                "Overlap",
                "Before the sync the launch row runs well ahead of the GPU; after it the queue is empty and the "
                "first kernels of the next iteration start right under their launches.",
            ),
            (
                "Top kernels",
                f"Kernel mix and durations are normal for {f['tokens_p50']:,.0f} tokens per iteration; the loss "
                "is between iterations, not in them.",
            ),
        ),
        wrong_hypothesis=(
            f"“The GPU is too slow — buy faster GPUs.” The kernels take {ms(compute)} of each {ms(step)} iteration; "
            f"the other ~{ms(gap)} is the GPU waiting for Python. Also rejected: “launch-bound” — kernels are long "
            "and the launch row runs ahead; the idle is one hole per iteration after the sync, not a gap between "
            "every pair of kernels. And “cudaMalloc” — the twin — the bar is cudaStreamSynchronize, not "
            "cudaMalloc/cudaFree."
        ),
        measurement=(
            f"Correlate each sync with the Python line above it (with_stack, or the {op} op): "
            f"{f['syncs_per_step']:.0f} sync per iteration, each followed by the hole. "
            "torch.cuda.set_sync_debug_mode('warn') names every implicit sync."
        ),
        fix=(
            "Remove the per-token .item(): keep the sampled ids on the GPU and feed them straight into the next "
            "iteration's inputs, copy them to pinned memory with non_blocking=True and wait on an event one "
            "iteration later, and run detokenize and scheduling while the next iteration executes — no "
            "data-dependent host branch between iterations."
        ),
        arithmetic=(
            f"~{ms(gap)} idle per iteration × 1 sync = {share} of a {ms(step)} iteration.",
            f"Before: {ms(step)}/iteration, {f['tokens_per_s']:,.0f} decode tokens/s. After: ≈ {ms(after)}/iteration, "
            f"{f['tokens_per_s_after']:,.0f} decode tokens/s → {f['speedup']:.2f}×; "
            f"ITL p50 {ms(f['itl_p50_ms'] * 1000)} → ~{ms(after)}.",
        ),
        spoken=(
            f"Iterations are ~{ms(step)}, but only {ms(compute)} of that is kernels. Every iteration ends with a "
            f"cudaStreamSynchronize under {op} — the engine reads the sampled tokens back synchronously — and the "
            f"GPU then idles ~{ms(gap)}, {share} of the iteration, while Python detokenizes and schedules. Not a "
            "slow GPU and not launch overhead: one hole per iteration, right after the sync. I'd confirm with "
            "sync debug mode, then keep the token ids on the GPU, copy them non-blocking and overlap the Python "
            f"with the next iteration: about {ms(after)} per iteration, {f['speedup']:.2f}× the tokens per second."
        ),
        tell=(
            "Its twin, the allocation stall, also shows an API bar followed by a GPU gap; the tell is which API: "
            f"here cudaStreamSynchronize under {op}, not cudaMalloc / cudaFree."
        ),
    )
