"""Finishing a pipeline drill: the figures every pipeline signature reports, and the scenario itself."""

from __future__ import annotations

import numpy as np

from .common import finish
from .model import Annotation, Context, Reveal, Scenario
from .pipeline import ideal_bubble_fraction
from .pipeline_run import PipeRun


def pipeline_figures(run: PipeRun) -> dict[str, float]:
    """The job's own figures and what the trace measures per stage, so the physics and every reveal number can be
    checked from scenario.json."""
    job, st = run.job, run.stats
    others = st.flash_fwd_us[1:]
    return {
        "params_b": job.model.params_b,
        "layers": job.model.blocks,
        "tokens_per_gpu": job.seq * job.micros,
        "memory_gb": job.memory_gb,
        "memory_capacity_gb": job.hw.memory_gb,
        "peak_tflops": job.hw.bf16_tflops,
        "stages": job.stages,
        "micro_batches": job.micros,
        "step_ms": st.step_us / 1000,
        "compute_ms": st.compute_us[0] / 1000,
        "kernels_per_step": st.kernels[0],
        "mfu_pct": 100 * job.mfu(st.step_us),
        "bubble_pct": 100 * float(np.mean(st.idle)),
        "ideal_bubble_pct": 100 * ideal_bubble_fraction(job.stages, job.micros),
        "stage0_idle_pct": 100 * st.idle[0],
        "stage_idle_min_pct": 100 * min(st.idle),
        "stage_idle_max_pct": 100 * max(st.idle),
        "stage_last_idle_pct": 100 * st.idle[-1],
        "imbalance": max(run.fwd_us) / float(np.mean(run.fwd_us)),
        "fwd_ms": run.fwd_us[0] / 1000,
        "bwd_ms": run.bwd_us[0] / 1000,
        "p2p_ms": job.p2p_us / 1000,
        "flash_fwd_stage0_ms": st.flash_fwd_us[0] / 1000,
        "flash_fwd_others_ms": float(np.median(others)) / 1000 if others else st.flash_fwd_us[0] / 1000,
    }


def finish_pipeline(
    signature: str,
    seed: int,
    difficulty: str,
    context: Context,
    run: PipeRun,
    figures: dict[str, float],
    reveal: Reveal,
    annotations: list[Annotation],
    metrics: bool = True,
) -> Scenario:
    """The scenario; `metrics=False` when the generator already added the GPU-metrics rows (to read them)."""
    return finish(
        signature,
        seed,
        difficulty,
        run.job.hw,
        context,
        run.ranks,
        "training",
        run.windows,
        figures,
        reveal,
        annotations,
        run.first_step,
        metrics=metrics,
    )
