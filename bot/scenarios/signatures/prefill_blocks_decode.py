"""Serving: a long prefill takes whole scheduler iterations and every decode stream stalls behind it."""

from __future__ import annotations

import numpy as np

from .. import kernels as K
from ..common import by_difficulty, finish, ms, pick
from ..families import SERVING_MODELS, serving_context
from ..figures import hta_view
from ..hardware import A100, H100, H200
from ..model import Annotation, Category, Event, Reveal, Scenario, Track, TrackKind
from ..sim import COMPUTE, RankSim
from ..training import gemm_name

ID = "prefill_blocks_decode"
TITLE = "Prefill blocks decode"
SUMMARY = "A long prefill occupies whole scheduler iterations; decode streams stall (head-of-line blocking)."
TWIN = None
SCHEDULER = "scheduler (engine core)"
REQUESTS = "requests"
ITL = "ITL (ms)"
CHUNK = 512


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    hw = pick(rng, (H100, H200, A100))
    model, params_b, *_shape = pick(rng, SERVING_MODELS)
    tp = 1
    streams = int(rng.integers(16, 48))
    precision, bytes_per_param = pick(rng, (("INT8 weight-only", 1.0), ("FP8", 1.0), ("BF16", 2.0)))
    weight_bytes = params_b * 1e9 * bytes_per_param / tp
    decode_us = weight_bytes / (hw.hbm_gbps * 1e9 * 0.8) * 1e6 * float(rng.uniform(1.05, 1.2))
    eff = float(rng.uniform(0.5, 0.65))
    prompt = int(pick(rng, {"easy": (8192, 12288), "medium": (8192, 6144), "hard": (4096, 6144)}[difficulty]))
    per_token_us = 2.0 * params_b * 1e9 / (hw.bf16_tflops * 1e12 * eff * tp) * 1e6
    prompt * per_token_us
    iterations = int(by_difficulty(difficulty, (60, 80), (80, 110), (110, 140), rng))
    long_at = sorted(int(x) for x in rng.choice(np.arange(10, iterations - 6), size=2, replace=False))
    short_at = sorted(int(x) for x in rng.choice(np.arange(5, iterations - 3), size=4, replace=False))
    sim = RankSim(0, rng, queue_depth=10_000, with_memcpy=False)
    sched = sim.main
    sched.name = SCHEDULER
    requests = Track(REQUESTS, TrackKind.ANNOTATION)
    gemm_a, gemm_b, gemm_c = (gemm_name(hw, "qkv"), gemm_name(hw, "out"), gemm_name(hw, "down"))
    first = int(rng.integers(1000, 9000))
    windows: list[tuple[float, float]] = []
    itl_times: list[float] = []
    itl_values: list[float] = []
    last_token = 0.0
    prev_end = 0.0
    req_id = int(rng.integers(4000, 9000))
    for it in range(iterations):
        cpu_start = sim.cpu
        if it in long_at or it in short_at:
            tokens = prompt if it in long_at else int(rng.integers(150, 700))
            req_id += int(rng.integers(3, 40))
            requests.events.append(
                Event(f"req#{req_id} arrives · prompt {tokens:,} tok", sim.cpu - 400.0, 0.0, Category.MARKER)
            )
            names: tuple[tuple[str, str, float], ...]
            label = f"iteration: 1 seq, {tokens:,} tokens"
            work = tokens * per_token_us
            names = ((gemm_a, "gemm", 0.3), (K.FLASH_FWD, "attn", 0.25), (gemm_b, "gemm", 0.15), (gemm_c, "gemm", 0.3))
            repeats = 6
        else:
            label = f"iteration: {streams} seqs, {streams} tokens"
            work = decode_us * float(rng.uniform(0.97, 1.03))
            names = ((gemm_a, "elementwise", 0.35), (K.FLASH_DECODE, "attn", 0.15), (gemm_c, "elementwise", 0.5))
            repeats = 4
        sim.cpu_op("schedule + prepare inputs", float(rng.uniform(250.0, 450.0)))
        for _ in range(repeats):
            for name, kind, share in names:
                sim.launch(name, work * share / repeats, kind)
                sim.idle_host(3.0)
        sim.launch(K.SOFTMAX_XENT, 40.0, "elementwise")  # sampling
        sim.synchronize()  # the engine reads sampled token ids back every iteration
        sim.cpu_op("process outputs / detokenize", float(rng.uniform(150.0, 300.0)))
        sim.annotate(label, cpu_start, sim.cpu, Category.RANGE)
        sim.annotate(f"ProfilerStep#{first + it}", cpu_start, sim.cpu, Category.STEP)
        end = sim.gpu_drained_at()
        windows.append((prev_end if it else cpu_start, end))
        prev_end = end
        if not (it in long_at or it in short_at):  # decode streams get a token
            if last_token:
                itl_times.append(end)
                itl_values.append((end - last_token) / 1000.0)
            last_token = end
    rank = sim.rank_model()
    rank.tracks.insert(1, requests)
    itl = Track(ITL, TrackKind.COUNTER, unit="ms")
    itl.sample_times = [round(t, 3) for t in itl_times]
    itl.sample_values = [round(v, 3) for v in itl_values]
    values = np.asarray(itl_values)
    decode_iter = float(
        np.median([w[1] - w[0] for i, w in enumerate(windows) if i not in long_at and i not in short_at])
    )
    long_iters = [windows[i][1] - windows[i][0] for i in long_at]
    spike = float(values.max()) * 1000
    blocked_share = len(long_at) / iterations
    chunk_us = CHUNK * per_token_us
    mixed = decode_iter + chunk_us * 0.95
    n_chunks = int(np.ceil(prompt / CHUNK))
    ttft_after = n_chunks * mixed
    rank.tracks.append(itl)
    hta = hta_view(rank, len(windows) - 1, windows)
    figures = {
        "decode_iter_ms": decode_iter / 1000,
        "prefill_iter_ms": float(np.mean(long_iters)) / 1000,
        "prompt_tokens": prompt,
        "itl_p50_ms": float(np.percentile(values, 50)),
        "itl_spike_ms": spike / 1000,
        "blocked_iter_pct": 100 * blocked_share,
        "concurrent_streams": streams,
        "chunk_tokens": CHUNK,
        "chunk_iter_ms": mixed / 1000,
        "itl_p99_after_ms": mixed / 1000,
        "ttft_before_ms": float(np.mean(long_iters)) / 1000,
        "ttft_after_ms": ttft_after / 1000,
        "gpu_idle_pct": 100 * (1 - sum(e.dur for e in rank.track(COMPUTE).events) / (windows[-1][1] - windows[0][0])),
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
    }
    tp_text = f"TP={tp}" if tp > 1 else "1 GPU per replica"
    context = serving_context(
        rng,
        hw,
        max(tp, 1),
        f"{model} ({precision} weights)",
        tp_text,
        figures["itl_p50_ms"],
        float(np.percentile(values, 99)),
        ("One ProfilerStep = one scheduler iteration: one new token for every running stream.",),
    )
    prefill_ms = figures["prefill_iter_ms"] * 1000
    figures |= {"chunk_prefill_ms": chunk_us * 0.95 / 1000, "chunks": n_chunks}
    reveal = Reveal(
        headline="Prefill blocks decode — a long prompt's prefill takes whole iterations; every decode stream "
        "waits behind it.",
        read=(
            (
                "Step boundary",
                f"Serving has no training step; the unit is a scheduler iteration. Healthy ones are "
                f"~{ms(decode_iter)} decode batches.",
            ),
            (
                "Gaps",
                f"None — the GPU is busy during the stall. When a {prompt:,}-token prompt arrives, one "
                f"iteration balloons to {ms(prefill_ms)} of prefill kernels (flash_fwd + GEMMs) with no decode "
                f"in it. ITL for all {streams} streams = prefill + one decode ≈ {ms(spike)}.",
            ),
            (
                "Overlap",
                "Batch composition is the problem: prefill (compute-bound) and decode (bandwidth-bound, "
                "latency-critical) run in mutually exclusive iterations instead of sharing them.",
            ),
            (
                "Spikes",
                f"Short prompts cause small bumps; only the long ones freeze streams — ITL tracks prompt "
                f"length. {blocked_share * 100:.1f}% of iterations blocked is enough to own the p99.",
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
            f"Chunked prefill (Sarathi-style): split prompts into {CHUNK}-token chunks co-scheduled with the "
            "decode batch under a per-iteration token budget; if long prompts dominate, disaggregate prefill "
            "and decode."
        ),
        arithmetic=(
            f"Mixed iteration ≈ {ms(decode_iter)} decode + {ms(chunk_us * 0.95)} for {CHUNK} prefill tokens ≈ "
            f"{ms(mixed)}.",
            f"ITL p99: {ms(spike)} → ~{ms(mixed)}.",
            f"Cost: the long prompt's TTFT goes {ms(prefill_ms)} → {n_chunks} × {ms(mixed)} ≈ {ms(ttft_after)} — "
            "the right trade for chat.",
        ),
        spoken=(
            f"p50 ITL is {figures['itl_p50_ms']:.0f} ms, p99 is {spike / 1000:.0f} — and the timeline shows why: "
            f"healthy {ms(decode_iter)} decode iterations, then a {ms(prefill_ms)} iteration of pure prefill when a "
            f"{prompt:,}-token prompt arrives. The GPU isn't idle during the stall, it's doing someone else's "
            "prefill — so not jitter, not capacity; scheduling. Fix is chunked prefill: "
            f"{CHUNK}-token chunks co-scheduled with decode, iterations around {ms(mixed)}, ITL p99 about the same. "
            f"The long prompt's TTFT rises to ~{ms(ttft_after)}, the right trade for chat. Confirm with ITL vs "
            "prefill tokens per iteration."
        ),
        tell="ITL spikes while the GPU is busy, lined up with long-prompt arrivals.",
    )
    li = long_at[0]
    annotations = [
        Annotation(
            0, COMPUTE, windows[li][0], windows[li][1], f"{ms(prefill_ms)} prefill ({prompt:,} tok): all decode waits"
        ),
        Annotation(0, ITL, windows[li][0], windows[li + 1][1], f"ITL spike {ms(spike)}"),
    ]
    return finish(ID, seed, difficulty, hw, context, [rank], "serving", windows, figures, reveal, annotations, first)
