"""Steady-state cudaMalloc/cudaFree: caching-allocator misses synchronise the device and stall the GPU."""

from __future__ import annotations

import numpy as np

from ..common import ms, plural
from ..dp import finish_training
from ..families import draw_family
from ..model import Reveal, Scenario
from ..stalls import run_stall, stall_annotations, stall_context

ID = "alloc_stall"
TITLE = "Memory-allocation stalls"
SUMMARY = "cudaMalloc/cudaFree in steady state: allocator misses, fragmentation or empty_cache() in the loop."
TWIN = "sync_stall"


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    family = draw_family(rng, ID)
    stall = run_stall(rng, difficulty, "alloc", family)
    setup, run, f = stall.setup, stall.run, stall.figures
    step, after = f["step_ms"] * 1000, f["step_after_ms"] * 1000
    mallocs = sum(1 for c in stall.stall_calls if c.name == "cudaMalloc")
    frees = sum(1 for c in stall.stall_calls if c.name == "cudaFree")
    f |= {"mallocs_per_step": float(mallocs), "frees_per_step": float(frees)}
    context = stall_context(rng, stall, family, difficulty)
    free_text = f" and {frees} cudaFree (after empty_cache())" if frees else ""
    reveal = Reveal(
        headline="Allocation stalls — steady-state cudaMalloc/cudaFree: the caching allocator misses every step.",
        read=(
            ("Step boundary", f"A steady {ms(step)} step — past warm-up, so the allocator pool should be warm."),
            (
                "Gaps",
                f"The GPU is idle {ms(f['gpu_idle_ms'] * 1000)} a step ({f['gpu_idle_pct']:.0f}%), in "
                f"{plural(f['stall_gaps_per_step'], 'hole')} of ~{ms(f['mean_gap_ms'] * 1000)}. Each follows a "
                f"cudaMalloc{'/cudaFree' if frees else ''} bar on the CUDA API row: {mallocs} cudaMalloc"
                f"{free_text} per step.",
            ),
            (
                "Overlap",
                "cudaMalloc and cudaFree synchronise the device: the queue drains, then the GPU waits for "
                "the allocation and for the CPU to launch again.",
            ),
            ("Top kernels", "Kernels themselves are normal; the loss is between them."),
        ),
        wrong_hypothesis=(
            "“.item() syncs” — the twin. The bars are cudaMalloc/cudaFree under aten::empty_strided"
            f"{' and torch.cuda.empty_cache' if frees else ''}, not cudaStreamSynchronize under aten::item. "
            "Also rejected: “it's warm-up” — these recur in every steady-state step."
        ),
        measurement=(
            "torch.cuda.memory_stats(): num_alloc_retries rising and reserved ≫ allocated (fragmentation); a "
            f"memory snapshot shows the sawtooth; count cudaMalloc per step in the profiler ({mallocs} here)."
        ),
        fix=(
            "Stabilise shapes (bucket or pad variable sequence lengths), "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, remove empty_cache() from the loop, preallocate "
            "buffers that are reused."
        ),
        arithmetic=(
            f"{plural(f['stall_gaps_per_step'], 'stall')} × ~{ms(f['mean_gap_ms'] * 1000)} ≈ "
            f"{ms(f['stall_idle_ms'] * 1000)} of the {ms(f['gpu_idle_ms'] * 1000)} idle per step.",
            f"Before: {ms(step)}/step. After: ≈ {ms(after)}/step → {f['speedup']:.2f}× throughput.",
        ),
        spoken=(
            f"Step is {ms(step)} with {f['gpu_idle_pct']:.0f}% of it idle, in "
            f"{plural(f['stall_gaps_per_step'], 'hole')}. Each follows a cudaMalloc{' or cudaFree' if frees else ''} on the API row — in steady "
            "state, where the caching allocator should serve everything from its pool. cudaMalloc synchronises "
            "the device, so every miss drains the pipeline. I'd confirm with memory_stats — alloc retries and "
            "reserved versus allocated — then stabilise shapes, turn on expandable segments and drop "
            f"empty_cache from the loop: about {ms(after)} a step, {f['speedup']:.2f}×."
        ),
        tell=(
            "Its twin, the sync stall, also shows an API bar followed by a GPU gap; the tell is which API: here "
            "cudaMalloc / cudaFree under an allocation, not cudaStreamSynchronize under aten::item."
        ),
    )
    annotations = stall_annotations(
        stall, f"{stall.stall_calls[0].name} in steady state ×{len(stall.stall_calls)}/step", "allocation"
    )
    return finish_training(ID, seed, difficulty, setup.hw, context, run, f, reveal, annotations)
