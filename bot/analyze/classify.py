"""From figures to the likeliest signature, with evidence in the reveals' words — and honest about what a
timeline cannot show."""

from __future__ import annotations

import statistics
from dataclasses import replace

from .model import Finding, Reading
from .stages import kernel_time_ratios, micro_batches_per_step

Figures = dict[str, float]

SLOW_STAGE = 1.08  # a stage whose kernels run this much longer than its peers' runs on a slower GPU
BUBBLY = 15.0  # % of the step a pipeline stage idles beyond which the schedule's fill and drain are worth fixing


def classify(r: Reading) -> list[Finding]:
    """Every signature the figures point to, likeliest first; when none does, how healthy the timeline looks."""
    f = r.main.figures
    out: list[Finding] = []
    if len(r.ranks) > 1 and (across := _across_ranks(r)) is not None:
        out.append(across)
    if not out and (exposed := _unoverlapped(f)) is not None:  # a straggler's peers expose their wait as comm
        out.append(exposed)
    for rule in (_launch_bound, _input_starvation, _alloc_stall, _sync_stall, _prefill_blocks_decode):
        if (found := rule(f)) is not None:
            out.append(found)
    if not out:
        out.append(_busy(f) if f["gpu_busy_pct"] > 85 else _nothing_stands_out(f))
    if r.main.step_numbers == [-1]:  # one window without step boundaries: warm-up and steady state mixed
        out = [
            replace(
                x,
                confidence=round(x.confidence * 0.6, 3),
                evidence=x.evidence + " (read without ProfilerStep boundaries: warm-up may be mixed in)",
            )
            for x in out
        ]
    return sorted(out, key=lambda x: -x.confidence)


def _finding(signature: str, confidence: float, evidence: str) -> Finding:
    return Finding(signature, round(min(max(confidence, 0.0), 1.0), 3), evidence)


def _across_ranks(r: Reading) -> Finding | None:
    """Ranks compared: pipeline stages exchanging activations and all idling, or one rank computing longer."""
    f = r.main.figures
    computes = [x.figures["compute_ms"] for x in r.ranks]
    med = statistics.median(computes)
    worst = max(range(len(computes)), key=lambda i: computes[i])
    spread = computes[worst] / med - 1 if med else 0.0
    if f["sendrecv_per_step"] > 0 and f["collectives_per_step"] == 0 and f["comm_ms"] < 0.1 * f["step_ms"]:
        return _pipeline(r)
    if spread > 0.08:
        return _finding(
            "straggler",
            0.6 + spread,
            f"rank {r.ranks[worst].rank} computes {computes[worst]:.0f} ms vs "
            f"~{med:.0f} ms on the others ({100 * spread:.0f}% longer); the others' long collective is waiting",
        )
    return None


def _pipeline(r: Reading) -> Finding:
    """Stages exchanging activations: one stage running the same kernels longer (a slow GPU the others wait for),
    GEMMs waiting on memory (micro-batches of too few tokens), a schedule with too few micro-batches (fill and
    drain), or none of these."""
    ratios = kernel_time_ratios(r)
    slow = max(range(len(ratios)), key=lambda i: ratios[i])
    idle = statistics.fmean(x.figures["gpu_idle_pct"] for x in r.ranks)
    if ratios[slow] > SLOW_STAGE:
        return _finding(
            "straggler",
            0.6 + ratios[slow] - 1,
            f"stage {r.ranks[slow].rank} runs the same kernels {ratios[slow]:.2f}× as long as the other stages, "
            f"which idle ~{idle:.0f}% of the step waiting for it",
        )
    if (memory := _memory_bound(r.main.figures)) is not None:  # even stages, many micro-batches, skinny GEMMs
        return memory
    p = len(r.ranks)
    m = micro_batches_per_step(next(x for x in r.model_ranks if x.rank == r.main.rank))
    ideal = 100 * (p - 1) / (m + p - 1) if m >= 1 else 0.0
    counted = f"{m:.0f} micro-batches per step over {p} stages: (p−1)/(m+p−1) = {ideal:.0f}%; " if m >= 1 else ""
    if max(idle, ideal) > BUBBLY:
        return _finding(
            "pipeline_bubbles",
            0.5 + idle / 100,
            f"{counted}every stage idle ~{idle:.0f}% of the step: pipeline fill and drain",
        )
    return _finding(
        "healthy",
        0.55,
        f"{counted}stages idle ~{idle:.0f}%, the same kernel times on every stage: the pipeline's fill and drain "
        "are thin and no stage is slow; what's left is inside kernels",
    )


def _unoverlapped(f: Figures) -> Finding | None:
    if f["comm_exposed_pct"] <= 8:
        return None
    monolithic = 0 < f["collectives_per_step"] <= 2
    return _finding(
        "unoverlapped_allreduce",
        0.4 + f["comm_exposed_pct"] / 50 + (0.2 if monolithic else 0.0),
        f"{f['comm_exposed_ms']:.0f} ms of communication per step is exposed ({f['comm_exposed_pct']:.0f}% of "
        "the step), not hidden under compute" + (" — one collective after compute" if monolithic else ""),
    )


