"""Pipeline-parallel bubbles: 1F1B fill and drain leave idle wedges on every stage."""

from __future__ import annotations

import numpy as np

from .. import kernels as K
from ..common import by_difficulty, finish, ms, pct, pick
from ..families import training_complaint
from ..figures import RankActivity, compute_stream_gaps, hta_view
from ..hardware import TRAINING_GPUS
from ..model import Annotation, Category, Context, Event, Rank, Reveal, Scenario
from ..pipeline import ideal_bubble_fraction, schedule
from ..sim import COMPUTE, NCCL_STREAM, RankSim
from ..training import gemm_name

ID = "pipeline_bubbles"
TITLE = "Pipeline bubbles"
SUMMARY = "Pipeline-parallel fill/drain: idle wedges on every stage, bubble ≈ (p−1)/(m+p−1)."
TWIN = None
N_STEPS = 5
MAX_KERNELS_PER_STEP = 1000


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    hw = pick(rng, TRAINING_GPUS)
    stages = int(pick(rng, (4, 4, 8)))
    micros = {
        "easy": stages,
        "medium": int(pick(rng, (stages + 2, 2 * stages))),
        "hard": int(pick(rng, (2 * stages, 3 * stages))),
    }[difficulty]
    model, _params_b, depth = pick(
        rng, (("34B dense", 34.0, 48), ("70B dense", 70.0, 80), ("175B GPT-style", 175.0, 96))
    )
    # Transformer blocks per stage; past ~1,000 kernels per rank and step, blocks are drawn in groups (one
    # group's GEMMs as one bar each) so eight ranks stay readable and fast to draw.
    layers = min(depth // stages, max(4, round(MAX_KERNELS_PER_STEP / (10 * micros))))
    fwd = by_difficulty(difficulty, (6000.0, 14000.0), (5000.0, 12000.0), (4000.0, 9000.0), rng)
    # The last stage carries the LM head; on hard, one middle stage is also heavier (imbalanced layers).
    weight = [1.0] * stages
    weight[-1] = float(rng.uniform(1.08, 1.2))
    heavy = None
    if difficulty == "hard":
        heavy = int(rng.integers(1, stages - 1))
        weight[heavy] = float(rng.uniform(1.15, 1.3))
    fwd_us = [fwd * w for w in weight]
    bwd_us = [2.0 * f for f in fwd_us]
    p2p_us = float(rng.uniform(150.0, 400.0))
    opt_us = fwd * float(rng.uniform(0.6, 1.0))
    sims = [RankSim(s, rng, with_memcpy=False, with_nccl=True) for s in range(stages)]
    gemm_a, gemm_b, _ = (gemm_name(hw, "qkv"), gemm_name(hw, "out"), None)
    first = int(rng.integers(20, 300))
    t = 200.0
    windows: list[tuple[float, float]] = []
    for step in range(N_STEPS):
        ops = schedule(stages, micros, fwd_us, bwd_us, p2p_us, t0=t)
        step_end = max(op.end for op in ops) + opt_us
        for op in sorted(ops, key=lambda o: o.start):
            _emit_op(sims[op.stage], op.start, op.end, op.backward, gemm_a, gemm_b, stages, p2p_us, layers)
        for s, sim in enumerate(sims):
            last = max(op.end for op in ops if op.stage == s)
            _emit_kernel(sims[s], K.ADAM, last + 20.0, opt_us * 0.9 / weight[-1] * weight[s], "optimizer")
            sim.annotate(f"ProfilerStep#{first + step}", t - 150.0, step_end, Category.STEP)
        windows.append((t, step_end + 60.0))
        t = step_end + 60.0
    ranks = [_rank_with_launches(sim) for sim in sims]
    activity = [RankActivity(r) for r in ranks]  # once per rank: it merges all of the rank's kernels
    busy = [float(np.mean([a.step(w)["compute_us"] for w in windows])) for a in activity]
    step_us = float(np.mean([w[1] - w[0] for w in windows]))
    bubble = [1.0 - b / step_us for b in busy]
    measured = float(np.mean(bubble))
    ideal = ideal_bubble_fraction(stages, micros)
    imbalance = max(fwd_us) / float(np.mean(fwd_us))
    more = 4 * micros
    after_ops = schedule(stages, more, [f / 4 for f in fwd_us], [b / 4 for b in bwd_us], p2p_us)
    after = max(op.end for op in after_ops) + opt_us + 60.0
    hta = hta_view(ranks[0], len(windows) - 1, windows)
    figures: dict[str, float] = {
        "step_ms": step_us / 1000,
        "stages": stages,
        "micro_batches": micros,
        "bubble_pct": 100 * measured,
        "ideal_bubble_pct": 100 * ideal,
        "stage0_idle_pct": 100 * bubble[0],
        "imbalance": imbalance,
        "fwd_ms": fwd / 1000,
        "bwd_ms": 2 * fwd / 1000,
        "micro_batches_after": more,
        "ideal_bubble_after_pct": 100 * ideal_bubble_fraction(stages, more),
        "step_after_ms": after / 1000,
        "speedup": step_us / after,
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
    }
    heavy_text = (
        f" Stage {heavy}'s bars are visibly longer ({weight[heavy]:.2f}× the others): imbalance adds to the bubble."
        if heavy is not None
        else ""
    )
    context = Context(
        title=f"{stages * 8}×{hw.name} · {model} · LLM pre-training",
        hardware=f"{stages} nodes × 8 {hw.name}",
        model=f"{model}, BF16, global batch split into {micros} micro-batches per step",
        parallelism=f"{stages}-stage pipeline (1F1B) × TP=8 (traces: one rank per stage)",
        complaint=training_complaint(rng),
    )
    figures |= {
        "stage_idle_min_pct": 100 * min(bubble),
        "stage_idle_max_pct": 100 * max(bubble),
        "stage_last_idle_pct": 100 * bubble[-1],
        "p2p_ms": p2p_us / 1000,
        "heavy_stage_factor": weight[heavy] if heavy is not None else 1.0,
    }
    reveal = Reveal(
        headline=f"Pipeline bubbles — 1F1B fill and drain leave the stages idle {pct(min(bubble))}–"
        f"{pct(max(bubble))} of the step (mean {pct(measured)}).",
        read=(
            ("Step boundary", f"A {ms(step_us)} step on every stage, ending in the optimizer."),
            (
                "Gaps",
                f"Idle wedges on every stage, shaped like the 1F1B diagram: later stages wait at the start "
                f"for their first activations (fill), earlier ones at the end for gradients (drain). Stage 0 "
                f"is idle {pct(bubble[0])} of the step, stage {stages - 1} {pct(bubble[-1])}.",
            ),
            ("Overlap", f"Send/recv between stages is short ({ms(p2p_us)}); comm is not the problem, the schedule is."),
            ("Per-stage work", f"F ≈ {ms(fwd)}, B ≈ {ms(2 * fwd)} per micro-batch.{heavy_text}"),
        ),
        wrong_hypothesis=(
            "“Send/recv is slow — tune NCCL P2P.” The SendRecv kernels are a fraction of a millisecond; the idle "
            "time is where a stage has no micro-batch to work on, which is the schedule's shape, not the wire."
        ),
        measurement=(
            f"Bubble fraction from the trace: {pct(measured)} per stage vs (p−1)/(m+p−1) = "
            f"({stages}−1)/({micros}+{stages}−1) = {pct(ideal)}. "
            + (
                "Bigger than predicted → also imbalanced stages; compare per-stage F/B durations."
                if measured > ideal * 1.08
                else "It matches the formula: the bubble is the schedule itself."
            )
        ),
        fix=(
            f"More micro-batches per step (m={micros} → {more}, smaller micro-batches for the same global batch), "
            "an interleaved 1F1B or zero-bubble schedule, and rebalance layers across stages."
        ),
        arithmetic=(
            f"Ideal bubble: {pct(ideal)} at m={micros} → {pct(ideal_bubble_fraction(stages, more))} at m={more}.",
            f"Before: {ms(step_us)}/step. After (m={more}, same global batch): ≈ {ms(after)}/step → "
            f"{step_us / after:.2f}×.",
        ),
        spoken=(
            f"{stages} pipeline stages, {micros} micro-batches, {ms(step_us)} steps. Every stage "
            f"shows idle wedges at the start and the end of the step — about {pct(measured)} of the time. That's "
            f"the 1F1B fill and drain: (p−1)/(m+p−1) predicts {pct(ideal)}, and the trace "
            + ("matches it" if measured <= ideal * 1.08 else "is worse, so the stages are imbalanced too")
            + f". Send/recv is tiny, so it's not the wire. With {more} micro-batches the bubble drops to "
            f"{pct(ideal_bubble_fraction(stages, more))}: about {ms(after)} per step, {step_us / after:.2f}×; "
            "interleaving shrinks it further."
        ),
        tell="Idle wedges shaped like the 1F1B diagram, per stage, at fill and drain.",
    )
    w = windows[1]
    fill = max(compute_stream_gaps(ranks[0], w), key=lambda g: g[1] - g[0])
    drain = max(compute_stream_gaps(ranks[-1], w), key=lambda g: g[1] - g[0])
    annotations = [
        Annotation(
            0,
            COMPUTE,
            *fill,
            f"stage 0 waits {ms(fill[1] - fill[0])} for the first gradients (bubble {pct(bubble[0])} of the step)",
        ),
        Annotation(stages - 1, COMPUTE, *drain, f"bubble {pct(measured)} vs ideal (p−1)/(m+p−1) = {pct(ideal)}"),
    ]
    return finish(ID, seed, difficulty, hw, context, ranks, "training", windows, figures, reveal, annotations, first)


def _emit_kernel(
    sim: RankSim, name: str, start: float, dur: float, kind: str, stream: int = 7, category: Category = Category.COMPUTE
) -> None:
    corr = sim.next_correlation()
    sim.streams[stream].events.append(Event(name, start, dur, category, corr, None, kind))


_FWD_LAYER = (("a", "gemm", 0.28), ("flash", "attn", 0.2), ("b", "gemm", 0.12), ("a", "gemm", 0.4))
_BWD_LAYER = (
    ("b", "gemm", 0.2),
    ("a", "gemm", 0.2),
    ("flash", "attn", 0.2),
    ("b", "gemm", 0.14),
    ("a", "gemm", 0.13),
    ("b", "gemm", 0.13),
)


def _emit_op(
    sim: RankSim,
    start: float,
    end: float,
    backward: bool,
    gemm_a: str,
    gemm_b: str,
    stages: int,
    p2p_us: float,
    layers: int,
) -> None:
    """One micro-batch's forward or backward through this stage's `layers` blocks (the GEMMs and attention of
    each; norms and elementwise work are fused into them), plus the send to the neighbour stage."""
    flash = K.FLASH_BWD if backward else K.FLASH_FWD
    per_layer = _BWD_LAYER if backward else _FWD_LAYER
    t = start
    span = (end - start) / layers
    for _ in range(layers):
        for which, kind, share in per_layer:
            name = flash if which == "flash" else (gemm_a if which == "a" else gemm_b)
            _emit_kernel(sim, name, t, span * share - 1.5, kind)
            t += span * share
    sends = (sim.rank > 0) if backward else (sim.rank < stages - 1)
    if sends:
        _emit_kernel(sim, K.NCCL_SENDRECV, end + 5.0, p2p_us * 0.9, "nccl", NCCL_STREAM, Category.NCCL)


def _rank_with_launches(sim: RankSim) -> Rank:
    """Give every kernel a launch on the CUDA API row, ahead of it and in order, as a host thread would."""
    kernels = sorted((e for t in sim.streams.values() for e in t.events), key=lambda e: e.start)
    cursor = 0.0
    for k in kernels:
        cost = sim.u(4.0, 8.0)
        start = max(cursor, k.start - sim.u(60.0, 400.0))
        start = min(start, k.start - cost - 1.0)
        sim.api.events.append(Event("cudaLaunchKernel", start, cost, Category.LAUNCH, k.correlation))
        cursor = start + cost
    for track in sim.streams.values():
        track.events.sort(key=lambda e: e.start)
    return sim.rank_model()
