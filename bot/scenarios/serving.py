"""The online LLM serving family: one draw of GPU, model and precision for every signature it hosts, the batch plans
an engine schedules (chunked prefill under a token budget, or whole prefills), and the figures every serving drill
computes from its own events.

What is injected changes only the engine (engine.Loop) and the plan; the words a person is told come from
families.serving_context and the same pools whatever the signature.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np

from .common import by_difficulty, finish, pick
from .engine import Engine, EngineRun, Loop, Step
from .families import SERVING_GPUS, serving_context
from .figures import RankActivity, hta_view
from .model import Annotation, Context, Hardware, Reveal, Scenario
from .served import PRECISIONS, SERVED_MODELS, Batch, Costs, Precision, ServedModel, fits, memory_gb
from .sim import RankSim

LONG_PROMPTS = (4096, 6144, 8192, 12288)
BUDGETS = (256, 512, 1024, 2048)  # max tokens per iteration a chunked engine is configured with
MAX_ITERATION_US = 60_000.0  # operators keep a full-budget iteration under ~60 ms of ITL
FULL_OVER_DECODE = 3.0  # and within ~3× a decode-only iteration
STREAMS = (16, 48)  # running decode streams of a loaded replica


@dataclass(frozen=True, slots=True)
class ServingSetup:
    hw: Hardware
    model: ServedModel
    precision: Precision
    ctx: int  # mean cached tokens of a running stream
    iterations: int
    streams: int = 0

    @property
    def costs(self) -> Costs:
        return Costs(self.hw, self.model, self.precision)


def draw_serving(rng: np.random.Generator, difficulty: str) -> ServingSetup:
    """GPU, model, precision, context length and profile length: drawn alike for every serving signature."""
    hw = pick(rng, SERVING_GPUS)
    model = pick(rng, SERVED_MODELS)
    precision = pick(rng, PRECISIONS)
    ctx = int(rng.integers(300, 1500))
    iterations = round(by_difficulty(difficulty, (12, 15), (13, 17), (14, 18), rng))
    return ServingSetup(hw, model, precision, ctx, iterations)


def context_of(rng: np.random.Generator, setup: ServingSetup, difficulty: str) -> Context:
    return serving_context(rng, setup.hw, setup.model.name, setup.precision.label, difficulty)


def finish_served(
    signature: str,
    seed: int,
    difficulty: str,
    rng: np.random.Generator,
    setup: ServingSetup,
    run: EngineRun,
    figures: dict[str, float],
    reveal: Reveal,
    annotations: list[Annotation],
    *,
    windows: list[tuple[float, float]] | None = None,
    zoom: tuple[float, float] | None = None,
) -> Scenario:
    """A served drill: one rank of iterations, told the words every serving signature draws (last, after the trace)."""
    context = context_of(rng, setup, difficulty)
    steps = run.windows if windows is None else windows
    return finish(
        signature,
        seed,
        difficulty,
        setup.hw,
        context,
        [run.rank],
        "serving",
        steps,
        figures,
        reveal,
        annotations,
        run.first_step,
        zoom=zoom,
    )


def with_streams(setup: ServingSetup, wanted: int, longest_prompt: int) -> ServingSetup:
    """The most decode streams up to `wanted` whose KV cache (context plus ~1,000 generated tokens each, and the
    longest prompt in flight) fits beside the weights."""
    streams = wanted
    while streams > 1 and not fits(
        setup.hw, setup.model, setup.precision, cached_tokens(setup, streams, longest_prompt)
    ):
        streams -= 1
    return ServingSetup(setup.hw, setup.model, setup.precision, setup.ctx, setup.iterations, streams)


def cached_tokens(setup: ServingSetup, streams: int, longest_prompt: int) -> int:
    return streams * (setup.ctx + 1000) + longest_prompt


def host_work(rng: np.random.Generator, python_us: float) -> tuple[float, float]:
    """Python time of one iteration split into scheduling (before the launches) and processing the sampled ids."""
    total = python_us * float(rng.uniform(0.92, 1.08))
    share = float(rng.uniform(0.35, 0.45))
    return total * share, total * (1 - share)


def pick_budget(rng: np.random.Generator, costs: Costs, streams: int, ctx: int) -> int:
    """A budget whose full iterations keep the GEMMs compute-bound (above the roofline ridge) and within
    FULL_OVER_DECODE of a decode-only iteration (so ITL stays flat whether or not a chunk rides along); the
    smallest compute-bound one when none is that short."""

    def full_us(budget: int) -> float:
        return sum(c.us for c in costs.iteration(Batch(streams, ctx, budget - streams, ctx), fused=True))

    decode = sum(c.us for c in costs.iteration(Batch(streams, ctx), fused=True))
    bound = [b for b in BUDGETS if b > 2 * streams and costs.gemm(b, costs.m.hidden, costs.m.hidden).kind == "gemm"]
    ok = [b for b in bound if full_us(b) <= min(FULL_OVER_DECODE * decode, MAX_ITERATION_US)]
    if ok:
        return int(pick(rng, ok))
    return bound[0] if bound else BUDGETS[-1]


def prompt_queue(
    rng: np.random.Generator, total: int, long_share: float, longs: tuple[int, ...] = LONG_PROMPTS
) -> list[int]:
    """Prompt lengths arriving during the profile, about `total` tokens in all; a long one with `long_share`."""
    prompts: list[int] = []
    if rng.uniform() < long_share:
        prompts.append(int(pick(rng, longs)))
    while sum(prompts) < total:
        prompts.append(int(rng.integers(150, 2000)))
    order = rng.permutation(len(prompts))
    return [prompts[i] for i in order]


@dataclass(frozen=True, slots=True)
class ChunkedDraw:
    """A chunked-prefill engine's draw: the setup, its token budget, the prefill room beside the decode streams, the
    prompts arriving during the profile, and a full iteration's kernel time."""

    setup: ServingSetup
    budget: int
    room: int
    prompts: list[int]
    full_us: float


