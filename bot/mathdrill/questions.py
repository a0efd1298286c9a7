"""Thirty-second mental-math questions: the figures an interviewer expects you to work out in your head.

Each kind draws realistic givens (hardware from the scenarios' table), computes the answer from exactly those
givens, and explains the formula with the numbers put in. Pure and seeded: (kind, seed) fixes the question.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..scenarios.hardware import ACHIEVABLE_BUSBW_FRACTION, ALL_GPUS, TRAINING_GPUS
from ..scenarios.model import Hardware

DEFAULT_TOLERANCE = 0.05  # relative: 5% either side of the exact answer is right
ANSWER_SECONDS = 30


@dataclass(frozen=True, slots=True)
class Question:
    kind: str
    seed: int
    question: str
    given: dict[str, float | int]
    answer: float
    unit: str
    formula: str  # the formula in symbols
    worked: str  # the formula with this question's numbers put in, ending in the answer
    context: str = ""  # a sanity line: what the answer means on this hardware
    hardware: str = ""
    tolerance: float = DEFAULT_TOLERANCE

    def as_json(self) -> dict[str, Any]:
        """The shape `tracedrill math --json` prints (pinned by the issue)."""
        return {
            "kind": self.kind,
            "question": self.question,
            "given": dict(self.given),
            "answer": self.answer,
            "unit": self.unit,
            "tolerance": self.tolerance,
        }

    @property
    def explanation(self) -> str:
        text = f"{self.formula}. {self.worked}."
        return f"{text} {self.context}" if self.context else text


def sig(x: float, digits: int = 3) -> float:
    """Round to significant digits: the givens a person can hold in their head."""
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, digits - 1 - math.floor(math.log10(abs(x))))


def say(x: float) -> str:
    """A number as it is written in the question: 1.6e+10 → '16,000,000,000' is unreadable, so '1.6e10'."""
    if x == int(x) and abs(x) < 1e7:
        return f"{int(x):,}"
    if abs(x) >= 1e7 or abs(x) < 1e-3:
        mantissa, exp = f"{x:.3g}".split("e") if "e" in f"{x:.3g}" else (f"{x:.3g}", "0")
        return f"{mantissa}e{int(exp)}"
    return f"{x:.4g}"


def _bytes(b: int) -> str:
    return "1 byte" if b == 1 else f"{b} bytes"


def _size(nbytes: float) -> str:
    """A message size as it would be said: '2,048 MiB' for binary sizes, '16 GB' for decimal ones."""
    if nbytes % 2**20 == 0:
        return f"{int(nbytes) // 2**20:,} MiB ({int(nbytes):,} bytes)"
    return f"{nbytes / 1e9:g} GB ({say(nbytes)} bytes)"


def _hw(rng: random.Random, options: tuple[Hardware, ...]) -> Hardware:
    return options[rng.randrange(len(options))]


def _nvlink(options: tuple[Hardware, ...]) -> tuple[Hardware, ...]:
    return tuple(h for h in options if h.link == "NVLink") or options


# -- the kinds --------------------------------------------------------------------------------------------
def _collective(rng: random.Random, kind: str) -> tuple[Hardware, int, int, float]:
    """(hardware, ranks, bytes, seconds) of a collective in one NVLink node at a healthy-to-poor busbw."""
    hw = _hw(rng, _nvlink(ALL_GPUS))
    ranks = rng.choice((2, 4, 8))
    mib = rng.choice((25, 64, 128, 256, 512, 1024, 2048, 4096))
    nbytes = mib * 2**20 if rng.random() < 0.5 else sig(rng.choice((1.3, 3.2, 7.0, 8.0, 13.0)) * 2e9)
    factor = 2.0 if kind == "busbw" else 1.0
    busbw = hw.link_gbps * rng.uniform(0.25, ACHIEVABLE_BUSBW_FRACTION)
    seconds = sig(factor * (ranks - 1) / ranks * nbytes / (busbw * 1e9))
    return hw, ranks, int(nbytes), seconds


def busbw(rng: random.Random, seed: int) -> Question:
    hw, n, b, t = _collective(rng, "busbw")
    answer = 2 * (n - 1) / n * b / t / 1e9
    return Question(
        "busbw",
        seed,
        f"{n}×{hw.name} ({hw.link}): an all-reduce of {_size(b)} across {n} ranks takes {say(t * 1e3)} ms. "
        "What bus bandwidth does it reach, in GB/s?",
        {"bytes": b, "ranks": n, "seconds": t},
        sig(answer, 4),
        "GB/s",
        "busbw = 2(n−1)/n · bytes / seconds / 1e9",
        f"2·{n - 1}/{n} · {say(b)} B / {say(t)} s = {say(2 * (n - 1) / n * b)} B / {say(t)} s ≈ {answer:,.0f} GB/s",
        f"That is {answer / hw.link_gbps:.0%} of the {hw.link_gbps:.0f} GB/s {hw.link} link.",
        hw.name,
    )


def _gather_or_scatter(kind: str, label: str) -> Callable[[random.Random, int], Question]:
    def make(rng: random.Random, seed: int) -> Question:
        hw, n, b, t = _collective(rng, kind)
        answer = (n - 1) / n * b / t / 1e9
        return Question(
            kind,
            seed,
            f"{n}×{hw.name} ({hw.link}): a{'n' if label[0] in 'aeiou' else ''} {label} of {_size(b)} in total "
            f"across {n} ranks takes {say(t * 1e3)} ms. What bus bandwidth does it reach, in GB/s?",
            {"bytes": b, "ranks": n, "seconds": t},
            sig(answer, 4),
            "GB/s",
            f"{label} busbw = (n−1)/n · bytes / seconds / 1e9 (each rank moves all but its own 1/n; no factor 2)",
            f"{n - 1}/{n} · {say(b)} B / {say(t)} s ≈ {answer:,.0f} GB/s",
            f"That is {answer / hw.link_gbps:.0%} of the {hw.link_gbps:.0f} GB/s {hw.link} link.",
            hw.name,
        )

    return make


def bubble(rng: random.Random, seed: int) -> Question:
    p = rng.choice((2, 4, 4, 8, 8, 16))
    m = rng.choice([x for x in (1, 2, 4, 8, 16, 32, 64) if p <= x * 2 <= 16 * p] or [p])
    answer = 100 * (p - 1) / (m + p - 1)
    return Question(
        "bubble",
        seed,
        f"A 1F1B pipeline has {p} stages and {m} microbatches per step. What fraction of each stage's time is "
        "bubble, in %?",
        {"stages": p, "microbatches": m},
        sig(answer, 4),
        "%",
        "bubble % = 100 · (p−1)/(m+p−1)",
        f"100 · {p - 1}/({m}+{p - 1}) = 100 · {p - 1}/{m + p - 1} ≈ {answer:.1f}%",
        f"Doubling the microbatches to {2 * m} would make it {100 * (p - 1) / (2 * m + p - 1):.1f}%.",
    )


def ridge(rng: random.Random, seed: int) -> Question:
    hw = _hw(rng, ALL_GPUS)
    peak, bw = hw.bf16_tflops, hw.hbm_gbps / 1000
    answer = peak / bw
    return Question(
        "ridge",
        seed,
        f"{hw.name}: {say(peak)} dense BF16 TFLOP/s and {say(bw)} TB/s of {hw.memory_type} memory. "
        "Where is the roofline ridge point, "
        "in FLOP/byte?",
        {"peak_tflops": peak, "bandwidth_tbps": bw},
        sig(answer, 4),
        "FLOP/byte",
        "ridge = peak_tflops / bandwidth_tbps (TFLOP/s over TB/s: the 1e12s cancel)",
        f"{say(peak)} / {say(bw)} ≈ {answer:.0f} FLOP/byte",
        "A kernel below that intensity is memory-bound on this GPU, above it compute-bound.",
        hw.name,
    )


def mfu(rng: random.Random, seed: int) -> Question:
    hw = _hw(rng, TRAINING_GPUS)
    params = rng.choice((1.3e9, 3.2e9, 7e9, 8e9, 13e9, 34e9, 70e9))
    gpus = rng.choice((8, 16, 32, 64, 128, 256)) * (2 if params > 30e9 else 1)
    tokens = rng.choice((2**19, 2**20, 2**21, 2**22))
    target = rng.uniform(0.25, 0.55)
    step = sig(6 * params * tokens / (target * gpus * hw.bf16_tflops * 1e12))
    answer = 100 * 6 * params * tokens / (step * gpus * hw.bf16_tflops * 1e12)
    return Question(
        "mfu",
        seed,
        f"Training a {say(params / 1e9)}B dense model on {gpus}×{hw.name} ({say(hw.bf16_tflops)} TFLOP/s BF16 "
        f"peak each): {say(tokens)} tokens per step, {say(step)} s per step. What is the MFU, in %?",
        {
            "params": params,
            "tokens_per_step": tokens,
            "step_seconds": step,
            "gpus": gpus,
            "peak_tflops": hw.bf16_tflops,
        },
        sig(answer, 4),
        "%",
        "MFU % = 100 · 6·N·T / (t · g · peak)",
        f"6 · {say(params)} · {say(tokens)} = {say(6 * params * tokens)} FLOP per step; "
        f"{say(step)} s · {gpus} · {say(hw.bf16_tflops)}e12 = {say(step * gpus * hw.bf16_tflops * 1e12)} FLOP "
        f"available; ratio ≈ {answer:.1f}%",
        "Well-tuned dense training lands around 40–55%.",
        hw.name,
    )


def intensity(rng: random.Random, seed: int) -> Question:
    m = rng.choice((1, 16, 64, 256, 512, 1024, 2048, 4096, 8192))
    n = rng.choice((1024, 2048, 4096, 8192, 14336))
    k = rng.choice((1024, 2048, 4096, 8192))
    b = rng.choice((1, 2, 2, 2, 4))
    flops = 2 * m * n * k
    moved = b * (m * k + k * n + m * n)
    answer = flops / moved
    dtype = {1: "FP8", 2: "BF16", 4: "FP32"}[b]
    hw = _hw(rng, ALL_GPUS)
    side = "below" if answer < hw.ridge_flop_per_byte else "above"
    return Question(
        "intensity",
        seed,
        f"A {dtype} GEMM multiplies ({m}×{k}) by ({k}×{n}), {_bytes(b)} per element. What is its arithmetic "
        "intensity, in FLOP/byte (each matrix read or written once)?",
        {"m": m, "n": n, "k": k, "bytes_per_element": b},
        sig(answer, 4),
        "FLOP/byte",
        "intensity = 2mnk / (b(mk+kn+mn))",
        f"2·{m}·{n}·{k} = {say(flops)} FLOP over {b}·({say(m * k)}+{say(k * n)}+{say(m * n)}) = {say(moved)} B "
        f"≈ {answer:,.1f} FLOP/byte",
        f"That is {side} the {hw.name} ridge of {hw.ridge_flop_per_byte:.0f} FLOP/byte.",
        hw.name,
    )


# Published attention shapes: (name, layers, kv heads, head dim, parameters).
_ARCHS = (
    ("Llama-2 7B (MHA)", 32, 32, 128, 6.7e9),
    ("Llama-2 13B (MHA)", 40, 40, 128, 13.0e9),
    ("Llama-3 8B (GQA)", 32, 8, 128, 8.0e9),
    ("Mistral 7B (GQA)", 32, 8, 128, 7.2e9),
    ("Llama-3 70B (GQA)", 80, 8, 128, 70.6e9),
    ("Qwen2 72B (GQA)", 80, 8, 128, 72.7e9),
)


def kv_cache(rng: random.Random, seed: int) -> Question:
    name, layers, heads, dim, _ = _ARCHS[rng.randrange(len(_ARCHS))]
    b = rng.choice((2, 2, 1))
    answer = 2 * layers * heads * dim * b
    dtype = {1: "FP8", 2: "BF16"}[b]
    context = 8192
    return Question(
        "kv_cache",
        seed,
        f"{name}: {layers} layers, {heads} KV heads of dimension {dim}, a {dtype} KV cache ({_bytes(b)} per "
        "element). How many bytes of KV cache does one token take?",
        {"layers": layers, "kv_heads": heads, "head_dim": dim, "bytes_per_element": b},
        float(answer),
        "bytes",
        "KV bytes/token = 2 (K and V) · layers · kv_heads · head_dim · bytes_per_element",
        f"2 · {layers} · {heads} · {dim} · {b} = {answer:,} bytes ({answer / 1024:.0f} KiB)",
        f"An {context:,}-token sequence then holds {answer * context / 1e9:.2f} GB of KV cache.",
    )


def itl_floor(rng: random.Random, seed: int) -> Question:
    hw = _hw(rng, ALL_GPUS)
    name, _, _, _, params = _ARCHS[rng.randrange(len(_ARCHS))]
    b = rng.choice((2, 2, 1))
    # The smallest tensor-parallel degree whose weight shard fits in 85% of memory (room for the KV cache).
    tp = next((t for t in (1, 2, 4, 8) if params * b / t <= 0.85 * hw.memory_gb * 1e9), 8)
    bw = hw.hbm_gbps / 1000
    answer = params * b / (tp * bw * 1e12) * 1e3
    return Question(
        "itl_floor",
        seed,
        f"Decoding {name} with {b}-byte weights on {tp}×{hw.name} ({say(bw)} TB/s {hw.memory_type} each, "
        f"tensor parallel over {tp}): every token reads all the weights once. "
        "What is the floor on inter-token latency, in ms?",
        {"params": params, "bytes_per_param": b, "gpus": tp, "bandwidth_tbps": bw},
        sig(answer, 4),
        "ms",
        "ITL floor ms = params · bytes_per_param / (gpus · bandwidth_tbps · 1e12) · 1e3",
        f"{say(params)} · {b} = {say(params * b)} B over {tp} · {say(bw)}e12 B/s ≈ {answer:.2f} ms",
        "Batching more streams spreads that weight read over more tokens; the per-token floor stays.",
        hw.name,
    )


GENERATORS: dict[str, Callable[[random.Random, int], Question]] = {
    "busbw": busbw,
    "bubble": bubble,
    "ridge": ridge,
    "mfu": mfu,
    "intensity": intensity,
    "kv_cache": kv_cache,
    "itl_floor": itl_floor,
    "allgather": _gather_or_scatter("allgather", "all-gather"),
    "reduce_scatter": _gather_or_scatter("reduce_scatter", "reduce-scatter"),
}
KINDS: tuple[str, ...] = tuple(GENERATORS)
MAX_SEED = 2**63 - 1


class UnknownKindError(ValueError):
    def __init__(self, kind: str) -> None:
        super().__init__(f"unknown kind {kind!r}; choose one of: {', '.join(KINDS)}")


def kind_for_seed(seed: int) -> str:
    return KINDS[random.Random(f"kind:{seed}").randrange(len(KINDS))]


def question(kind: str | None, seed: int) -> Question:
    """The question fixed by (kind, seed); without a kind the seed picks one."""
    kind = kind or kind_for_seed(seed)
    make = GENERATORS.get(kind)
    if make is None:
        raise UnknownKindError(kind)
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be between 0 and {MAX_SEED}, got {seed}")
    return make(random.Random(f"{kind}:{seed}"), seed)
