"""The numbers are physically possible, over many seeds: MFU under a realistic ceiling, no FLOP or byte rate above
the hardware's peak, the job fits in memory, a >=1B-parameter training step has hundreds of kernels, NCCL's
protocol follows the message size and twins launch the same kernels."""

from __future__ import annotations

import functools
import os
import statistics
from collections import defaultdict
from dataclasses import dataclass

import pytest

from bot.scenarios.figures import RankActivity
from bot.scenarios.hardware import ALL_GPUS, MAX_MFU
from bot.scenarios.ids import DIFFICULTIES, TWINS
from bot.scenarios.kernels import nccl_allreduce
from bot.scenarios.model import Category, Scenario
from bot.scenarios.registry import generate

from .memo import scenario

DP_TRAINING = (
    "healthy",
    "memory_bound_kernel",
    "sync_stall",
    "alloc_stall",
    "input_starvation",
    "straggler",
    "unoverlapped_allreduce",
)
TRAINING = (*DP_TRAINING, "pipeline_bubbles")
MULTI_RANK = ("straggler", "unoverlapped_allreduce", "pipeline_bubbles")


# 3 seeds × 3 difficulties a multi-rank signature, 6 × 3 a single-rank one; a deeper sweep:
# TRACEDRILL_PHYSICS_SEEDS=50 pytest tests/test_physics.py
SEEDS = int(os.environ.get("TRACEDRILL_PHYSICS_SEEDS", "6"))


def seeds_for(signature: str) -> range:
    return range(300, 300 + (SEEDS + 1) // 2) if signature in MULTI_RANK else range(300, 300 + SEEDS)


def kernels_per_step(s: Scenario) -> float:
    activity = RankActivity(s.trace.ranks[0])
    return statistics.median(activity.step(w)["kernels"] for w in s.trace.steps[1:])


def check_rates(s: Scenario) -> None:
    hw = s.hardware
    f = s.figures
    if "mfu_pct" in f:
        assert f["mfu_pct"] <= 100 * MAX_MFU, f["mfu_pct"]
        assert f.get("mfu_after_pct", 0.0) <= 100 * MAX_MFU, f["mfu_after_pct"]
    if "mfu_pct" in f and "compute_ms" in f:
        # FLOP/s while kernels run: the step's model FLOPs over its compute time.
        assert f["mfu_pct"] * f["step_ms"] / f["compute_ms"] <= 100 * MAX_MFU + 1e-6
    if "memory_gb" in f:
        assert f["memory_gb"] <= f["memory_capacity_gb"], (f["memory_gb"], f["memory_capacity_gb"])
    world = s.trace.world_size if s.trace.world_size > 1 else int(f.get("world_size", 8))
    for rank in s.trace.ranks:
        for e in rank.kernels():
            nbytes = float((e.args or {}).get("bytes", 0))
            if not nbytes:
                continue
            if e.category is Category.NCCL and "AllReduce" in e.name:
                busbw = 2.0 * (world - 1) / world * nbytes / (e.dur * 1e-6) / 1e9
                assert busbw <= hw.link_gbps * 1.001, (e.name, busbw, hw.link_gbps)
                assert e.name == nccl_allreduce(nbytes), (e.name, nbytes)
            elif e.category is Category.MEMCPY:
                assert nbytes / (e.dur * 1e-6) / 1e9 <= hw.pcie_gbps, (e.name, nbytes, e.dur)
    if "weight_gb" in f and "kernel_sum_ms" in f:  # decode reads every weight once per token
        assert f["weight_gb"] / (f["kernel_sum_ms"] * 1e-3) <= hw.dram_gbps / 1000 * 1000


@dataclass(frozen=True)
class Walked:
    """What the two per-seed tests read of one drill, so a worker generates each drill once for both."""

    seed: int
    difficulty: str
    rates_error: AssertionError | None  # check_rates' failure, raised again by the test that owns it
    kernels_per_step: float | None  # None for a served drill: its iteration is no training step (test_serving.py)
    params_b: float


@functools.cache
def walk(signature: str) -> tuple[Walked, ...]:
    out = []
    for seed in seeds_for(signature):
        for difficulty in DIFFICULTIES:
            s = generate(signature, seed, difficulty)
            try:
                check_rates(s)
                error = None
            except AssertionError as exc:
                error = exc
            kernels = kernels_per_step(s) if s.trace.kind == "training" else None
            out.append(Walked(seed, difficulty, error, kernels, s.figures.get("params_b", 10.0)))
    return tuple(out)


@pytest.mark.parametrize("signature", [*TRAINING, "launch_bound", "prefill_blocks_decode"])
def test_no_rate_above_peak_and_the_job_fits(signature: str) -> None:
    for drill in walk(signature):
        if drill.rates_error is not None:
            raise AssertionError(f"seed {drill.seed}, {drill.difficulty}") from drill.rates_error


@pytest.mark.parametrize("signature", TRAINING)
def test_a_training_step_has_hundreds_of_kernels(signature: str) -> None:
    counts = []
    for drill in walk(signature):
        n = drill.kernels_per_step
        if n is None:
            continue
        counts.append(n)
        if drill.params_b >= 1.0:
            assert n >= 400, (drill.seed, drill.difficulty, n)
    assert statistics.median(counts) >= 400


def test_twins_launch_the_same_kernels() -> None:
    """Compute kernels by name; collective names follow the message size (checked above), not the twin."""
    for a in ("healthy", "sync_stall", "straggler"):
        b = TWINS[a]
        names: dict[str, dict[str, set[str]]] = {a: defaultdict(set), b: defaultdict(set)}
        for sig in (a, b):
            for seed in range(400, 404):
                s = scenario(sig, seed, "medium")
                if s.trace.kind != "training":  # the serving family hosts one of each pair so far
                    continue
                names[sig][s.hardware.arch] |= {
                    e.name for e in s.trace.ranks[0].kernels() if e.category is Category.COMPUTE
                }
        for arch in set(names[a]) & set(names[b]):
            assert names[a][arch] == names[b][arch], (a, b, arch, names[a][arch] ^ names[b][arch])


def test_hardware_table_is_consistent() -> None:
    for hw in ALL_GPUS:
        assert hw.memory_type in ("HBM2e", "HBM3", "HBM3e", "GDDR6")
        assert hw.link_gbps == (hw.nvlink_gbps or hw.pcie_gbps)
        assert hw.fp8_tflops in (0.0,) or hw.fp8_tflops >= 1.9 * hw.bf16_tflops
    l40s = next(h for h in ALL_GPUS if h.name.startswith("L40S"))
    assert l40s.memory_type == "GDDR6" and l40s.link == "PCIe"