def _launch_bound(f: Figures) -> Finding | None:
    # Idle in holes that host syncs opened is a sync stall's, not the picket fence's, even between short kernels.
    idle = f["gpu_idle_pct"] - f["idle_after_sync_pct"]
    if not (f["mean_kernel_us"] < 25 and idle > 25 and f["kernels_per_step"] > 150):
        return None
    return _finding(
        "launch_bound",
        0.5 + idle / 100,
        f"{f['kernels_per_step']:.0f} kernels per step averaging "
        f"{f['mean_kernel_us']:.1f} µs with the GPU idle {idle:.0f}% between them: launch-bound",
    )


def _input_starvation(f: Figures) -> Finding | None:
    idle = f["gpu_idle_pct"]
    idle_first = idle > 10 and f["idle_at_step_start_ms"] > 0.6 * idle / 100 * f["step_ms"] and f["syncs_per_step"] < 1
    if not (f["dataloader_wait_ms"] > 0.15 * f["step_ms"] or idle_first):
        return None
    return _finding(
        "input_starvation",
        0.45 + idle / 100,
        f"the GPU idles {f['idle_at_step_start_ms']:.0f} ms at the start of "
        f"each step; the main thread waits {f['dataloader_wait_ms']:.0f} ms in the dataloader",
    )


def _alloc_stall(f: Figures) -> Finding | None:
    idle = f["gpu_idle_pct"]
    if not (f["mallocs_per_step"] >= 0.5 and idle > 2):
        return None
    return _finding(
        "alloc_stall",
        0.55 + idle / 100,
        f"{f['mallocs_per_step']:.1f} cudaMalloc/cudaFree per steady step, "
        f"each followed by a GPU gap ({idle:.0f}% idle)",
    )


def _sync_stall(f: Figures) -> Finding | None:
    # A sync after which the GPU keeps working (an event wait on an earlier iteration) is no stall: count the
    # idle that opens while the host waits in a sync.
    held = f["idle_after_sync_pct"]
    if not (f["syncs_per_step"] >= 0.5 and held > 2 and f["mallocs_per_step"] < 0.5):
        return None
    return _finding(
        "sync_stall",
        0.5 + held / 100,
        f"{f['syncs_per_step']:.1f} host syncs per step, the GPU idle after them {held:.0f}% of the step",
    )


def _prefill_blocks_decode(f: Figures) -> Finding | None:
    # Ten-plus iterations where a few take 5× the median with the GPU busy: a serving engine, whose one token
    # read-back per iteration is by design, so this outranks the per-step sync it also shows.
    if not (f["step_max_ms"] > 5 * f["step_median_ms"] and f["steps"] >= 10):
        return None
    return _finding(
        "prefill_blocks_decode",
        0.8,
        f"iterations are ~{f['step_median_ms']:.0f} ms but some take "
        f"{f['step_max_ms']:.0f} ms with the GPU busy: a long prefill holds whole iterations",
    )


def _memory_bound(f: Figures) -> Finding | None:
    """The GPU-metrics rows under the dominant kernel: DRAM high and the tensor pipe low is a memory-bound kernel;
    a compute-bound GEMM is the other way round. Samples mix neighbouring kernels, so the test is on the contrast,
    not on peaks."""
    dram, tensor = f.get("dram_busy_pct"), f.get("tensor_busy_pct")
    if dram is None or tensor is None or not (dram > 55 and tensor < 42 and dram > 1.5 * tensor):
        return None
    return _finding(
        "memory_bound_kernel",
        0.6,
        f"the timeline is {f['gpu_busy_pct']:.0f}% busy but DRAM bandwidth runs ~{dram:.0f}% "
        f"with tensor-active ~{tensor:.0f}%: the dominant kernel is memory-bound",
    )


def _busy(f: Figures) -> Finding:
    """A busy timeline with nothing else wrong: memory-bound if the GPU metrics say so, else healthy."""
    if (memory := _memory_bound(f)) is not None:
        return memory
    busy = f["gpu_busy_pct"]
    dram = f.get("dram_busy_pct")
    hedge = (
        ""
        if dram is not None
        else " (no GPU-metrics rows in this trace, so a memory-bound kernel cannot be ruled out here: check ncu)"
    )
    return _finding(
        "healthy",
        0.55,
        f"the timeline looks healthy: {busy:.0f}% busy, comm "
        f"{f['comm_hidden_pct']:.0f}% hidden; what's left is inside kernels{hedge}",
    )


def _nothing_stands_out(f: Figures) -> Finding:
    return _finding(
        "healthy",
        0.2,
        f"no timeline pathology stands out ({f['gpu_busy_pct']:.0f}% busy, {f['gpu_idle_pct']:.0f}% idle); "
        "the evidence is weak either way",
    )
