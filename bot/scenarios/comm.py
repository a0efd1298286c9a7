"""Pieces shared by the two long-collective twins (unoverlapped_allreduce and straggler)."""

from __future__ import annotations

import numpy as np

from .common import TrainingSetup, resized
from .families import draw_family_training, setup_context
from .hardware import ACHIEVABLE_BUSBW_FRACTION
from .model import Context


def draw_comm_setup(rng: np.random.Generator, family: str) -> TrainingSetup:
    return draw_family_training(rng, family, (200.0, 500.0))


def comm_share_plan(
    setup: TrainingSetup, share: float, rng: np.random.Generator, busbw_range: tuple[float, float]
) -> tuple[TrainingSetup, float, float]:
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


def comm_context(rng: np.random.Generator, family: str, setup: TrainingSetup, difficulty: str = "medium") -> Context:
    """The same framing for both twins: the family's context, which never mentions the collective."""
    return setup_context(rng, family, setup, difficulty)
