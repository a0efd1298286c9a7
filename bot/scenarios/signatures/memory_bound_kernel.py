"""A busy timeline whose dominant kernel is a skinny GEMM, pinned on DRAM bandwidth below the ridge."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..busy import EFFICIENCY, busy_pair_ok, busy_program, intensity, skinny_shapes
from ..common import Model, TrainingSetup, by_difficulty, ms, pct, pick, setup_figures
from ..dp import finish_training, run_dp
from ..families import (
    PIPELINE,
    TRAINING_WORLDS,
    draw_family,
    family_gpus,
    family_models,
    family_pair_ok,
    setup_context,
)
from ..figures import hta_view, top_kernels
from ..model import Annotation, Hardware, Reveal, Scenario
from ..pipeline_membound import generate_membound
from ..sim import COMPUTE
from ..training import program_kernel_us

ID = "memory_bound_kernel"
TITLE = "Memory-bound dominant kernel"
SUMMARY = "The top kernel is bandwidth-bound: DRAM near peak, tensor pipe low, intensity below the ridge."
TWIN = "healthy"


def _draw_pair(rng: np.random.Generator, family: str) -> tuple[Hardware, Model]:
    """A GPU and model drawn as the family draws them for every signature (the healthy twin included)."""
    pair_ok = family_pair_ok(family) or busy_pair_ok
    for _ in range(500):
        hw, model = pick(rng, family_gpus(family)), pick(rng, family_models(family))
        if pair_ok(hw, model):
            return hw, model
    raise RuntimeError(f"no GPU/model pair of {family} can host a memory-bound step")  # a table error


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    workload = draw_family(rng, ID)
    if workload == PIPELINE:
        return generate_membound(ID, rng, difficulty, seed)
    hw, model = _draw_pair(rng, workload)
    hidden = model.hidden
    ridge = hw.ridge_flop_per_byte
    # With M tokens per call every linear layer is the same skinny shape, below the ridge; the efficiency is
    # capped so each kernel still outlasts its launch (skinny_shapes), else the step would be launch-bound.
    m, eff_max = pick(rng, skinny_shapes(hw, model))
    eff = float(rng.uniform(EFFICIENCY[0], eff_max))
    compute_us = 6.0 * model.params_b * 1e9 * m / (hw.bf16_tflops * 1e12 * eff) * 1e6
    factor = 4 if intensity(4 * m, hidden, hidden) > ridge else 8
    setup = TrainingSetup(hw, int(pick(rng, TRAINING_WORLDS)), model, m, 1, compute_us, eff)
    plan = busy_program(setup, rng, allow_resize=False)
    tensor = by_difficulty(difficulty, (0.14, 0.2), (0.2, 0.26), (0.26, 0.32), rng)
    dram = float(rng.uniform(0.82, 0.92))
    slow = eff / tensor  # how much longer the family runs than it would at the compute roofline
    # With M tokens per call every linear layer is the same skinny shape: all the GEMMs are memory-bound.
    # Same kernel names as the healthy twin (cuBLAS picks from the same few tiles): the tell is in the
    # GPU-metrics rows under the kernel, not in its name.
    program = [
        replace(op, us=op.us * slow, metric="skinny_gemm", levels=(0.86, tensor, dram))
        if op.kind == "kernel" and op.metric == "gemm"
        else op
        for op in plan.program
    ]
    family_us = program_kernel_us([op for op in program if op.levels is not None])
    run = run_dp(setup, rng, program, with_nccl=plan.with_comm, compiled=True, distractors=difficulty == "hard")
    rank = run.ranks[0]
    b = run.rank0
    step = b["step_us"]
    mfu = setup.mfu(step)
    top = top_kernels(rank, run.windows[0], 1)[0]
    after = step - family_us * (1.0 - 1.0 / slow)
    ai, ai_after = intensity(m, hidden, hidden), intensity(factor * m, hidden, hidden)
    gemm_flops = 2.0 * m * hidden * hidden
    gemm_bytes = 2.0 * (m * hidden * 2 + hidden * hidden)
    hta = hta_view(rank, len(run.windows[0]) - 1, run.windows[0])
    figures = {
        **setup_figures(setup),
        "step_ms": step / 1000,
        "compute_ms": b["compute_us"] / 1000,
        "gpu_busy_pct": 100 * b["compute_us"] / step,
        "gpu_idle_pct": 100 * b["idle_us"] / step,
        "top_kernel_share_pct": 100 * top[2],
        "top_kernel_ms_per_step": top[1] / 1000,
        "dram_pct": 100 * dram,
        "tensor_pct": 100 * tensor,
        "gemm_m": m,
        "gemm_n": hidden,
        "gemm_k": hidden,
        "arithmetic_intensity": ai,
        "ridge_flop_per_byte": ridge,
        "intensity_after": ai_after,
        "microbatch_factor": factor,
        "family_speedup": slow,
        "step_after_ms": after / 1000,
        "mfu_pct": 100 * mfu,
        "mfu_after_pct": 100 * mfu * step / after,
        "kernels_per_step": b["kernels"],
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
    }
    context = setup_context(rng, workload, setup, difficulty)
    share = top[2]
    overlap_text = (
        f"The {b['collectives']:.0f} bucketed all-reduces per step hide under backward "
        f"({ms(b['comm_exposed_us'])} exposed); nothing serialised."
        if plan.with_comm
        else "A gradient-accumulation micro-step: no collective in this step, nothing serialised."
    )
    figures |= {
        "gemm_gflop": gemm_flops / 1e9,
        "gemm_mb": gemm_bytes / 1e6,
        "kernel_efficiency_pct": 100 * eff,
        "family_ms": family_us / 1000,
        "family_after_ms": family_us / slow / 1000,
    }
    reveal = Reveal(
        headline="Memory-bound dominant kernel — a skinny GEMM pinned on DRAM bandwidth, below the roofline ridge.",
        read=(
            ("Step boundary", f"A steady {ms(step)} step."),
            (
                "Gaps",
                f"None worth having: the compute stream is {figures['gpu_busy_pct']:.0f}% busy. The "
                "timeline alone says only that the GPU is 'busy'.",
            ),
            ("Overlap", overlap_text),
            (
                "Top kernels",
                f"One GEMM family dominates: {pct(share)} of kernel time ({ms(top[1])} a step). Under it "
                f"the GPU-metrics rows show DRAM bandwidth at ~{100 * dram:.0f}% of peak and tensor-active "
                f"at only ~{100 * tensor:.0f}% — the kernel is waiting on memory, not math.",
            ),
        ),
        wrong_hypothesis=(
            "“The timeline is wall-to-wall, so it's healthy and the MFU math must be wrong.” Packed is not "
            f"productive: a healthy GEMM keeps the tensor pipe busy, this one runs it at {100 * tensor:.0f}% while "
            "DRAM is pinned. No scheduling fix (overlap, graphs, workers) touches time spent inside a kernel."
        ),
        measurement=(
            f"ncu on the top GEMM: dram__throughput ≈ {100 * dram:.0f}% of peak vs tensor pipe ≈ {100 * tensor:.0f}%. "
            f"The shape explains it: M={m}, N=K={hidden} gives {2 * m * hidden * hidden / 1e9:.1f} GFLOP over "
            f"{gemm_bytes / 1e6:.1f} MB = {ai:.0f} FLOP/B, below the {hw.name} ridge of {ridge:.0f} FLOP/B "
            f"({hw.bf16_tflops:.0f} TFLOP/s ÷ {hw.hbm_gbps / 1000:.2f} TB/s). Microbenchmark the same GEMM at "
            f"M={factor * m} to see the TFLOP/s jump."
        ),
        fix=(
            f"Raise the intensity: micro-batch 1 → {factor} (or repack sequences) so M={factor * m}, "
            f"{ai_after:.0f} FLOP/B — above the ridge, compute-bound. Or move fewer bytes: fuse, lower precision."
        ),
        arithmetic=(
            f"The family runs {slow:.1f}× slower than at the compute roofline ({100 * eff:.0f}% vs "
            f"{100 * tensor:.0f}% tensor-active).",
            f"Before: {ms(step)} a step, MFU {100 * mfu:.0f}%.",
            f"After: {ms(family_us)} of that family shrinks to {ms(family_us / slow)} per equivalent step → "
            f"{ms(after)}, MFU ≈ {figures['mfu_after_pct']:.0f}%.",
            f"(GEMM FLOPs {gemm_flops / 1e9:.1f} G; verify end to end — attention scales differently.)",
        ),
        spoken=(
            f"I run the read and the timeline passes: {ms(step)} steps, no gaps, nothing serialised. But "
            f"{100 * mfu:.0f}% MFU with a wall-to-wall timeline means the loss is inside kernels. The top GEMM "
            f"family is {pct(share)} of GPU time, and the metrics rows under it show DRAM at ~{100 * dram:.0f}% "
            f"and tensor-active at ~{100 * tensor:.0f}% — memory-bound. The shape says why: M={m} gives "
            f"{ai:.0f} FLOP per byte against a ridge of {ridge:.0f}. I'd confirm in ncu, then raise the "
            f"micro-batch to {factor}: M={factor * m}, {ai_after:.0f} FLOP/B, compute-bound — about "
            f"{ms(step)} to {ms(after)} per equivalent step, MFU to about {figures['mfu_after_pct']:.0f}%."
        ),
        tell=(
            "Its near-twin, the healthy trace, looks just as busy; the tell is in the GPU-metrics rows — here DRAM "
            "bandwidth is pinned near peak and tensor-active is low under the dominant kernel."
        ),
    )
    w = run.windows[0][1]
    longest = max(
        (e for e in rank.kernels() if e.kind == "skinny_gemm" and w[0] <= e.start < w[1]), key=lambda e: e.dur
    )
    annotations = [
        Annotation(
            0,
            COMPUTE,
            longest.start,
            longest.end,
            f"{pct(share)} of GPU time · DRAM {100 * dram:.0f}% · tensor {100 * tensor:.0f}%",
        ),
        Annotation(0, "DRAM Bandwidth %", w[0], w[1], f"DRAM ~{100 * dram:.0f}% of peak under the top GEMM"),
    ]
    return finish_training(ID, seed, difficulty, hw, context, run, figures, reveal, annotations)
