"""Serving: a long prefill takes whole scheduler iterations and every decode stream stalls behind it."""

from __future__ import annotations

import math

import numpy as np

from ..common import ms, pick
from ..engine import ITL, Loop, Step
from ..model import Annotation, Reveal, Scenario
from ..served import Batch
from ..serving import (
    decode_us,
    draw_serving,
    finish_served,
    host_work,
    long_iteration_share,
    run_engine,
    serving_figures,
    wanted_streams,
    with_streams,
)
from ..sim import COMPUTE

ID = "prefill_blocks_decode"
TITLE = "Prefill blocks decode"
SUMMARY = "A long prefill occupies whole scheduler iterations; decode streams stall (head-of-line blocking)."
TWIN = None
CHUNK = 512
PROMPTS = {"easy": (8192, 12288), "medium": (8192, 6144), "hard": (4096, 6144)}


def _plan(rng: np.random.Generator, streams: int, ctx: int, n: int, prompt: int, python_us: float) -> list[Step]:
    """Decode-only iterations; a waiting prompt gets an iteration of its own, whole, with no decode in it."""
    long_at = {int(x) for x in rng.choice(np.arange(3, n - 2), size=2, replace=False)}
    rest = [i for i in range(2, n - 1) if i not in long_at]
    short_at = {int(x) for x in rng.choice(rest, size=3, replace=False)}
    req = int(rng.integers(4000, 9000))
    plan = []
    for i in range(n):
        sched, proc = host_work(rng, python_us)
        if i in long_at or i in short_at:
            tokens = prompt if i in long_at else int(rng.integers(150, 700))
            req += int(rng.integers(3, 40))
            plan.append(Step(Batch(0, ctx, tokens, 0), sched, proc, ((req, tokens),)))
        else:
            plan.append(Step(Batch(streams, ctx), sched, proc))
    return plan


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    drawn = draw_serving(rng, difficulty)
    prompt = int(pick(rng, PROMPTS[difficulty]))
    setup = with_streams(drawn, wanted_streams(rng), prompt)
    decode = decode_us(setup)
    python_us = decode * float(rng.uniform(0.15, 0.5))  # hidden: the host waits one iteration behind
    plan = _plan(rng, setup.streams, setup.ctx, setup.iterations, prompt, python_us)
    run = run_engine(rng, setup, Loop(blocking=False, eager=False), plan)
    f = serving_figures(setup, run)
    windows = run.windows
    long_at = [i for i, d in enumerate(run.steps) if d.batch.prefill == prompt]
    decode_iters = [d.window[1] - d.window[0] for d in run.steps[1:] if d.batch.decodes]
    decode_iter = float(np.median(decode_iters))
    long_iters = [windows[i][1] - windows[i][0] for i in long_at]
    prefill_us = float(np.mean(long_iters))
    spike = max(run.itl_values) * 1000
    costs = setup.costs
    chunks = math.ceil(prompt / CHUNK)
    mixed = [
        sum(
            c.us
            for c in costs.iteration(Batch(setup.streams, setup.ctx, min(CHUNK, prompt - k * CHUNK), k * CHUNK), True)
        )
        for k in range(chunks)
    ]
    mixed_mean = float(np.mean(mixed))
    f |= {
        "decode_iter_ms": decode_iter / 1000,
        "prefill_iter_ms": prefill_us / 1000,
        "prompt_tokens": prompt,
        "itl_spike_ms": spike / 1000,
        "blocked_iter_pct": 100 * long_iteration_share(run),
        "chunk_tokens": CHUNK,
        "chunk_iter_ms": mixed_mean / 1000,
        "chunk_iter_max_ms": max(mixed) / 1000,
        "ttft_before_ms": prefill_us / 1000,
        "ttft_after_ms": sum(mixed) / 1000,
        "chunks": chunks,
        "spike_ratio": spike / decode_iter,
    }
    reveal = _reveal(f)
    li = long_at[0]
    annotations = [
        Annotation(0, COMPUTE, *windows[li], f"{ms(prefill_us)} prefill ({prompt:,} tok): all decode waits"),
        Annotation(0, ITL, windows[li][0], windows[li + 1][1], f"ITL spike {ms(spike)}"),
    ]
    return finish_served(ID, seed, difficulty, rng, setup, run, f, reveal, annotations, windows=windows)


