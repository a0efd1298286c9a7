"""Pipeline-parallel bubbles: 1F1B fill and drain leave idle wedges on every stage."""

from __future__ import annotations

import numpy as np

from ..common import ms, pct, pick
from ..figures import compute_stream_gaps, hta_view
from ..model import Annotation, Reveal, Scenario
from ..pipeline import ideal_bubble_fraction, schedule
from ..pipeline_job import draw_pipe_job, pipeline_context
from ..pipeline_run import even_work, run_pipeline, with_heavy_stage
from ..pipeline_scenario import finish_pipeline, pipeline_figures
from ..sim import COMPUTE

ID = "pipeline_bubbles"
TITLE = "Pipeline bubbles"
SUMMARY = "Pipeline-parallel fill/drain: idle wedges on every stage, bubble ≈ (p−1)/(m+p−1)."
TWIN = None


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    job = draw_pipe_job(rng)
    stages = job.stages
    micros = {
        "easy": stages,
        "medium": int(pick(rng, (stages + 2, 2 * stages))),
        "hard": int(pick(rng, (2 * stages, 3 * stages))),
    }[difficulty]
    job = job.with_micros(micros)
    context = pipeline_context(rng, job, difficulty)
    work = even_work(job)
    heavy = None
    if difficulty == "hard":  # one middle stage holds more blocks (an uneven layer split) besides the LM head
        heavy = int(rng.integers(1, stages - 1))
        work = with_heavy_stage(work, heavy, float(rng.uniform(1.15, 1.3)))
    run = run_pipeline(job, rng, work)
    st = run.stats
    step_us = st.step_us
    bubble = st.idle
    measured = float(np.mean(bubble))
    ideal = ideal_bubble_fraction(stages, micros)
    more = 4 * micros
    # The same micro-batches, four times as many per step (a bigger global batch, or gradient accumulation):
    # the fill and drain are paid once per step, so the time per micro-batch falls.
    after_ops = schedule(stages, more, run.fwd_us, run.bwd_us, job.p2p_us)
    after = max(op.end for op in after_ops) + max(run.opt_us) + 520.0
    per_micro, per_micro_after = step_us / micros, after / more
    hta = hta_view(run.ranks[0], len(run.windows) - 1, run.windows)
    figures = pipeline_figures(run) | {
        "micro_batches_after": more,
        "ideal_bubble_after_pct": 100 * ideal_bubble_fraction(stages, more),
        "step_after_ms": after / 1000,
        "per_micro_ms": per_micro / 1000,
        "per_micro_after_ms": per_micro_after / 1000,
        "speedup": per_micro / per_micro_after,
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
        "heavy_stage_factor": run.fwd_us[heavy] / run.fwd_us[0] if heavy is not None else 1.0,
        "heavy_kernel_factor": st.kernels[heavy] / st.kernels[0] if heavy is not None else 1.0,
        "flash_fwd_heavy_ms": st.flash_fwd_us[heavy] / 1000 if heavy is not None else st.flash_fwd_us[0] / 1000,
    }
    heavy_text = (
        f" Stage {heavy}'s forward takes {figures['heavy_stage_factor']:.2f}× stage 0's: it launches "
        f"{figures['heavy_kernel_factor']:.2f}× the kernels per step, each as long as on stage 0 (attention forward "
        f"{ms(st.flash_fwd_us[heavy])} there, {ms(st.flash_fwd_us[0])} on stage 0). It holds more blocks, so "
        "imbalance adds to the bubble."
        if heavy is not None
        else ""
    )
    worse = measured > ideal * 1.08
    reveal = Reveal(
        headline=f"Pipeline bubbles — 1F1B fill and drain leave the stages idle {pct(min(bubble))}–"
        f"{pct(max(bubble))} of the step (mean {pct(measured)}).",
        read=(
            (
                "Step boundary",
                f"A {ms(step_us)} step on every stage, ending in the optimizer; {micros} 'forward micro-batch' "
                f"NVTX ranges per step on each of the {stages} stages: m={micros}, p={stages}.",
            ),
            (
                "Gaps",
                f"Idle wedges on every stage, shaped like the 1F1B diagram: later stages wait at the start "
                f"for their first activations (fill), earlier ones at the end for gradients (drain). Stage 0 "
                f"is idle {pct(bubble[0])} of the step, stage {stages - 1} {pct(bubble[-1])}.",
            ),
            (
                "Overlap",
                f"Send/recv between stages is short ({ms(job.p2p_us)}); comm is not the problem, the schedule is.",
            ),
            (
                "Per-stage work",
                f"F ≈ {ms(run.fwd_us[0])}, B ≈ {ms(run.bwd_us[0])} per micro-batch on stage 0.{heavy_text}",
            ),
        ),
        wrong_hypothesis=(
            "“Send/recv is slow — tune NCCL P2P.” The SendRecv kernels are a fraction of a millisecond; the idle "
            "time is where a stage has no micro-batch to work on, which is the schedule's shape, not the wire."
        ),
        measurement=(
            f"Bubble fraction from the trace: {pct(measured)} per stage vs (p−1)/(m+p−1) = "
            f"({stages}−1)/({micros}+{stages}−1) = {pct(ideal)}, with m counted from the NVTX ranges. "
            + (
                "Bigger than predicted → also imbalanced stages; compare per-stage F/B durations."
                if worse
                else "It matches the formula: the bubble is the schedule itself."
            )
        ),
        fix=(
            f"More micro-batches per step (m={micros} → {more}: a bigger global batch or more gradient-accumulation "
            "micro-batches), an interleaved 1F1B or zero-bubble schedule, and rebalance layers across stages."
        ),
        arithmetic=(
            f"Ideal bubble: {pct(ideal)} at m={micros} → {pct(ideal_bubble_fraction(stages, more))} at m={more}.",
            f"Before: {ms(step_us)}/step for {micros} micro-batches = {ms(per_micro)} each. After (m={more}): "
            f"≈ {ms(after)}/step = {ms(per_micro_after)} each → {per_micro / per_micro_after:.2f}× throughput.",
        ),
        spoken=(
            f"{stages} pipeline stages, and the NVTX ranges count {micros} micro-batches per {ms(step_us)} step. "
            f"Every stage shows idle wedges at the start and the end of the step — about {pct(measured)} of the "
            f"time. That's the 1F1B fill and drain: (p−1)/(m+p−1) predicts {pct(ideal)}, and the trace "
            + ("is worse, so the stages are imbalanced too" if worse else "matches it")
            + f". Send/recv is tiny, so it's not the wire. With {more} micro-batches per step the bubble drops to "
            f"{pct(ideal_bubble_fraction(stages, more))}: {per_micro / per_micro_after:.2f}× the throughput; "
            "interleaving shrinks it further."
        ),
        tell=(
            "Idle wedges shaped like the 1F1B diagram, per stage, at fill and drain, and few micro-batches per step. "
            "A slow stage instead runs the same kernels longer than its peers; a healthy pipeline has many "
            "micro-batches and thin wedges."
        ),
    )
    w = run.windows[1]
    fill = max(compute_stream_gaps(run.ranks[0], w), key=lambda g: g[1] - g[0])
    drain = max(compute_stream_gaps(run.ranks[-1], w), key=lambda g: g[1] - g[0])
    annotations = [
        Annotation(
            0,
            COMPUTE,
            *fill,
            f"stage 0 waits {ms(fill[1] - fill[0])} for the first gradients (bubble {pct(bubble[0])} of the step)",
        ),
        Annotation(stages - 1, COMPUTE, *drain, f"bubble {pct(measured)} vs ideal (p−1)/(m+p−1) = {pct(ideal)}"),
    ]
    return finish_pipeline(ID, seed, difficulty, context, run, figures, reveal, annotations)
