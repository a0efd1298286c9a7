"""Shared pieces of the generators: seeding, workload draws, finishing a scenario, number formatting."""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from .counters import add_gpu_metrics
from .ids import DIFFICULTIES  # noqa: F401  (re-exported for generators)
from .model import Annotation, Context, Hardware, Rank, Reveal, Scenario, Trace

T = TypeVar("T")


def make_rng(signature: str, seed: int, difficulty: str) -> np.random.Generator:
    """A generator fixed by (signature, seed, difficulty) alone: stable across runs and machines."""
    salt = zlib.crc32(f"{signature}/{difficulty}".encode())
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([salt, seed & 0xFFFFFFFF, seed >> 32])))


def pick(rng: np.random.Generator, options: Sequence[T]) -> T:
    return options[int(rng.integers(len(options)))]


def by_difficulty(
    difficulty: str,
    easy: tuple[float, float],
    medium: tuple[float, float],
    hard: tuple[float, float],
    rng: np.random.Generator,
) -> float:
    lo, hi = {"easy": easy, "medium": medium, "hard": hard}[difficulty]
    return float(rng.uniform(lo, hi))


@dataclass(frozen=True, slots=True)
class Model:
    name: str
    params_b: float  # billions of parameters
    blocks: int  # transformer blocks (the real depth: every layer's kernels are in the trace)
    hidden: int = 4096


DENSE_MODELS = (
    Model("GPT-style 1.3B dense", 1.3, 8, 2048),
    Model("Llama-style 3B dense", 3.2, 8, 3072),
    Model("Llama-style 7B dense", 7.0, 10, 4096),
    Model("Llama-style 8B dense", 8.0, 10, 4096),
    Model("13B dense", 13.0, 12, 5120),
)


@dataclass(frozen=True, slots=True)
class TrainingSetup:
    hw: Hardware
    world: int
    model: Model
    seq_len: int
    micro_batch: int
    compute_us: float  # GPU compute time of one step with nothing wrong
    kernel_efficiency: float  # fraction of peak the kernels deliver while busy

    @property
    def tokens_per_gpu(self) -> int:
        return self.seq_len * self.micro_batch

    @property
    def flops_per_step(self) -> float:
        return 6.0 * self.model.params_b * 1e9 * self.tokens_per_gpu

    def mfu(self, step_us: float) -> float:
        return self.flops_per_step / (step_us * 1e-6 * self.hw.bf16_tflops * 1e12)

    @property
    def grad_bytes(self) -> float:
        return self.model.params_b * 1e9 * 2.0  # BF16 gradients

    @property
    def memory_gb(self) -> float:
        return training_memory_gb(self.model, self.tokens_per_gpu)

    @property
    def fits(self) -> bool:
        return self.memory_gb <= MEMORY_HEADROOM * self.hw.memory_gb


# Plain DDP with mixed-precision AdamW keeps per GPU: BF16 weights (2) + BF16 grads (2) + FP32 master weights,
# first and second moments (12) = 16 bytes per parameter. Activations kept for backward: ~34 bytes per token per
# hidden unit per layer with FlashAttention (Korthikanti et al. 2022, without the s² attention-score term).
ADAM_BYTES_PER_PARAM = 16.0
ACTIVATION_BYTES = 34.0
WORKSPACE_GB = 3.0  # CUDA context, cuBLAS/NCCL workspaces, allocator slack
MEMORY_HEADROOM = 0.95


def training_memory_gb(model: Model, tokens_per_gpu: int) -> float:
    states = ADAM_BYTES_PER_PARAM * model.params_b * 1e9
    activations = ACTIVATION_BYTES * tokens_per_gpu * model.hidden * model.blocks
    return (states + activations) / 1e9 + WORKSPACE_GB


def setup_figures(setup: TrainingSetup) -> dict[str, float]:
    """The job's own figures, so the physics can be checked from scenario.json."""
    return {
        "params_b": setup.model.params_b,
        "layers": setup.model.blocks,
        "tokens_per_gpu": setup.tokens_per_gpu,
        "memory_gb": setup.memory_gb,
        "memory_capacity_gb": setup.hw.memory_gb,
        "peak_tflops": setup.hw.bf16_tflops,
    }


