"""One slow rank: every other rank's collective is long because it waits, not because bytes move slowly."""

from __future__ import annotations

import statistics

import numpy as np

from ..comm import comm_context, comm_share_plan, draw_comm_setup
from ..common import by_difficulty, ddp_buckets, gb, ms, setup_figures
from ..dp import finish_training, run_dp
from ..families import PIPELINE, draw_family
from ..figures import hta_view
from ..intervals import union
from ..model import Annotation, Category, Reveal, Scenario
from ..pipeline_straggler import generate_straggler
from ..sim import COMPUTE, NCCL
from ..training import transformer_program

ID = "straggler"
TITLE = "Straggler rank"
SUMMARY = "One rank computes slower; the long collective on every other rank is waiting, not moving bytes."
TWIN = "unoverlapped_allreduce"


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    family = draw_family(rng, ID)
    if family == PIPELINE:
        return generate_straggler(ID, rng, difficulty, seed)
    setup = draw_comm_setup(rng, family)
    setup, busbw, xfer = comm_share_plan(setup, float(rng.uniform(0.08, 0.16)), rng, (0.8, 1.0))
    slow = by_difficulty(difficulty, (1.35, 1.6), (1.2, 1.35), (1.1, 1.18), rng)
    culprit = int(rng.integers(1, setup.world))
    buckets = ddp_buckets(setup.grad_bytes)
    program = transformer_program(
        setup.hw,
        rng,
        layers=setup.model.blocks,
        compute_us=setup.compute_us,
        buckets=buckets,
        grad_bytes=setup.grad_bytes,
        bucket_xfer_us=xfer / buckets,
    )
    run = run_dp(
        setup, rng, program, simulated_ranks=setup.world, slow_factor={culprit: slow}, distractors=difficulty == "hard"
    )
    per_rank = [rb["compute_us"] for rb in run.breakdown]
    healthy_compute = statistics.median(per_rank)
    b0 = run.rank0
    step = b0["step_us"]
    wait = per_rank[culprit] - healthy_compute
    w = run.windows[0][1]
    last = max((e for e in run.ranks[0].track(NCCL).events if w[0] <= e.start < w[1]), key=lambda e: e.end)
    # The NCCL stream on a waiting rank is busy from the first late bucket to the last: one long bar.
    busy_run = next(
        iv for iv in union((e.start, e.end) for e in run.ranks[0].track(NCCL).events) if iv[0] <= last.start < iv[1]
    )
    bucket_bytes = setup.grad_bytes / buckets
    in_run = [e for e in run.ranks[0].track(NCCL).events if busy_run[0] <= e.start < busy_run[1]]
    run_us = busy_run[1] - busy_run[0]
    run_bytes = bucket_bytes * len(in_run)
    # Read as "NCCL got slow", the bar moves its buckets at this bus bandwidth:
    implied = 2.0 * (setup.world - 1) / setup.world * run_bytes / (run_us * 1e-6) / 1e9
    wire_last = xfer / buckets * len(in_run)  # what those buckets need on the wire
    after = step - wait
    mfu, mfu_after = setup.mfu(step), setup.mfu(after)
    clock = setup.hw.sm_clock_mhz
    throttled = clock / slow
    hta = hta_view(run.ranks[0], len(run.windows[0]) - 1, run.windows[0])
    figures = {
        **setup_figures(setup),
        "step_ms": step / 1000,
        "straggler_rank": culprit,
        "straggler_compute_ms": per_rank[culprit] / 1000,
        "median_compute_ms": healthy_compute / 1000,
        "slowdown": per_rank[culprit] / healthy_compute,
        "wait_ms": wait / 1000,
        "long_collective_ms": run_us / 1000,
        "collectives_in_bar": len(in_run),
        "nccl_busy_ms": (busy_run[1] - busy_run[0]) / 1000,
        "collective_wire_ms": wire_last / 1000,
        "bucket_gb": bucket_bytes / 1e9,
        "implied_busbw_gbps": implied,
        "busbw_gbps": busbw,
        "collectives_per_step": b0["collectives"],
        "comm_exposed_ms": b0["comm_exposed_us"] / 1000,
        "gpu_idle_pct": 100 * b0["idle_us"] / step,
        "step_after_ms": after / 1000,
        "speedup": step / after,
        "mfu_pct": 100 * mfu,
        "mfu_after_pct": 100 * mfu_after,
        "sm_clock_mhz": clock,
        "throttled_clock_mhz": throttled,
        "world_size": setup.world,
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
    }
    context = comm_context(rng, family, setup, difficulty)
    others = [c for r, c in enumerate(per_rank) if r != culprit]
    figures |= {
        "clock_ratio": 1 / slow,
        "compute_ratio": healthy_compute / per_rank[culprit],
        "bar_gb": run_bytes / 1e9,
        "others_compute_min_ms": min(others) / 1000,
        "others_compute_max_ms": max(others) / 1000,
    }
    reveal = Reveal(
        headline=f"Straggler — rank {culprit} computes {per_rank[culprit] / healthy_compute:.2f}× slower; "
        "everyone else's long collective is waiting for it.",
        read=(
            ("Step boundary", f"A {ms(step)} step, the same period on every rank (collectives are barriers)."),
            (
                "Gaps",
                f"On rank 0 the compute stream sits idle for {ms(b0['comm_exposed_us'])} after backward "
                f"while the NCCL stream stays busy for {ms(run_us)} — {len(in_run)} all-reduces back to back "
                "that started and then waited.",
            ),
            (
                "Overlap",
                f"The all-reduces are bucketed ({b0['collectives']:.0f} per step) and fire during "
                "backward — overlap is set up right. But the last one cannot finish until every rank "
                "arrives.",
            ),
            (
                "Per-rank compute",
                f"Ranks other than {culprit}: {ms(min(others))}–{ms(max(others))} of compute. "
                f"Rank {culprit}: {ms(per_rank[culprit])}, and its collective is the short one. "
                f"{ms(per_rank[culprit])} − {ms(healthy_compute)} ≈ {ms(wait)}: the wait everyone "
                "else shows.",
            ),
        ),
        wrong_hypothesis=(
            f"“NCCL/the interconnect degraded — retune NCCL_ALGO.” The bar holds {len(in_run)} buckets, "
            f"{gb(run_bytes)}; a ring needs ~{ms(wire_last)} for them at {busbw:.0f} GB/s, so a {ms(run_us)} bar "
            "would mean "
            f"~{implied:.0f} GB/s — absurd inside an {setup.hw.link} domain. A long collective means late arrival, "
            "not a slow wire."
        ),
        measurement=(
            f"Per-rank step decomposition (traces from every rank, HTA, or one log line of fwd+bwd time per rank): "
            f"rank {culprit} stands out. Then DCGM / nvidia-smi -q -d PERFORMANCE,CLOCK on that GPU: SM clock "
            f"~{throttled:,.0f} MHz vs {clock:,} MHz on its peers and a thermal or power throttle reason (or ECC "
            "row remapping)."
        ),
        fix=(
            f"Fix that rank, not the collective: cooling/power on rank {culprit}'s node, swap the GPU, or drain "
            "the node; if its work is larger (data skew), rebalance. No NCCL change. Add a per-rank step-time "
            "spread alert."
        ),
        arithmetic=(
            f"Rank {culprit} at {clock / slow:,.0f}/{clock:,} MHz ≈ {1 / slow:.2f} of the clock ≈ the "
            f"{healthy_compute / per_rank[culprit]:.2f} compute ratio observed.",
            f"Before: {ms(step)}/step, MFU {100 * mfu:.0f}%.",
            f"After: rank {culprit} back at ~{ms(healthy_compute)} → ≈ {ms(after)}/step, {step / after:.2f}× "
            f"throughput, MFU ≈ {100 * mfu_after:.0f}%.",
        ),
        spoken=(
            f"Rank 0 shows {ms(run_us)} of all-reduce, but a collective's kernel time includes waiting for the "
            f"slowest rank, and {gb(run_bytes)} of buckets over {setup.hw.link} can't take that long on bandwidth "
            f"— so I hunt for a straggler. Per-rank compute: {setup.world - 1} ranks around {ms(healthy_compute)}, "
            f"rank {culprit} at {ms(per_rank[culprit])}, and the difference is the {ms(wait)} everyone else waits. "
            "Uniformly slower kernels on one GPU means clocks, not workload: I'd check DCGM for throttling. Fix "
            f"the node, no code change, step goes {ms(step)} to about {ms(after)}."
        ),
        tell=(
            "Its twin, the unoverlapped all-reduce, also shows a long collective after compute on rank 0 — but "
            "there every rank's compute is the same and there is one all-reduce per step, not many."
        ),
    )
    culprit_rank = run.ranks[culprit]
    cw = run.windows[culprit][1]
    comp = [
        e for e in culprit_rank.track(COMPUTE).events if cw[0] <= e.start < cw[1] and e.category is Category.COMPUTE
    ]
    annotations = [
        Annotation(
            0,
            NCCL,
            busy_run[0],
            busy_run[1],
            f"rank 0 NCCL busy {ms(busy_run[1] - busy_run[0])}: waiting for rank {culprit}",
        ),
        Annotation(
            culprit,
            COMPUTE,
            comp[0].start,
            comp[-1].end,
            f"rank {culprit}: {ms(per_rank[culprit])} compute vs {ms(healthy_compute)}",
        ),
    ]
    return finish_training(ID, seed, difficulty, setup.hw, context, run, figures, reveal, annotations)
