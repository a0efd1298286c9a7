"""A memory-bound pipeline: micro-batches of a few dozen tokens, so every linear layer of a stage, split over TP=8,
is a skinny GEMM below the GPU's roofline ridge.

The memory_bound_kernel signature's drill in the pipeline family: the same job, words and kernels as a healthy
pipeline, m ≥ 8p micro-batches and even stages, so the timeline looks just as healthy. The finding is in the
GPU-metrics rows under the GEMMs (DRAM near peak, the tensor pipe low) and in the few bytes each send/recv carries
(the tokens per micro-batch). Each TP rank's MLP GEMMs are M × 4h/TP × h; far below the ridge they stream the
stage's weights once per micro-batch at 82–92 % of DRAM bandwidth, so they deliver intensity × bandwidth × that
fraction of FLOP/s — that share of the peak is how active the tensor pipe is.
"""

from __future__ import annotations

import numpy as np

from .busy import intensity
from .common import ms, pct, pick
from .counters import add_gpu_metrics, levels_under
from .figures import hta_view, top_kernels
from .model import Annotation, Rank, Reveal, Scenario, Trace
from .pipeline import ideal_bubble_fraction, schedule
from .pipeline_healthy import HEALTHY_MICROS
from .pipeline_job import TP, PipeJob, draw_pipe_job, pipeline_context
from .pipeline_run import STEP_GAP_US, MemoryBound, even_work, group_count, kernel_shares, run_pipeline, stage_spans
from .pipeline_scenario import finish_pipeline, pipeline_figures
from .served import GPU_FLOOR_US
from .sim import COMPUTE

TOKENS = (32, 48, 64, 96, 128)  # tokens per micro-batch: one short sequence each
# Tensor-active share of peak under the GEMMs, by difficulty: harder drills show less contrast with DRAM.
TENSOR = {"easy": (0.08, 0.2), "medium": (0.17, 0.3), "hard": (0.25, 0.38)}
DRAM = (0.82, 0.92)  # share of DRAM bandwidth a streaming skinny GEMM reaches
SM_ACTIVE = 0.86
FACTORS = (4, 8, 16, 32)  # tokens per micro-batch multiplied until the GEMMs sit above the ridge