def draw_training(
    rng: np.random.Generator,
    hws: tuple[Hardware, ...],
    worlds: tuple[int, ...],
    compute_ms: tuple[float, float],
    models: tuple[Model, ...] = DENSE_MODELS,
    seqs: tuple[int, ...] = (2048, 4096, 8192),
    pair_ok: Callable[[Hardware, Model], bool] | None = None,
) -> TrainingSetup:
    """A data-parallel job whose step computes for about `compute_ms`. `seqs` are the sequence lengths the
    workload uses (one entry, 197, for a ViT at 224 px, where the micro-batch counts images); `pair_ok` limits
    the GPU/model pairs (drawn independently, then rejected, so the accepted pairs stay equally likely)."""
    for _ in range(500):  # redraw until the job fits in the GPU's memory
        hw = pick(rng, hws)
        model = pick(rng, models)
        if pair_ok is not None and not pair_ok(hw, model):
            continue
        world = int(pick(rng, worlds))
        eff = float(rng.uniform(0.45, 0.58))
        target_us = float(rng.uniform(*compute_ms)) * 1000.0
        tokens = target_us * 1e-6 * hw.bf16_tflops * 1e12 * eff / (6.0 * model.params_b * 1e9)
        fitting = [s for s in seqs if s <= tokens] or [min(seqs)]
        seq = int(pick(rng, fitting))
        per_sample_us = 6.0 * model.params_b * 1e9 * seq / (hw.bf16_tflops * 1e12 * eff) * 1e6
        setup = TrainingSetup(hw, world, model, seq, 1, per_sample_us, eff)
        # The biggest micro-batch up to the target that fits, as a team would pick it; a pair that cannot
        # hold one sample is redrawn.
        for micro_batch in range(max(1, round(tokens / seq)), 0, -1):
            setup = replace(setup, micro_batch=micro_batch, compute_us=per_sample_us * micro_batch)
            if setup.fits:
                return setup
    raise RuntimeError("no drawn training job fits in memory")  # a table error, not bad luck


def resized(setup: TrainingSetup, compute_us: float) -> TrainingSetup:
    """The same job with the micro-batch changed so one step's compute is about `compute_us`."""
    per_sample = setup.compute_us / setup.micro_batch
    micro_batch = max(1, round(compute_us / per_sample))
    while micro_batch > 1 and not replace(setup, micro_batch=micro_batch).fits:
        micro_batch -= 1  # the biggest micro-batch that still fits
    return replace(setup, micro_batch=micro_batch, compute_us=per_sample * micro_batch)


BUCKET_CAP_BYTES = 25 * 2**20  # DDP's default bucket_cap_mb=25


def ddp_buckets(grad_bytes: float) -> int:
    """Gradient buckets DDP forms per step with the default bucket_cap_mb."""
    return max(1, math.ceil(grad_bytes / BUCKET_CAP_BYTES))


def ring_allreduce_us(nbytes: float, world: int, busbw_gbps: float) -> float:
    """Time for a ring all-reduce: every GPU moves 2(N−1)/N of the message over its link."""
    return 2.0 * (world - 1) / world * nbytes / (busbw_gbps * 1e9) * 1e6


def finish(
    signature: str,
    seed: int,
    difficulty: str,
    hw: Hardware,
    context: Context,
    ranks: list[Rank],
    kind: str,
    steps: list[tuple[float, float]],
    figures: dict[str, float],
    reveal: Reveal,
    annotations: list[Annotation],
    first_step_number: int = 0,
    zoom: tuple[float, float] | None = None,
    metrics: bool = True,
) -> Scenario:
    trace = Trace(ranks, kind, steps, first_step_number)
    if metrics:
        span = (0.0, trace.end)
        for r in ranks:
            add_gpu_metrics(r, span)
    rounded = {k: round(float(v), 4) for k, v in figures.items()}
    return Scenario(signature, seed, difficulty, hw, context, trace, rounded, reveal, annotations, zoom)


# -- formatting used by the reveals ---------------------------------------------------------------
def ms(us: float) -> str:
    """Microseconds as a reader would say them: '175 ms', '9.4 ms', '0.85 ms'."""
    v = us / 1000.0
    if v >= 100:
        return f"{v:,.0f} ms"
    if v >= 10:
        return f"{v:.0f} ms"
    if v >= 1:
        return f"{v:.1f} ms"
    return f"{v:.2f} ms"


def us_(us: float) -> str:
    return f"{us:.0f} µs" if us >= 10 else f"{us:.1f} µs"


def pct(x: float) -> str:
    """A fraction as a percentage: 0.283 → '28%'."""
    return f"{100 * x:.0f}%"


def gb(nbytes: float) -> str:
    return f"{nbytes / 1e9:.1f} GB" if nbytes < 100e9 else f"{nbytes / 1e9:.0f} GB"


def times(x: float) -> str:
    return f"{x:.2f}×"


def gpus(setup: TrainingSetup) -> str:
    return f"{setup.world}×{setup.hw.name}"


def plural(n: float, word: str, many: str | None = None) -> str:
    """'1 hole', '3 holes' (n rounded to a whole number)."""
    k = round(n)
    return f"{k} {word if k == 1 else (many or word + 's')}"
