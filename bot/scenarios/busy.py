"""Pieces shared by the two busy-timeline scenarios (healthy and memory_bound_kernel)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .common import TrainingSetup, ddp_buckets, pick, resized, ring_allreduce_us
from .hardware import ACHIEVABLE_BUSBW_FRACTION
from .training import Op, transformer_program


@dataclass(frozen=True, slots=True)
class BusyPlan:
    setup: TrainingSetup
    program: list[Op]
    with_comm: bool  # False: a gradient-accumulation micro-step, whose all-reduce is on a later one
    busbw_gbps: float


def busy_program(setup: TrainingSetup, rng: np.random.Generator, *, allow_resize: bool) -> BusyPlan:
    """A step whose bucketed all-reduce hides under backward — or a gradient-accumulation micro-step.

    With `allow_resize`, a step whose all-reduce would not hide gets a bigger micro-batch until it does.
    """
    busbw = setup.hw.link_gbps * ACHIEVABLE_BUSBW_FRACTION * float(rng.uniform(0.85, 1.0))
    total_us = ring_allreduce_us(setup.grad_bytes, min(setup.world, 8), busbw)
    want_comm = rng.uniform() < 0.5
    if want_comm and allow_resize and total_us > 0.5 * setup.compute_us * 2.0 / 3.0:
        setup = resized(setup, 1.2 * total_us / (0.5 * 2.0 / 3.0))
    with_comm = want_comm and total_us <= 0.55 * setup.compute_us * 2.0 / 3.0
    buckets = ddp_buckets(setup.grad_bytes) if with_comm else 0
    program = transformer_program(
        setup.hw,
        rng,
        layers=setup.model.blocks,
        compute_us=setup.compute_us,
        buckets=buckets,
        grad_bytes=setup.grad_bytes,
        bucket_xfer_us=total_us / buckets if buckets else 0.0,
    )
    return BusyPlan(setup, program, with_comm, busbw)


def parallelism_text(setup: TrainingSetup, plan: BusyPlan) -> str:
    if plan.with_comm:
        return f"DDP over {setup.world} GPUs (trace: rank 0)"
    return f"DDP over {setup.world} GPUs with gradient accumulation (trace: rank 0, one micro-step)"


def busy_complaint(rng: np.random.Generator, mfu: float) -> str:
    """One complaint pool for both busy-timeline scenarios, so the words never give the answer away."""
    return str(
        pick(
            rng,
            (
                f"MFU is {100 * mfu:.0f}%; the team wants to know where the rest went before asking for more GPUs.",
                "Before scaling this run up, the lead wants a read: is anything left to win here? "
                f"MFU {100 * mfu:.0f}%.",
                f"MFU {100 * mfu:.0f}%. A new hire says the profile proves the GPU is 'fully used'. Is it?",
            ),
        )
    )