def draw_chunked(rng: np.random.Generator, difficulty: str) -> ChunkedDraw:
    """The draw every chunked-prefill drill starts from (healthy and the per-token sync share it, so the words and
    the engine's shape do not separate them)."""
    setup = with_streams(draw_serving(rng, difficulty), wanted_streams(rng), max(LONG_PROMPTS))
    budget = pick_budget(rng, setup.costs, setup.streams, setup.ctx)
    room = budget - setup.streams
    prompts = prompt_queue(rng, int(setup.iterations * room * float(rng.uniform(0.9, 1.05))), 0.6, LONG_PROMPTS[:3])
    full_us = sum(c.us for c in setup.costs.iteration(Batch(setup.streams, setup.ctx, room, setup.ctx), fused=True))
    return ChunkedDraw(setup, budget, room, prompts, full_us)


def chunked_plan(
    rng: np.random.Generator, setup: ServingSetup, budget: int, prompts: list[int], python_us: float
) -> list[Step]:
    """Chunked prefill: every iteration runs the decode streams and fills the rest of the budget with prompt
    tokens from the head of the queue (a long prompt is spread over several iterations)."""
    queue = list(prompts)
    done = 0  # tokens of the head prompt already prefilled
    req = int(rng.integers(4000, 9000))
    steps = []
    for _ in range(setup.iterations):
        arrivals: list[tuple[int, int]] = []
        pieces: list[tuple[int, int]] = []  # (tokens, cached prefix) of each prompt in this iteration
        room = budget - setup.streams
        while queue and room > 0:
            if done == 0:
                req += int(rng.integers(1, 6))
                arrivals.append((req, queue[0]))
            take = min(room, queue[0] - done)
            pieces.append((take, done))
            room -= take
            done += take
            if done >= queue[0]:
                queue.pop(0)
                done = 0
        sched, proc = host_work(rng, python_us)
        steps.append(Step(prefill_batch(setup.streams, setup.ctx, pieces), sched, proc, tuple(arrivals)))
    return steps


