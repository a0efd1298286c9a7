"""Workload families: what a drill's context describes, shared by every signature the family hosts.

A family fixes the words a person is told before the reveal — title, hardware, model, parallelism, a complaint
pool — and draws them from the same pools whatever signature is injected, so the context narrows a drill to a
family, never to a signature. Each signature module picks one of the families that can honestly host it (a
family's workload must be able to produce that pathology), and the twins pick from the same families with the
same weights, so not even the family separates them.

Complaints quote no figures: a step time or MFU depends on what is injected; the trace carries the numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

import numpy as np

from .busy import busy_pair_ok
from .common import Model, TrainingSetup, draw_training, pick
from .hardware import A100, B200, H100, H200, L40S
from .model import Context, Hardware

LLM = "llm_training"
VISION = "vision_training"
RECSYS = "recsys_training"
SERVING = "llm_serving"
PIPELINE = "pipeline_training"

# Families each signature can be drawn into, with weights. A context-only guess is right at best Σ over families
# of the heaviest weight there, over ten (`context_guess_bound`): prefill_blocks_decode (serving) and
# pipeline_bubbles (the pipeline) each fill one family's top weight alone (2 of 10); memory_bound_kernel is split
# between LLM pre-training (a skinny GEMM outruns the host only on the LLM family's GPU/model pairs) and the
# pipeline (micro-batches of a few dozen tokens, `pipeline_membound.py`) as 0.7 : 0.3, so in LLM pre-training it
# weighs no more than the data-parallel signatures, which share LLM : vision : recsys as 0.7 : 0.15 : 0.15 —
# 0.7 + 0.15 + 0.15 + 2 = 3 of 10, 0.30 in all. Twins keep the same data-parallel proportions; straggler and
# sync_stall give a tenth of their drills to the pipeline or serving, whose twins are not hosted there, and the busy
# pair splits its other shares as healthy 0.15 serving + 0.15 pipeline, memory_bound_kernel 0.3 pipeline, so within
# each pair the words are right at best (`pair_guess_bound`) 0.55 = (0.7 + 0.15 + 0.15 + 0.1) / 2 for the first
# two and 0.575 = (0.7 + 0.15 + 0.3) / 2 for the busy pair (a small test sample adds ±0.05 of noise on top, so the
# bounds stay well under the 0.65 a reader of words alone must not reach).
_DP = ((LLM, 0.7), (VISION, 0.15), (RECSYS, 0.15))


def _scaled(hosts: tuple[tuple[str, float], ...], share: float) -> tuple[tuple[str, float], ...]:
    return tuple((family, round(weight * share, 4)) for family, weight in hosts)


HOSTS: dict[str, tuple[tuple[str, float], ...]] = {
    "healthy": ((LLM, 0.7), (SERVING, 0.15), (PIPELINE, 0.15)),
    "memory_bound_kernel": ((LLM, 0.7), (PIPELINE, 0.3)),
    "straggler": (*_scaled(_DP, 0.9), (PIPELINE, 0.1)),
    "unoverlapped_allreduce": _DP,
    "sync_stall": (*_scaled(_DP, 0.9), (SERVING, 0.1)),
    "alloc_stall": _DP,
    "input_starvation": _DP,
    "launch_bound": ((SERVING, 1.0),),
    "prefill_blocks_decode": ((SERVING, 1.0),),
    "pipeline_bubbles": ((PIPELINE, 1.0),),
}


def context_guess_bound() -> float:
    """The best top-1 a classifier that reads the family perfectly from the words can reach: in each family it
    names the signature of the heaviest weight there."""
    best: dict[str, float] = {}
    for hosts in HOSTS.values():
        total = sum(w for _, w in hosts)
        for family, weight in hosts:
            best[family] = max(best.get(family, 0.0), weight / total)
    return sum(best.values()) / len(HOSTS)


def pair_guess_bound(a: str, b: str) -> float:
    """The best accuracy between twins `a` and `b` of a classifier that reads the family perfectly: in each family
    it names the twin of the heavier weight there."""
    shares = [{f: w / sum(x for _, x in HOSTS[sig]) for f, w in HOSTS[sig]} for sig in (a, b)]
    families = set(shares[0]) | set(shares[1])
    return sum(max(shares[0].get(f, 0.0), shares[1].get(f, 0.0)) for f in families) / 2


LLM_GPUS: tuple[Hardware, ...] = (H100, H200, A100, B200)
VISION_GPUS: tuple[Hardware, ...] = (A100, H100, H200, L40S)
RECSYS_GPUS: tuple[Hardware, ...] = (A100, H100, H200, L40S)
TRAINING_WORLDS: tuple[int, ...] = (4, 8)

LLM_MODELS: tuple[Model, ...] = (
    Model("Llama-style 3B dense", 3.2, 28, 3072),
    Model("Llama-style 7B dense", 7.0, 32, 4096),
    Model("Llama-style 8B dense", 8.0, 32, 4096),
)
# Vision transformers at 224 px: 196 patches + CLS = 197 tokens per image.
# (ViT-B/16, 12 blocks, would make ~320-kernel steps: too small a job to profile for a step-time question.)
VISION_MODELS: tuple[Model, ...] = (
    Model("ViT-L/16", 0.304, 24, 1024),
    Model("ViT-H/14", 0.632, 32, 1280),
)
VISION_TOKENS = 197
# Sequential recommenders: a transformer over each user's event history (12·hidden²·blocks parameters; the ID
# embeddings are looked up by the feature pipeline and not counted). A sample is one history of 256–1,024 events.
RECSYS_MODELS: tuple[Model, ...] = (
    Model("Transformer ranker 0.3B", 0.30, 24, 1024),
    Model("Transformer ranker 0.7B", 0.68, 24, 1536),
    Model("Transformer ranker 1.2B", 1.21, 24, 2048),
)
RECSYS_EVENTS: tuple[int, ...] = (256, 512, 1024)
NVIDIA_SMI_DETAIL = "nvidia-smi shows 100% GPU-Util on every GPU."
# Served models live in served.py (shapes for the kernel plan and the KV cache). One replica per GPU.


_FORCED: ContextVar[str | None] = ContextVar("forced_family", default=None)


@contextmanager
def forced_family(family: str) -> Iterator[None]:
    """Within the block, a signature that can be hosted by `family` is drawn into it (for measuring one family,
    e.g. the reader's agreement on serving drills). The draw still consumes the same random numbers, so drills of
    signatures that do not host `family`, and every drill outside the block, are unchanged."""
    token = _FORCED.set(family)
    try:
        yield
    finally:
        _FORCED.reset(token)


def draw_family(rng: np.random.Generator, signature: str) -> str:
    hosts = HOSTS[signature]
    weights = np.array([w for _, w in hosts])
    drawn = hosts[int(rng.choice(len(hosts), p=weights / weights.sum()))][0]
    forced = _FORCED.get()
    return forced if forced is not None and any(f == forced for f, _ in hosts) else drawn


# No figure in a complaint: the step time, throughput or latency of a drill depends on what is injected, and
# a number that does would hint at the answer. The trace carries the numbers.
_TRAINING_COMPLAINTS = (
    "Before the run is scaled up, the lead wants a read of the profile: is anything left to win?",
    "Throughput is below the team's estimate. Someone wants more GPUs; the lead wants the profile read first.",
    "A new hire says the profile proves the GPUs are 'fully used'. Are they?",
    "After last week's changes nobody agrees whether this step time is as good as it gets.",
    "The team blames the cluster for slow steps and wants to file a ticket. Read the profile first.",
)


def training_complaint(rng: np.random.Generator) -> str:
    return str(pick(rng, _TRAINING_COMPLAINTS))


_TITLE_KIND = {LLM: "LLM pre-training", VISION: "image classification", RECSYS: "recommendation-model training"}
_MODEL_LINE = {
    LLM: "{}, BF16, AdamW",
    VISION: "{}, BF16, 224-px JPEGs decoded and augmented by CPU DataLoader workers",
    RECSYS: "{}, BF16, AdamW, per-event features built by CPU DataLoader workers",
}


def training_context(rng: np.random.Generator, family: str, hw: Hardware, world: int, model: Model) -> Context:
    """The context of a data-parallel training drill in `family` (LLM, vision or recsys)."""
    complaint = training_complaint(rng)
    return Context(
        title=f"{world}×{hw.name} · {model.name} · {_TITLE_KIND[family]}",
        hardware=f"{world}×{hw.name} ({hw.link})",
        model=_MODEL_LINE[family].format(model.name),
        parallelism=f"DDP over {world} GPUs",
        complaint=complaint,
    )


def family_gpus(family: str) -> tuple[Hardware, ...]:
    return {VISION: VISION_GPUS, RECSYS: RECSYS_GPUS}.get(family, LLM_GPUS)


def family_models(family: str) -> tuple[Model, ...]:
    return {VISION: VISION_MODELS, RECSYS: RECSYS_MODELS}.get(family, LLM_MODELS)


def family_seqs(family: str) -> tuple[int, ...]:
    """Tokens per sample the family's jobs use: an image's patches, a user history's events, a sequence."""
    return {VISION: (VISION_TOKENS,), RECSYS: RECSYS_EVENTS}.get(family, (2048, 4096, 8192))


def family_pair_ok(family: str) -> Callable[[Hardware, Model], bool] | None:
    """LLM pre-training draws only the GPU/model pairs that can host every signature of the family (a
    memory-bound skinny GEMM needs a GPU whose ridge it stays below and kernels long enough to outrun the
    host), so the hardware and model words are drawn alike whatever is injected."""
    return busy_pair_ok if family == LLM else None


_SERVING_COMPLAINTS = (
    "Users say streaming answers feel sluggish. Is it the GPU?",
    "The product team wants lower inter-token latency before launch. Read the profile first.",
    "Someone proposes buying faster GPUs because tokens arrive slowly. Read the profile first.",
    "Tokens per second per replica is below what the team budgeted. Is anything left to win on this GPU?",
    "Before adding replicas for next month's traffic, the lead wants this replica's profile read.",
)
SERVING_GPUS: tuple[Hardware, ...] = (H100, H200, A100)
SERVING_DETAIL = (
    "One ProfilerStep = one scheduler iteration of the engine; the ITL row is the decode streams' inter-token latency."
)


def serving_context(rng: np.random.Generator, hw: Hardware, model: str, precision: str, difficulty: str) -> Context:
    """The context of every LLM serving drill, whatever is injected: the same title, hardware, model line,
    parallelism, detail and complaint pool (no engine mode, batch size or latency figure: the trace has those)."""
    complaint = str(pick(rng, _SERVING_COMPLAINTS))
    details: tuple[str, ...] = (SERVING_DETAIL,)
    if difficulty == "hard":  # the trap every hard drill shares
        details = (*details, NVIDIA_SMI_DETAIL)
    return Context(
        title=f"1×{hw.name} · {model} · LLM serving",
        hardware=f"1×{hw.name}",
        model=f"{model} ({precision}), continuous batching",
        parallelism="1 GPU per replica",
        complaint=complaint,
        details=details,
    )


def draw_family_training(
    rng: np.random.Generator, family: str, compute_ms: tuple[float, float], models: tuple[Model, ...] | None = None
) -> TrainingSetup:
    """A data-parallel job of `family` whose step computes for about `compute_ms`."""
    return draw_training(
        rng,
        family_gpus(family),
        TRAINING_WORLDS,
        compute_ms,
        models or family_models(family),
        family_seqs(family),
        family_pair_ok(family),
    )


def setup_context(rng: np.random.Generator, family: str, setup: TrainingSetup, difficulty: str = "medium") -> Context:
    context = training_context(rng, family, setup.hw, setup.world, setup.model)
    if difficulty == "hard":  # a trap every hard drill shares: the averaged counter says nothing is wrong
        context = replace(context, details=(*context.details, NVIDIA_SMI_DETAIL))
    return context