def gemm_intensity(job: PipeJob, tokens: int) -> float:
    """FLOP per byte of one TP rank's MLP GEMM over `tokens` tokens: M × 4h/TP × h."""
    hidden = job.model.hidden
    return intensity(tokens, 4 * hidden // TP, hidden)


def _draw_tokens(rng: np.random.Generator, job: PipeJob, dram: float, difficulty: str) -> int:
    """Tokens per micro-batch whose GEMMs reach a tensor-active share in the difficulty's band on this GPU."""
    lo, hi = TENSOR[difficulty]
    level = {m: gemm_intensity(job, m) * dram / job.hw.ridge_flop_per_byte for m in TOKENS}
    inside = [m for m, t in level.items() if lo <= t <= hi]
    return int(pick(rng, inside)) if inside else min(TOKENS, key=lambda m: abs(level[m] - (lo + hi) / 2))


def _step_after(job: PipeJob) -> float:
    """The step time of `job` at the compute roofline (no memory-bound GEMMs), from the same 1F1B schedule."""
    fwd, bwd, opt = stage_spans(job, even_work(job))
    ops = schedule(job.stages, job.micros, fwd, bwd, job.p2p_us)
    ends = [max(op.end for op in ops if op.stage == s) + 20.0 for s in range(job.stages)]
    return max(e + o for e, o in zip(ends, opt, strict=True)) + STEP_GAP_US


def generate_membound(signature: str, rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    job = draw_pipe_job(rng)
    job = job.with_micros(int(pick(rng, HEALTHY_MICROS[job.stages])))
    context = pipeline_context(rng, job, difficulty)
    dram = float(rng.uniform(*DRAM))
    tokens = _draw_tokens(rng, job, dram, difficulty)
    job = job.with_seq(tokens)
    hw, hidden, p, m = job.hw, job.model.hidden, job.stages, job.micros
    ridge = hw.ridge_flop_per_byte
    ai = gemm_intensity(job, tokens)
    tensor = ai * dram / ridge
    blocks_per_group = job.model.blocks / p / group_count(job, kernel_shares(job))
    mb = MemoryBound(job.efficiency / tensor, (SM_ACTIVE, tensor, dram), GPU_FLOOR_US * blocks_per_group)
    run = run_pipeline(job, rng, even_work(job), mb)
    st = run.stats
    step = st.step_us
    factor = next((f for f in FACTORS if gemm_intensity(job, f * tokens) > ridge), FACTORS[-1])
    bigger = job.with_seq(factor * tokens)
    after = _step_after(bigger)
    gain = factor * step / after
    w = run.windows[1:]
    top = top_kernels(run.ranks[0], w, 1)[0]
    rows = _rows_under(run.ranks, top[0], w)
    gemm_us = sum(
        e.dur for e in run.ranks[0].kernels() if e.kind == "skinny_gemm" and w[0][0] <= e.start < w[-1][1]
    ) / len(w)
    gemm_tflops = 6.0 * job.params_per_gpu * tokens * m / (gemm_us * 1e-6) / 1e12  # stage 0: no LM head
    send_kb = job.p2p_bytes / 1024
    ideal = ideal_bubble_fraction(p, m)
    mfu, mfu_after = job.mfu(step), bigger.mfu(after)
    hta = hta_view(run.ranks[0], len(run.windows) - 1, run.windows)
    figures = pipeline_figures(run) | {
        "tokens_per_micro_batch": tokens,
        "send_kb": send_kb,
        "hidden": hidden,
        "gemm_n": 4 * hidden // TP,
        "arithmetic_intensity": ai,
        "ridge_flop_per_byte": ridge,
        "dram_pct": 100 * dram,
        "tensor_pct": 100 * tensor,
        "dram_row_pct": rows["DRAM Bandwidth %"],
        "tensor_row_pct": rows["Tensor Active %"],
        "gemm_ms_per_step": gemm_us / 1000,
        "gemm_tflops": gemm_tflops,
        "gemm_tb_per_s": gemm_tflops / ai,
        "weights_gb_per_gpu": 2.0 * job.params_per_gpu / 1e9,
        "top_kernel_share_pct": 100 * top[2],
        "gpu_busy_pct": 100 * st.compute_us[0] / step,
        "tokens_factor": factor,
        "tokens_after": factor * tokens,
        "intensity_after": gemm_intensity(job, factor * tokens),
        "step_after_ms": after / 1000,
        "speedup": gain,
        "mfu_after_pct": 100 * mfu_after,
        "kernel_efficiency_pct": 100 * job.efficiency,
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
    }
    reveal = _reveal(job, figures, dram, tensor, step, after, factor, mfu, ideal)
    dram_row, tensor_row = figures["dram_row_pct"], figures["tensor_row_pct"]
    annotations = [
        Annotation(
            0,
            COMPUTE,
            *w[0],
            f"{pct(top[2])} of GPU time in one GEMM · DRAM {dram_row:.0f}% · tensor {tensor_row:.0f}%",
        ),
        Annotation(0, "DRAM Bandwidth %", *w[0], f"DRAM ~{dram_row:.0f}% under the top GEMM"),
    ]
    return finish_pipeline(signature, seed, difficulty, context, run, figures, reveal, annotations, metrics=False)


def _rows_under(ranks: list[Rank], name: str, windows: list[tuple[float, float]]) -> dict[str, float]:
    """Add every rank's GPU-metrics rows (as finishing the scenario would) and read stage 0's under kernel `name`
    in the steady steps: the levels the reveal quotes are the rows' own."""
    end = Trace(ranks, "training", windows).end
    for rank in ranks:
        add_gpu_metrics(rank, (0.0, end))
    lo, hi = windows[0][0], windows[-1][1]
    return levels_under(
        ranks[0], [(e.start, e.end) for e in ranks[0].kernels() if e.name == name and lo <= e.start < hi]
    )


def _reveal(
    job: PipeJob,
    f: dict[str, float],
    dram: float,
    tensor: float,
    step: float,
    after: float,
    factor: int,
    mfu: float,
    ideal: float,
) -> Reveal:
    hw, hidden, p, m, tokens = job.hw, job.model.hidden, job.stages, job.micros, job.seq
    ai, ridge, n = f["arithmetic_intensity"], f["ridge_flop_per_byte"], int(f["gemm_n"])
    more, ai_after, gain = factor * tokens, f["intensity_after"], f["speedup"]
    dram_t, tensor_t = f"{100 * dram:.0f}%", f"{100 * tensor:.0f}%"  # the kernel's own, as ncu reports them
    dram_row, tensor_row = f"{f['dram_row_pct']:.0f}%", f"{f['tensor_row_pct']:.0f}%"  # the sampled rows
    return Reveal(
        headline=f"Memory-bound dominant kernel — {tokens}-token micro-batches make every GEMM skinny: DRAM pinned, "
        "the tensor pipe mostly idle, below the roofline ridge.",
        read=(
            (
                "Step boundary",
                f"A steady {ms(step)} step; {m} 'forward micro-batch' NVTX ranges per step on each of the {p} "
                f"stages: m={m}, p={p}, so the 1F1B fill and drain are thin ({pct(ideal)}).",
            ),
            (
                "Gaps",
                f"Stages idle {f['stage_idle_min_pct']:.0f}–{f['stage_idle_max_pct']:.0f}% of the step: the fill and "
                "drain, and the send/recv latency each small micro-batch waits on; in between, micro-batches run back "
                "to back and every stage runs the same kernels in the same time. The timeline says 'busy'.",
            ),
            (
                "Overlap",
                f"Each send/recv carries {f['send_kb']:.0f} KiB in {ms(job.p2p_us)}: {tokens} tokens × {hidden} × "
                f"2 B ÷ TP=8 — tiny micro-batches.",
            ),
            (
                "Top kernels",
                f"One GEMM takes {pct(f['top_kernel_share_pct'] / 100)} of kernel time. Under it the GPU-metrics "
                f"rows show DRAM bandwidth at ~{dram_row} of peak and tensor-active at only ~{tensor_row}: the "
                "GEMMs wait on memory, not math.",
            ),
        ),
        wrong_hypothesis=(
            f"“m={m} micro-batches, thin wedges, even stages: a healthy pipeline, nothing to fix.” The schedule is "
            "fine; the kernels are not. A compute-bound GEMM keeps the tensor pipe busy; under these the row reads "
            f"~{tensor_row} while DRAM is pinned. More micro-batches or an interleaved schedule cannot touch time "
            "spent inside a kernel."
        ),
        measurement=(
            f"ncu on the top GEMM: dram__throughput ≈ {dram_t} of peak vs tensor pipe ≈ {tensor_t}. The shape "
            f"explains it: each TP rank's MLP GEMM is M={tokens} × N={n} × K={hidden}, {ai:.0f} FLOP/B, below the "
            f"{hw.name} ridge of {ridge:.0f} FLOP/B ({hw.bf16_tflops:.0f} TFLOP/s ÷ {hw.hbm_gbps / 1000:.2f} TB/s): "
            f"every micro-batch streams the stage's {f['weights_gb_per_gpu']:.1f} GB of weights per GPU for "
            f"{tokens} tokens. From the trace: stage 0's GEMMs take {f['gemm_ms_per_step']:.0f} ms a step for "
            f"{f['gemm_tflops']:.0f} TFLOP/s, {f['gemm_tb_per_s']:.2f} TB/s of weights and activations."
        ),
        fix=(
            f"Raise the tokens per micro-batch: pack {factor} sequences into each (M={more}, {ai_after:.0f} FLOP/B, "
            f"above the ridge) and keep m={m}, so the fill and drain stay thin — a global batch {factor}× the tokens, "
            "so retune the learning rate. Fewer, larger micro-batches at the same global batch would bring the "
            "bubble back instead."
        ),
        arithmetic=(
            f"Intensity at M={tokens}: 2·M·N·K ÷ 2(MK+KN+MN) = {ai:.0f} FLOP/B vs the ridge {ridge:.0f}; at "
            f"~{dram_t} of {hw.hbm_gbps / 1000:.2f} TB/s that is ~{tensor_t} of peak.",
            f"Before: {ms(step)}/step, MFU {100 * mfu:.0f}%.",
            f"After (M={more}, m={m}): ≈ {ms(after)}/step for {factor}× the tokens → {gain:.1f}× throughput, "
            f"MFU ≈ {f['mfu_after_pct']:.0f}%.",
        ),
        spoken=(
            f"{p} stages and {m} micro-batches a step, thin wedges, every stage the same: the timeline passes. But "
            f"MFU is {100 * mfu:.0f}%, so the loss is inside kernels. The top GEMM is "
            f"{pct(f['top_kernel_share_pct'] / 100)} of GPU time, and the metrics rows under it show DRAM at "
            f"~{dram_row} and tensor-active at ~{tensor_row}: memory-bound. The sends say why: "
            f"{f['send_kb']:.0f} KiB is {tokens} tokens a micro-batch, so each TP rank's GEMM has M={tokens}, "
            f"{ai:.0f} FLOP per byte against a ridge of {ridge:.0f}. I'd confirm in ncu and pack {factor} sequences "
            f"per micro-batch: about {gain:.1f}× the throughput."
        ),
        tell=(
            "Its near-twin, the healthy pipeline, looks just as busy with the same kernels; the tell is in the "
            "GPU-metrics rows — here DRAM is pinned near peak and tensor-active is low under the dominant GEMM — "
            "and in the small send/recv messages."
        ),
    )