def prefill_batch(streams: int, ctx: int, pieces: list[tuple[int, int]]) -> Batch:
    """A batch whose prefill tokens come from several prompts: the attention work of pieces (c, p) is Σ c·(p + c/2),
    kept exactly by the equivalent single prefix."""
    tokens = sum(c for c, _ in pieces)
    if not tokens:
        return Batch(streams, ctx)
    span = sum(c * (p + c / 2) for c, p in pieces) / tokens
    return Batch(streams, ctx, tokens, span - tokens / 2)


def run_engine(rng: np.random.Generator, setup: ServingSetup, loop: Loop, plan: list[Step]) -> EngineRun:
    sim = RankSim(0, rng, launch_us=(4.0, 7.0), queue_depth=10_000, with_memcpy=False)
    first = int(rng.integers(1000, 9000))
    return Engine(sim, setup.costs, loop, first).run(plan)


def decode_us(setup: ServingSetup, streams: int | None = None) -> float:
    """GPU time of a decode-only iteration of the compiled engine (the kernels alone)."""
    b = Batch(setup.streams if streams is None else streams, setup.ctx)
    return sum(c.us for c in setup.costs.iteration(b, fused=True))


def serving_figures(setup: ServingSetup, run: EngineRun, activity: RankActivity | None = None) -> dict[str, float]:
    """What every serving drill measures: iterations over the steady ones (the first starts at its own first
    kernel, so the gap before it is unknown), ITL, busy and idle, kernels, and the job's physics."""
    windows = run.windows
    steady = windows[1:]
    activity = activity or RankActivity(run.rank)
    rows = [activity.step(w) for w in steady]
    step = statistics.fmean(r["step_us"] for r in rows)
    compute = statistics.fmean(r["compute_us"] for r in rows)
    idle = statistics.fmean(r["idle_us"] for r in rows)
    durations = [b - a for a, b in steady]
    itl = np.asarray(run.itl_values) if run.itl_values else np.asarray([step / 1000])
    hta = hta_view(activity, len(windows) - 1, windows)
    m, p = setup.model, setup.precision
    cached = cached_tokens(setup, setup.streams, int(max(d.batch.prefill + d.batch.prefix for d in run.steps)))
    return {
        "step_ms": step / 1000,
        "iter_p50_ms": float(np.percentile(durations, 50)) / 1000,
        "iter_max_ms": max(durations) / 1000,
        "compute_ms": compute / 1000,
        "gpu_busy_pct": 100 * compute / step,
        "gpu_idle_pct": 100 * idle / step,
        "gpu_idle_ms": idle / 1000,
        "kernels_per_step": float(statistics.median(r["kernels"] for r in rows)),
        "itl_p50_ms": float(np.percentile(itl, 50)),
        "itl_p99_ms": float(np.percentile(itl, 99)),
        "concurrent_streams": setup.streams,
        "params_b": m.params / 1e9,
        "layers": m.layers,
        "weight_gb": m.params * p.weight_bytes / 1e9,
        "memory_gb": memory_gb(m, p, cached),
        "memory_capacity_gb": setup.hw.memory_gb,
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
    }


def mfu_pct(setup: ServingSetup, run: EngineRun) -> float:
    """Model FLOPs of the steady iterations over their wall time at the GEMMs' peak."""
    steady = run.steps[1:]
    flops = sum(d.flops for d in steady)
    wall = (steady[-1].window[1] - steady[0].window[0]) * 1e-6
    return 100 * flops / (wall * setup.costs.peak * 1e12)


def iteration_gap_us(run: EngineRun) -> list[float]:
    """Per steady iteration: the GPU idle before its first kernel (the previous iteration's end to it)."""
    return [d.first_kernel - d.window[0] for d in run.steps[1:]]


def steady_tokens(run: EngineRun) -> list[int]:
    return [d.batch.tokens for d in run.steps[1:]]


def long_iteration_share(run: EngineRun) -> float:
    return sum(1 for d in run.steps if d.batch.prefill and not d.batch.decodes) / len(run.steps)


def wanted_streams(rng: np.random.Generator) -> int:
    return int(rng.integers(STREAMS[0], STREAMS[1] + 1))
