"""Host–device synchronisation in the hot loop: each sync drains the queue and the GPU waits for Python."""

from __future__ import annotations

import numpy as np

from .. import serving_sync
from ..common import ms, plural
from ..dp import finish_training
from ..families import SERVING, draw_family
from ..model import Reveal, Scenario
from ..stalls import run_stall, stall_annotations, stall_context

ID = "sync_stall"
TITLE = "Synchronization stalls"
SUMMARY = "cudaStreamSynchronize from .item()/.cpu()/print(loss) drains the launch queue; the GPU waits."
TWIN = "alloc_stall"


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    family = draw_family(rng, ID)
    if family == SERVING:
        return serving_sync.generate(ID, rng, difficulty, seed)
    stall = run_stall(rng, difficulty, "sync", family)
    setup, run, f = stall.setup, stall.run, stall.figures
    step, after = f["step_ms"] * 1000, f["step_after_ms"] * 1000
    apis = sorted({c.name for c in stall.stall_calls})
    n = f["stall_calls_per_step"]
    context = stall_context(rng, stall, family, difficulty)
    reveal = Reveal(
        headline="Sync stalls — host–device synchronisation in the hot loop drains the launch queue every step.",
        read=(
            ("Step boundary", f"A steady {ms(step)} step."),
            (
                "Gaps",
                f"The GPU is idle {ms(f['gpu_idle_ms'] * 1000)} a step ({f['gpu_idle_pct']:.0f}%), in "
                f"{plural(f['stall_gaps_per_step'], 'hole')} of ~{ms(f['mean_gap_ms'] * 1000)}. Each hole follows a "
                f"{' / '.join(apis)} bar on the CUDA API row: the host waited for the GPU to drain, then spent "
                "time in Python before launching again.",
            ),
            (
                "Overlap",
                "Before each sync the launch row was running ahead; after it, launches and kernels line "
                "up — the queue is empty and the GPU waits for the CPU.",
            ),
            ("Top kernels", "Kernel mix and durations are normal; the loss is between kernels, not in them."),
        ),
        wrong_hypothesis=(
            "“cudaMalloc / the caching allocator” — the twin. But the API bars are "
            f"{' / '.join(apis)}, not cudaMalloc/cudaFree, and each sits under a Python op such as aten::item. "
            "Also rejected: “a slow kernel” — the time is idle, not busy."
        ),
        measurement=(
            f"Correlate each sync with the Python line above it (with_stack, or the aten::item op): {n:.0f} syncs "
            "per step. torch.cuda.set_sync_debug_mode('warn') names every implicit sync."
        ),
        fix=(
            "Take .item()/.cpu()/print(loss) out of the hot loop: log every N steps, keep metrics on the GPU and "
            "read them asynchronously, non_blocking copies, no data-dependent branches on GPU values."
        ),
        arithmetic=(
            f"{plural(f['stall_gaps_per_step'], 'hole')} × ~{ms(f['mean_gap_ms'] * 1000)} ≈ "
            f"{ms(f['stall_idle_ms'] * 1000)} of the {ms(f['gpu_idle_ms'] * 1000)} idle per step.",
            f"Before: {ms(step)}/step. After: ≈ {ms(after)}/step → {f['speedup']:.2f}× throughput.",
        ),
        spoken=(
            f"Step is {ms(step)}, but the GPU is idle {f['gpu_idle_pct']:.0f}% of it, in "
            f"{plural(f['stall_gaps_per_step'], 'hole')} per step. Every hole sits right after a {apis[0]} on the API row — the host waits for "
            "the GPU to drain, runs some Python, and only then launches again, so the pipeline empties each "
            "time. That's .item() or a print of the loss in the loop. I'd confirm with sync debug mode, then "
            f"log every N steps and keep metrics on the GPU: about {ms(after)} a step, {f['speedup']:.2f}×."
        ),
        tell=(
            "Its twin, the allocation stall, also shows an API bar followed by a GPU gap; the tell is which API: "
            "here cudaStreamSynchronize / cudaDeviceSynchronize under aten::item, not cudaMalloc / cudaFree."
        ),
    )
    annotations = stall_annotations(stall, f"{stall.stall_calls[0].name} ×{n:.0f}/step", "sync")
    return finish_training(ID, seed, difficulty, setup.hw, context, run, f, reveal, annotations)
