"""Pieces shared by the two busy-timeline scenarios (healthy and memory_bound_kernel)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .common import Model, TrainingSetup, ddp_buckets, resized, ring_allreduce_us
from .hardware import ACHIEVABLE_BUSBW_FRACTION
from .model import Hardware
from .training import Op, transformer_program

# A skinny GEMM only dominates a busy timeline when each kernel outlasts the host's launch work; with less GPU
# time per kernel the same job is launch-bound instead.
KERNELS_PER_BLOCK = 30  # forward + backward kernels of one transformer block
MIN_KERNEL_US = 12.0  # compiled step: the host needs ~4–7 µs per launch
SKINNY_M = (128, 256, 512)  # tokens per call of a memory-bound micro-step (micro-batch 1, short sequences)
EFFICIENCY = (0.45, 0.58)  # fraction of peak a compute-bound kernel delivers
FIT_TOKENS = 4096  # the smallest healthy job of the family must fit too


def intensity(m: int, n: int, k: int) -> float:
    """FLOP per byte of a BF16 GEMM that reads A (m×k) and B (k×n) and writes C (m×n) once."""
    return (2.0 * m * n * k) / (2.0 * (m * k + k * n + m * n))


def skinny_shapes(hw: Hardware, model: Model) -> list[tuple[int, float]]:
    """The token counts M at which `model` on `hw` makes a memory-bound but not launch-bound step, each with the
    highest kernel efficiency that keeps its kernels long enough."""
    out = []
    for m in SKINNY_M:
        if intensity(m, model.hidden, model.hidden) >= 0.85 * hw.ridge_flop_per_byte:
            continue
        floor_us = MIN_KERNEL_US * KERNELS_PER_BLOCK * model.blocks
        eff_max = 6.0 * model.params_b * 1e9 * m / (hw.bf16_tflops * 1e12 * floor_us * 1e-6)
        if eff_max >= EFFICIENCY[0]:
            out.append((m, min(eff_max, EFFICIENCY[1])))
    return out


def busy_pair_ok(hw: Hardware, model: Model) -> bool:
    """Can this GPU/model pair host both busy twins? Both twins (and their family) draw only such pairs, so the
    hardware and model never tell them apart."""
    fits = TrainingSetup(hw, 8, model, FIT_TOKENS, 1, 0.0, EFFICIENCY[0]).fits
    return fits and bool(skinny_shapes(hw, model))


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
