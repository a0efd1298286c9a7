"""Gradient all-reduce serialised after backward: one monolithic collective, compute idle under it."""

from __future__ import annotations

import numpy as np

from ..comm import comm_context, comm_share_plan, draw_comm_setup
from ..common import by_difficulty, ddp_buckets, gb, ms, pct, setup_figures
from ..dp import finish_training, run_dp
from ..families import draw_family
from ..figures import hta_view
from ..kernels import nccl_allreduce
from ..model import Annotation, Category, Reveal, Scenario
from ..sim import COMPUTE, NCCL
from ..training import Op, transformer_program

ID = "unoverlapped_allreduce"
TITLE = "Unoverlapped gradient all-reduce"
SUMMARY = "The gradient all-reduce runs after backward, serialised, instead of bucketed under it."
TWIN = "straggler"
HIDDEN_FRACTION = 0.85  # overlapped comm contends for SMs and HBM: assume ~85% of it hides


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    family = draw_family(rng, ID)
    setup = draw_comm_setup(rng, family)
    share = by_difficulty(difficulty, (0.25, 0.35), (0.17, 0.25), (0.11, 0.16), rng)
    setup, _, xfer = comm_share_plan(setup, share, rng, (0.35, 0.75))
    program = transformer_program(setup.hw, rng, layers=setup.model.blocks, compute_us=setup.compute_us)
    barrier = next(i for i, op in enumerate(program) if op.kind == "barrier")
    program.insert(barrier, Op("bucket", nccl_allreduce(setup.grad_bytes), xfer, "nccl", int(setup.grad_bytes)))
    run = run_dp(setup, rng, program, simulated_ranks=setup.world, distractors=difficulty == "hard")
    b = run.rank0
    step = b["step_us"]
    comm = b["comm_us"]
    exposed = b["comm_exposed_us"]
    compute = b["compute_us"]
    backward = 2.0 / 3.0 * setup.compute_us
    hidden_after = min(comm, backward) * HIDDEN_FRACTION
    after = step - hidden_after
    implied_busbw = 2.0 * (setup.world - 1) / setup.world * setup.grad_bytes / (comm * 1e-6) / 1e9
    per_rank = [rb["compute_us"] for rb in run.breakdown]
    mfu, mfu_after = setup.mfu(step), setup.mfu(after)
    buckets = ddp_buckets(setup.grad_bytes)
    hta = hta_view(run.ranks[0], len(run.windows[0]) - 1, run.windows[0])
    figures = {
        **setup_figures(setup),
        "step_ms": step / 1000,
        "compute_ms": compute / 1000,
        "backward_ms": backward / 1000,
        "comm_ms": comm / 1000,
        "comm_exposed_ms": exposed / 1000,
        "comm_exposed_pct": 100 * exposed / step,
        "comm_hidden_pct": 100 * (1 - exposed / comm),
        "gpu_idle_pct": 100 * b["idle_us"] / step,
        "collectives_per_step": b["collectives"],
        "expected_buckets": buckets,
        "grad_gb": setup.grad_bytes / 1e9,
        "busbw_gbps": implied_busbw,
        "rank_compute_spread_pct": 100 * (max(per_rank) / min(per_rank) - 1),
        "step_after_ms": after / 1000,
        "speedup": step / after,
        "mfu_pct": 100 * mfu,
        "mfu_after_pct": 100 * mfu_after,
        "world_size": setup.world,
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
    }
    context = comm_context(rng, family, setup, difficulty)
    hidden_text = "none" if exposed >= 0.995 * comm else f"only {pct(1 - exposed / comm)}"
    moved = 2.0 * (setup.world - 1) / setup.world * setup.grad_bytes
    figures |= {
        "moved_gb": moved / 1e9,
        "assumed_hidden_pct": 100 * HIDDEN_FRACTION,
        "comm_exposed_after_ms": (comm - hidden_after) / 1000,
        "rank_compute_min_ms": min(per_rank) / 1000,
        "rank_compute_max_ms": max(per_rank) / 1000,
    }
    reveal = Reveal(
        headline="Unoverlapped all-reduce — the gradient all-reduce is serialised after backward instead of "
        "bucketed under it.",
        read=(
            ("Step boundary", f"ProfilerStep# gives a steady {ms(step)} period on every rank."),
            (
                "Gaps",
                f"The compute stream is idle for {ms(exposed)} at the end of each backward — "
                f"{pct(exposed / step)} of the step — while the NCCL stream runs one long all-reduce for "
                "exactly that window. Not starvation: serialised communication.",
            ),
            (
                "Overlap",
                f"This is the finding. {b['collectives']:.0f} all-reduce per step, starting after "
                f"backward ends; {hidden_text} of it runs under compute. DDP should fire "
                f"bucket-sized all-reduces during backward (bucket_cap_mb=25 → ~{buckets} buckets).",
            ),
            (
                "Top kernels",
                f"Every rank shows the same compute ({ms(min(per_rank))}–{ms(max(per_rank))}) and the "
                "same collective: no rank is late, so this is not a straggler.",
            ),
        ),
        wrong_hypothesis=(
            f"“NCCL is slow — check NVLink, retune NCCL.” Do the math first: {gb(setup.grad_bytes)} of BF16 "
            f"gradients, a ring moves 2(N−1)/N × that = {gb(moved)} per GPU; over {ms(comm)} that is "
            f"~{implied_busbw:.0f} GB/s bus bandwidth — unremarkable, not broken. Even a perfect all-reduce, "
            "still serialised, would leave the hole. The serialisation is the bug, not the bandwidth."
        ),
        measurement=(
            "Count NCCL all-reduce kernels per step (nsys stats cuda_gpu_kern_sum, or the profiler): one per "
            f"step at {ms(comm)}, not ~{buckets} bucket-sized ones. TORCH_DISTRIBUTED_DEBUG=DETAIL shows the "
            "bucket count; exposed comm = step − compute."
        ),
        fix=(
            "Restore bucketed overlap: find what defeats DDP's reducer hooks (a wrapper or custom autograd "
            "function bypassing them, find_unused_parameters, a sync between backward and the collective), keep "
            "bucket_cap_mb ~25; with FSDP, enable backward prefetch."
        ),
        arithmetic=(
            f"Backward is {ms(backward)}; comm is {ms(comm)}, so it can hide; assume ~{pct(HIDDEN_FRACTION)} "
            f"hides → {ms(comm - hidden_after)} stays exposed.",
            f"Before: {ms(step)}/step, MFU {100 * mfu:.0f}%.",
            f"After: ≈ {ms(after)}/step → {step / after:.2f}× throughput, MFU ≈ {100 * mfu_after:.0f}%.",
        ),
        spoken=(
            f"Step is {ms(step)}. The compute stream has a {ms(exposed)} hole at the end of every step and the "
            f"NCCL stream is busy for exactly that hole — one monolithic all-reduce after backward, "
            f"{pct(exposed / step)} of the step. {gb(setup.grad_bytes)} of gradients at ~{implied_busbw:.0f} GB/s "
            "bus bandwidth explains the duration, so NCCL isn't broken — overlap is. Every rank looks the same, "
            "so no straggler. DDP should fire bucketed all-reduces during backward; one kernel means the "
            f"reducer hooks aren't firing. Backward is {ms(backward)}, so it hides: about {ms(after)} steps, "
            f"MFU {100 * mfu:.0f} to {100 * mfu_after:.0f}%. I'd confirm by counting NCCL kernels per step."
        ),
        tell=(
            "Its twin, the straggler, also shows a long collective after compute on rank 0 — but there one rank's "
            "compute is longer than the rest and the collective count per step is many, not one."
        ),
    )
    w = run.windows[0][1]
    ar = next(e for e in run.ranks[0].track(NCCL).events if w[0] <= e.start < w[1] and e.category is Category.NCCL)
    annotations = [
        Annotation(0, NCCL, ar.start, ar.end, f"{ms(exposed)} exposed all-reduce = {pct(exposed / step)} of step"),
        Annotation(
            0,
            COMPUTE,
            ar.start,
            ar.end,
            f"compute idle {ms(exposed)}: {b['collectives']:.0f} all-reduce per step, after backward",
        ),
    ]
    return finish_training(ID, seed, difficulty, setup.hw, context, run, figures, reveal, annotations)