def _reveal(f: dict[str, float]) -> Reveal:
    decode, prefill, spike = f["decode_iter_ms"] * 1000, f["prefill_iter_ms"] * 1000, f["itl_spike_ms"] * 1000
    mixed, mixed_max, after = f["chunk_iter_ms"] * 1000, f["chunk_iter_max_ms"] * 1000, f["ttft_after_ms"] * 1000
    prompt, streams, chunks = f"{f['prompt_tokens']:,.0f}", f"{f['concurrent_streams']:.0f}", f"{f['chunks']:.0f}"
    return Reveal(
        headline="Prefill blocks decode — a long prompt's prefill takes whole iterations; every decode stream "
        "waits behind it.",
        read=(
            (
                "Step boundary",
                "Serving has no training step; the unit is a scheduler iteration. Healthy ones are "
                f"~{ms(decode)} decode batches of {streams} streams.",
            ),
            (
                "Gaps",
                f"None — the GPU is busy during the stall. When a {prompt}-token prompt arrives, one iteration "
                f"balloons to {ms(prefill)} of prefill kernels (flash_fwd + GEMMs) with no decode in it. ITL for "
                f"all {streams} streams = prefill + one decode ≈ {ms(spike)} ({f['spike_ratio']:.0f}× a decode "
                "iteration).",
            ),
            (
                "Overlap",
                "Batch composition is the problem: prefill (compute-bound) and decode (bandwidth-bound, "
                "latency-critical) run in mutually exclusive iterations instead of sharing them.",
            ),
            (
                "Spikes",
                "Short prompts cause small bumps; only the long ones freeze streams — ITL tracks prompt length. "
                f"{f['blocked_iter_pct']:.1f}% of iterations blocked is enough to own the p99 "
                f"({ms(f['itl_p99_ms'] * 1000)} against a p50 of {ms(f['itl_p50_ms'] * 1000)}).",
            ),
        ),
        wrong_hypothesis=(
            "“p99 spikes = GC pauses or CPU jitter.” Jitter makes idle gaps; here the GPU is dense with someone "
            "else's prefill during each spike, and the spikes line up with long-prompt arrivals. Also rejected: "
            "“add replicas” — any replica that takes a long prompt still freezes its streams."
        ),
        measurement=(
            "Scatter ITL against prefill tokens scheduled in the same iteration (or correlate the request log's "
            "prompt lengths with the spikes): every spike sits on an iteration with thousands of prefill tokens."
        ),
        fix=(
            f"Chunked prefill (Sarathi-style): split prompts into {f['chunk_tokens']:.0f}-token chunks co-scheduled "
            "with the decode batch under a per-iteration token budget; if long prompts dominate, disaggregate "
            "prefill and decode."
        ),
        arithmetic=(
            f"Mixed iteration = {streams} decodes + {f['chunk_tokens']:.0f} prefill tokens ≈ {ms(mixed)} on average "
            f"(at most {ms(mixed_max)} as the prompt's cached prefix grows), against {ms(decode)} decode-only.",
            f"ITL p99: {ms(spike)} → ~{ms(mixed_max)}.",
            f"Cost: the long prompt's TTFT goes {ms(prefill)} → {chunks} chunks ≈ {ms(after)} — the right trade "
            "for chat.",
        ),
        spoken=(
            f"p50 ITL is {ms(f['itl_p50_ms'] * 1000)}, the worst is {ms(spike)} — and the timeline shows why: "
            f"healthy {ms(decode)} decode iterations, then a {ms(prefill)} iteration of pure prefill when a "
            f"{prompt}-token prompt arrives. The GPU isn't idle during the stall, it's doing someone else's "
            f"prefill — so not jitter, not capacity; scheduling. Fix is chunked prefill: {f['chunk_tokens']:.0f}-"
            f"token chunks co-scheduled with decode, iterations around {ms(mixed)}, ITL p99 about {ms(mixed_max)}. "
            f"The long prompt's TTFT rises to ~{ms(after)}, the right trade for chat. Confirm with ITL vs prefill "
            "tokens per iteration."
        ),
        tell="ITL spikes while the GPU is busy, lined up with long-prompt arrivals.",
    )
