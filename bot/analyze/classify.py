"""From figures to the likeliest signature, with evidence in the reveals' words — and honest about what a
timeline cannot show."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .reading import Finding, Reading


def classify(r: Reading) -> list[Finding]:
    from .reading import Finding

    f = r.main.figures
    out: list[Finding] = []
    idle = f["gpu_idle_pct"]

    def add(signature: str, confidence: float, evidence: str) -> None:
        out.append(Finding(signature, round(min(max(confidence, 0.0), 1.0), 3), evidence))

    if len(r.ranks) > 1:
        computes = [x.figures["compute_ms"] for x in r.ranks]
        med = statistics.median(computes)
        worst = max(range(len(computes)), key=lambda i: computes[i])
        spread = computes[worst] / med - 1 if med else 0.0
        if f["sendrecv_per_step"] > 0 and f["collectives_per_step"] == 0 and f["comm_ms"] < 0.1 * f["step_ms"]:
            bubbles = statistics.fmean(x.figures["gpu_idle_pct"] for x in r.ranks)
            add(
                "pipeline_bubbles",
                0.5 + bubbles / 100,
                f"send/recv between ranks and every stage idle ~{bubbles:.0f}% of the step: pipeline fill and drain",
            )
        elif spread > 0.08:
            add(
                "straggler",
                0.6 + spread,
                f"rank {r.ranks[worst].rank} computes {computes[worst]:.0f} ms vs "
                f"~{med:.0f} ms on the others ({100 * spread:.0f}% longer); the others' long collective is waiting",
            )
    if f["comm_exposed_pct"] > 8 and not any(x.signature in ("straggler", "pipeline_bubbles") for x in out):
        monolithic = 0 < f["collectives_per_step"] <= 2
        add(
            "unoverlapped_allreduce",
            0.4 + f["comm_exposed_pct"] / 50 + (0.2 if monolithic else 0.0),
            f"{f['comm_exposed_ms']:.0f} ms of communication per step is exposed ({f['comm_exposed_pct']:.0f}% of "
            "the step), not hidden under compute" + (" — one collective after compute" if monolithic else ""),
        )
    if f["mean_kernel_us"] < 25 and idle > 25 and f["kernels_per_step"] > 150:
        add(
            "launch_bound",
            0.5 + idle / 100,
            f"{f['kernels_per_step']:.0f} kernels per step averaging "
            f"{f['mean_kernel_us']:.1f} µs with the GPU idle {idle:.0f}% between them: launch-bound",
        )
    if f["dataloader_wait_ms"] > 0.15 * f["step_ms"] or (
        idle > 10 and f["idle_at_step_start_ms"] > 0.6 * idle / 100 * f["step_ms"] and f["syncs_per_step"] < 1
    ):
        add(
            "input_starvation",
            0.45 + idle / 100,
            f"the GPU idles {f['idle_at_step_start_ms']:.0f} ms at the start of "
            f"each step; the main thread waits {f['dataloader_wait_ms']:.0f} ms in the dataloader",
        )
    if f["mallocs_per_step"] >= 0.5 and idle > 2:
        add(
            "alloc_stall",
            0.55 + idle / 100,
            f"{f['mallocs_per_step']:.1f} cudaMalloc/cudaFree per steady step, "
            f"each followed by a GPU gap ({idle:.0f}% idle)",
        )
    if f["syncs_per_step"] >= 0.5 and idle > 2 and f["mallocs_per_step"] < 0.5:
        add(
            "sync_stall",
            0.5 + idle / 100,
            f"{f['syncs_per_step']:.1f} host syncs per step, each followed by a GPU gap ({idle:.0f}% idle)",
        )
    if f["step_max_ms"] > 5 * f["step_median_ms"] and f["steps"] >= 10:
        # Ten-plus iterations where a few take 5× the median with the GPU busy: a serving engine, whose one
        # token read-back per iteration is by design, so this outranks the per-step sync it also shows.
        add(
            "prefill_blocks_decode",
            0.8,
            f"iterations are ~{f['step_median_ms']:.0f} ms but some take "
            f"{f['step_max_ms']:.0f} ms with the GPU busy: a long prefill holds whole iterations",
        )
    busy = f["gpu_busy_pct"]
    if not out and busy > 85:
        dram, tensor = f.get("dram_busy_pct"), f.get("tensor_busy_pct")
        # Under a memory-bound kernel DRAM runs high and the tensor pipe low; a compute-bound GEMM is the
        # other way round. Samples mix neighbouring kernels, so the test is on the contrast, not on peaks.
        if dram is not None and tensor is not None and dram > 55 and tensor < 42 and dram > 1.5 * tensor:
            add(
                "memory_bound_kernel",
                0.6,
                f"the timeline is {busy:.0f}% busy but DRAM bandwidth runs ~{dram:.0f}% "
                f"with tensor-active ~{tensor:.0f}%: the dominant kernel is memory-bound",
            )
        else:
            hedge = (
                ""
                if dram is not None
                else " (no GPU-metrics rows in this trace, so a memory-bound kernel "
                "cannot be ruled out here: check ncu)"
            )
            add(
                "healthy",
                0.55,
                f"the timeline looks healthy: {busy:.0f}% busy, comm "
                f"{f['comm_hidden_pct']:.0f}% hidden; what's left is inside kernels{hedge}",
            )
    if not out:
        add(
            "healthy",
            0.2,
            f"no timeline pathology stands out ({busy:.0f}% busy, {idle:.0f}% idle); the evidence is weak either way",
        )
    if r.main.step_numbers == [-1]:  # one window without step boundaries: warm-up and steady state mixed
        for x in out:
            x.confidence = round(x.confidence * 0.6, 3)
            x.evidence += " (read without ProfilerStep boundaries: warm-up may be mixed in)"
    out.sort(key=lambda x: -x.confidence)
    return out
