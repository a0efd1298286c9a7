"""A straggler stage: one stage's GPUs run the same kernels slower (a throttled clock) while m is adequate, so
every other stage waits for it on every micro-batch.

The straggler signature's drill in the pipeline family: the same job, words and kernels as a healthy or bubbly
pipeline; the per-stage kernel times are the finding."""

from __future__ import annotations

import numpy as np

from .common import by_difficulty, ms, pct, pick
from .figures import hta_view
from .model import Annotation, Reveal, Scenario
from .pipeline import ideal_bubble_fraction, schedule
from .pipeline_job import draw_pipe_job, pipeline_context
from .pipeline_run import STEP_GAP_US, even_work, run_pipeline
from .pipeline_scenario import finish_pipeline, pipeline_figures
from .sim import COMPUTE

STRAGGLER_MICROS = {4: (24, 32), 8: (48, 64)}  # 6p or 8p: the schedule alone would idle ≤ 13%


def generate_straggler(signature: str, rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    job = draw_pipe_job(rng)
    job = job.with_micros(int(pick(rng, STRAGGLER_MICROS[job.stages])))
    context = pipeline_context(rng, job, difficulty)
    slow = by_difficulty(difficulty, (1.3, 1.4), (1.2, 1.3), (1.15, 1.2), rng)
    # Any stage but the last, whose blocks are fewer to make room for the LM head: its kernels are not the others'.
    culprit = int(rng.integers(job.stages - 1))
    run = run_pipeline(job, rng, even_work(job, {culprit: slow}))
    st = run.stats
    p, m = job.stages, job.micros
    step = st.step_us
    others = [s for s in range(p) if s != culprit]
    flash_c = st.flash_fwd_us[culprit]
    flash_o = float(np.median([st.flash_fwd_us[s] for s in others]))
    ratio = flash_c / flash_o
    fwd = [f / slow if s == culprit else f for s, f in enumerate(run.fwd_us)]
    bwd = [b / slow if s == culprit else b for s, b in enumerate(run.bwd_us)]
    after_ops = schedule(p, m, fwd, bwd, job.p2p_us)
    after = max(op.end for op in after_ops) + 20.0 + max(run.opt_us) / slow + STEP_GAP_US
    ideal = ideal_bubble_fraction(p, m)
    idle_others = [st.idle[s] for s in others]
    clock = job.hw.sm_clock_mhz
    mfu, mfu_after = job.mfu(step), job.mfu(after)
    hta = hta_view(run.ranks[0], len(run.windows) - 1, run.windows)
    figures = pipeline_figures(run) | {
        "straggler_stage": culprit,
        "flash_fwd_slow_ms": flash_c / 1000,
        "flash_fwd_peers_ms": flash_o / 1000,
        "kernel_ratio": ratio,
        "kernels_slow_stage": st.kernels[culprit],
        "kernels_peer_stage": st.kernels[others[0]],
        "slow_stage_idle_pct": 100 * st.idle[culprit],
        "others_idle_min_pct": 100 * min(idle_others),
        "others_idle_max_pct": 100 * max(idle_others),
        "step_after_ms": after / 1000,
        "speedup": step / after,
        "mfu_after_pct": 100 * mfu_after,
        "sm_clock_mhz": clock,
        "throttled_clock_mhz": clock / ratio,
        "clock_ratio": 1 / ratio,
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
    }
    reveal = Reveal(
        headline=f"Straggler — stage {culprit}'s GPU runs the same kernels {ratio:.2f}× slower; every other stage "
        "waits for it on every micro-batch.",
        read=(
            (
                "Step boundary",
                f"A {ms(step)} step; {m} 'forward micro-batch' NVTX ranges per step on each of the {p} stages: "
                f"m={m}, p={p}.",
            ),
            (
                "Gaps",
                f"The other stages idle {pct(min(idle_others))}–{pct(max(idle_others))} of the step in short gaps "
                f"before each micro-batch, all through the step, not only at fill and drain; stage {culprit} idles "
                f"{pct(st.idle[culprit])}.",
            ),
            (
                "Overlap",
                f"Send/recv takes {ms(job.p2p_us)}: the wire is not slow; the peers wait for stage {culprit}'s "
                "activations and gradients to be ready to send.",
            ),
            (
                "Per-stage kernels",
                f"The same attention-forward kernel takes {ms(flash_c)} on stage {culprit} vs {ms(flash_o)} on "
                f"the others ({ratio:.2f}×), with the same kernels per step ({st.kernels[culprit]:.0f} vs "
                f"{st.kernels[others[0]]:.0f}): same work, a slower GPU.",
            ),
        ),
        wrong_hypothesis=(
            f"“Pipeline bubbles — add micro-batches or interleave.” With m={m}, (p−1)/(m+p−1) = {pct(ideal)}, "
            f"but the peers idle {pct(min(idle_others))}–{pct(max(idle_others))}, spread over every micro-batch. "
            f"More micro-batches would each wait on stage {culprit} again; nor is it imbalanced layers, which "
            "would launch more kernels, not the same kernels slower."
        ),
        measurement=(
            f"Per-stage kernel times: the same kernel {ratio:.2f}× longer on stage {culprit} with equal kernel "
            f"counts (HTA or one trace per stage). Then DCGM / nvidia-smi -q -d PERFORMANCE,CLOCK on stage "
            f"{culprit}'s node: SM clock ~{clock / ratio:,.0f} MHz vs {clock:,} MHz on its peers and a thermal or "
            "power throttle reason (or ECC row remapping)."
        ),
        fix=(
            f"Fix stage {culprit}'s node, not the schedule: cooling/power, swap the GPU, or drain the node and "
            "reschedule the job. No micro-batch, schedule or NCCL change. Add a per-stage step-time alert."
        ),
        arithmetic=(
            f"Stage {culprit} at {clock / ratio:,.0f}/{clock:,} MHz ≈ {1 / ratio:.2f} of the clock ≈ the "
            f"{ratio:.2f}× kernel ratio.",
            f"Before: {ms(step)}/step, MFU {100 * mfu:.0f}%.",
            f"After: stage {culprit} at its peers' speed → ≈ {ms(after)}/step, {step / after:.2f}× throughput, "
            f"MFU ≈ {100 * mfu_after:.0f}%.",
        ),
        spoken=(
            f"{p} stages, {m} micro-batches a step from the NVTX ranges, so the schedule alone would idle "
            f"{pct(ideal)}. But the other stages idle up to {pct(max(idle_others))}, in small gaps before every "
            f"micro-batch. Per-stage kernel times: stage {culprit} runs the same attention kernel in {ms(flash_c)} "
            f"vs {ms(flash_o)} elsewhere, same kernel count — a slower GPU, not more work. I'd check its clocks "
            f"in DCGM for throttling and fix the node; step goes {ms(step)} to about {ms(after)}."
        ),
        tell=(
            "Bubbles idle at fill and drain with few micro-batches; imbalanced layers launch more kernels on one "
            "stage. Here the same kernels run longer on one stage and its peers wait on every micro-batch."
        ),
    )
    w = run.windows[1]
    peer = others[0]
    annotations = [
        Annotation(culprit, COMPUTE, w[0], w[1], f"stage {culprit}: attention forward {ms(flash_c)}"),
        Annotation(peer, COMPUTE, w[0], w[1], f"stage {peer}: {ms(flash_o)}, idle {pct(st.idle[peer])}"),
    ]
    return finish_pipeline(signature, seed, difficulty, context, run, figures, reveal, annotations)
