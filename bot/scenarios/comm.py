"""Pieces shared by the two long-collective twins (unoverlapped_allreduce and straggler)."""

from __future__ import annotations

import math

import numpy as np

from .common import TrainingSetup, draw_training, gpus, pick, resized
from .hardware import ACHIEVABLE_BUSBW_FRACTION, TRAINING_GPUS
from .model import Context

BUCKET_CAP_BYTES = 25 * 2**20  # DDP's default bucket_cap_mb=25


def draw_comm_setup(rng: np.random.Generator) -> TrainingSetup:
    setup = draw_training(rng, TRAINING_GPUS, (4, 8), (200.0, 500.0))
    # Multi-rank pictures show every rank: draw a coarser view of the model to keep them legible.
    return replace_blocks(setup, 4 if setup.world == 8 else 6)


def replace_blocks(setup: TrainingSetup, blocks: int) -> TrainingSetup:
    from dataclasses import replace

    return replace(setup, model=replace(setup.model, blocks=blocks))


def comm_share_plan(setup: TrainingSetup, share: float, rng: np.random.Generator,
                    busbw_range: tuple[float, float]) -> tuple[TrainingSetup, float, float]:
    """Pick the bus bandwidth (within `busbw_range` of achievable) and micro-batch so that an all-reduce
    of all gradients takes about `share` of a step. Returns (setup, busbw GB/s, all-reduce µs)."""
    achievable = setup.hw.link_gbps * ACHIEVABLE_BUSBW_FRACTION
    moved = 2.0 * (setup.world - 1) / setup.world * setup.grad_bytes
    want_xfer = setup.compute_us * share / (1.0 - share)
    lo, hi = busbw_range
    busbw = min(max(moved / (want_xfer * 1e-6) / 1e9, lo * achievable), hi * achievable)
    busbw *= float(rng.uniform(0.97, 1.03))
    xfer = moved / (busbw * 1e9) * 1e6
    return resized(setup, xfer * (1.0 - share) / share), busbw, xfer


def ddp_buckets(grad_bytes: float) -> int:
    return math.ceil(grad_bytes / BUCKET_CAP_BYTES)


def comm_complaint(rng: np.random.Generator, step_us: float, reference_us: float, mfu: float,
                   mfu_reference: float) -> str:
    """One complaint pool for both twins: a long all-reduce and someone blaming NCCL."""
    slower = 100.0 * (step_us / reference_us - 1.0)
    return str(
        pick(
            rng,
            (
                f"Step time is {step_us / 1000:.0f} ms, {slower:.0f}% slower than the reference run; rank 0's "
                "profile shows a long all-reduce and the team says 'NCCL got slow'.",
                f"MFU is stuck at {100 * mfu:.0f}%; the team expected ~{100 * mfu_reference:.0f}%. Someone wants "
                "to retune NCCL_ALGO and check the switches.",
                f"Throughput is {slower:.0f}% below plan ({step_us / 1000:.0f} ms steps). The long all-reduce "
                "in the profile is being blamed on the interconnect.",
            ),
        )
    )


def comm_context(rng: np.random.Generator, setup: TrainingSetup, step_us: float, reference_us: float, mfu: float,
                 mfu_reference: float) -> Context:
    """The same framing for both twins: traces from every rank, and someone blaming NCCL."""
    return Context(
        title=f"{gpus(setup)} · {setup.model.name} · DDP training",
        hardware=f"{gpus(setup)} ({setup.hw.link})",
        model=f"{setup.model.name}, BF16, seq {setup.seq_len}, micro-batch {setup.micro_batch}",
        parallelism=f"DDP over {setup.world} GPUs (traces from every rank)",
        complaint=comm_complaint(rng, step_us, reference_us, mfu, mfu_reference),
    )
