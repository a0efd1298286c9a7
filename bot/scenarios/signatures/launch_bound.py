"""Host/launch-bound decode: thousands of tiny kernels, each launched just in time; a picket fence."""

from __future__ import annotations

import numpy as np

from .. import kernels as K
from ..common import by_difficulty, finish, ms, pick, us_
from ..families import SERVING_MODELS, serving_context
from ..figures import RankActivity, hta_view
from ..hardware import A100, H100, H200
from ..kernels import gemms
from ..model import Annotation, Category, Event, Reveal, Scenario
from ..sim import COMPUTE, CUDA_API, RankSim

ID = "launch_bound"
TITLE = "Host / launch-bound"
SUMMARY = "Thousands of tiny kernels; launch overhead ≥ kernel time; the GPU waits between kernels."
TWIN = None
N_TOKENS = 5

DECODE_MODELS = SERVING_MODELS


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    hw = pick(rng, (H100, H200, A100))
    name, params_b, layers, hidden, inter = pick(rng, DECODE_MODELS)
    precision, bytes_per_param = pick(rng, (("INT8 weight-only", 1.0), ("FP8", 1.0), ("BF16", 2.0)))
    weight_bytes = params_b * 1e9 * bytes_per_param
    floor_us = weight_bytes / (hw.hbm_gbps * 1e9) * 1e6
    busy_us = floor_us / float(rng.uniform(0.78, 0.9))
    # The token is `idle_share` launch overhead: the host needs that long to launch its kernels.
    idle_share = by_difficulty(difficulty, (0.62, 0.72), (0.5, 0.62), (0.38, 0.5), rng)
    python_us = float(rng.uniform(8.0, 22.0))
    kernels_needed = busy_us / (1.0 - idle_share) / (python_us + 5.5)
    extra = max(4, round(kernels_needed / layers) - 5)  # unfused elementwise kernels per layer
    sim = RankSim(0, rng, launch_us=(4.0, 7.0), queue_depth=10_000, with_memcpy=False)
    gemm_a, gemm_b, gemm_c = gemms(hw)
    attn_params = 4 * hidden * hidden
    mlp_params = 3 * hidden * inter
    per_layer = attn_params + mlp_params
    layer_us = busy_us * 0.93 / layers
    gemv = (
        (gemm_a, 3 * hidden * hidden),
        (gemm_b, hidden * hidden),
        (gemm_a, 2 * hidden * inter),
        (gemm_c, hidden * inter),
    )
    elementwise = (K.CAST, K.ADD, K.ROTARY, K.FILL, K.RMSNORM, K.SILU)
    tiny_us = busy_us * 0.07 / (layers * (extra + 1))
    windows: list[tuple[float, float]] = []
    first = int(rng.integers(40, 900))
    previous_end = 0.0
    for token in range(N_TOKENS):
        cpu_start = sim.cpu
        for _layer in range(layers):
            for i in range(extra):
                sim.launch(elementwise[i % len(elementwise)], sim.u(0.6, 1.4) * tiny_us, "tiny")
                sim.idle_host(sim.u(0.7, 1.3) * python_us)
                if i == extra // 3:
                    for kname, p in gemv[:2]:
                        sim.launch(kname, layer_us * p / per_layer * sim.u(0.95, 1.05), "elementwise")
                        sim.idle_host(sim.u(0.7, 1.3) * python_us)
                    sim.launch(K.FLASH_DECODE, tiny_us * 3, "attn")
                    sim.idle_host(sim.u(0.7, 1.3) * python_us)
                if i == 2 * extra // 3:
                    for kname, p in gemv[2:]:
                        sim.launch(kname, layer_us * p / per_layer * sim.u(0.95, 1.05), "elementwise")
                        sim.idle_host(sim.u(0.7, 1.3) * python_us)
        sim.launch(gemm_a, busy_us * 0.05, "elementwise")  # LM head
        sim.idle_host(python_us)
        sim.main.events.append(Event("model.forward", cpu_start, sim.cpu - cpu_start, Category.CPU_OP))
        sim.annotate(f"ProfilerStep#{first + token}", cpu_start, sim.cpu, Category.STEP)
        end = sim.gpu_drained_at()
        windows.append((previous_end if token else cpu_start, end))
        previous_end = end
    rank = sim.rank_model()
    activity = RankActivity(rank)
    rows = [activity.step(w) for w in windows]
    token_us = float(np.mean([r["step_us"] for r in rows]))
    kernel_sum = float(np.mean([r["kernel_sum_us"] for r in rows]))
    n_kernels = float(np.mean([r["kernels"] for r in rows]))
    idle = token_us - kernel_sum
    mean_kernel = kernel_sum / n_kernels
    mean_gap = idle / n_kernels
    lo, hi = windows[1]
    api_time = sum(e.dur for e in sim.api.events if lo <= e.start < hi)
    graphs_idle = 500.0
    after = kernel_sum * 0.85 + graphs_idle
    hta = hta_view(activity, len(windows) - 1, windows)
    figures = {
        "token_ms": token_us / 1000,
        "step_ms": token_us / 1000,
        "kernel_sum_ms": kernel_sum / 1000,
        "gpu_idle_ms": idle / 1000,
        "gpu_idle_pct": 100 * idle / token_us,
        "kernels_per_step": n_kernels,
        "mean_kernel_us": mean_kernel,
        "mean_gap_us": mean_gap,
        "launch_api_share_pct": 100 * api_time / (hi - lo),
        "weight_gb": weight_bytes / 1e9,
        "bandwidth_floor_ms": floor_us / 1000,
        "step_after_ms": after / 1000,
        "speedup": token_us / after,
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
    }
    token_times = [(b - a) / 1000 for a, b in windows[1:]]
    context = serving_context(
        rng,
        hw,
        1,
        f"{name} ({precision} weights)",
        "1 GPU per replica",
        float(np.percentile(token_times, 50)),
        float(np.percentile(token_times, 99)),
        ("One ProfilerStep = one scheduler iteration: one new token for every running stream.",),
    )
    figures |= {
        "host_us_per_launch": mean_kernel + mean_gap,
        "graphs_idle_ms": graphs_idle / 1000,
        "kernel_sum_after_ms": kernel_sum * 0.85 / 1000,
    }
    reveal = Reveal(
        headline=f"Launch-bound — {n_kernels:,.0f} tiny kernels per token; the GPU waits for the CPU to launch each.",
        read=(
            (
                "Step boundary",
                f"One decode step = one token = {ms(token_us)}. No single gap, no long kernel: a picket fence.",
            ),
            (
                "Gaps",
                f"~{n_kernels:,.0f} kernels per token averaging {us_(mean_kernel)}, with ~{us_(mean_gap)} idle "
                f"between consecutive ones: {ms(kernel_sum)} busy + {ms(idle)} idle = {ms(token_us)}. The "
                f"token is {pct_text(idle / token_us)} launch overhead.",
            ),
            (
                "Overlap",
                "The CUDA API row is a solid wall of cudaLaunchKernel and each kernel starts right under "
                "its launch — the CPU never gets ahead, there is no queue.",
            ),
            (
                "Top kernels",
                "GEMVs and unfused elementwise kernels (casts, rotary, rmsnorm pieces) — each shorter "
                "than the launch that feeds it.",
            ),
        ),
        wrong_hypothesis=(
            "“The small GEMMs are inefficient — tune tiles or quantise.” At batch 1 the GEMVs are bandwidth-bound "
            f"and already near their floor: {weight_bytes / 1e9:.1f} GB of weights over {hw.hbm_gbps / 1000:.2f} "
            f"TB/s ≈ {ms(floor_us)}, close to the {ms(kernel_sum)} busy. Faster kernels attack the busy part; the "
            f"bug is the {ms(idle)} of nothing."
        ),
        measurement=(
            f"nsys stats --report cuda_api_sum: cudaLaunchKernel ≈ {n_kernels:,.0f} per token with API time ≈ "
            f"wall time ({figures['launch_api_share_pct']:.0f}% of the token here); kernels per token vs a fused, "
            "graphed decode (a few hundred); mean kernel duration "
            f"({us_(mean_kernel)}) against the host's ~{us_(mean_kernel + mean_gap)} per launch (kernel + gap)."
        ),
        fix=(
            "Capture the decode step in a CUDA graph (static shapes at batch 1) so one launch replays it, and "
            "fuse the elementwise soup with torch.compile (rmsnorm + rotary + residual)."
        ),
        arithmetic=(
            f"Graphs: idle {ms(idle)} → ~{ms(graphs_idle)}. Fusion: busy {ms(kernel_sum)} → ~{ms(kernel_sum * 0.85)}.",
            f"Before: {ms(token_us)}/token. After: ≈ {ms(after)}/token → {token_us / after:.1f}×, near the "
            f"{ms(floor_us)} weight-bandwidth floor.",
        ),
        spoken=(
            f"{ms(token_us)} per token, but the kernels only add up to {ms(kernel_sum)}. The timeline is a picket "
            f"fence: ~{n_kernels:,.0f} kernels per token averaging {us_(mean_kernel)} with {us_(mean_gap)} gaps — "
            "kernels shorter than their launches, the CPU's launch wall keeping the GPU starved. The GEMVs are "
            f"already at the weight-bandwidth floor, {ms(floor_us)}, so tuning them is the wrong target. "
            "CUDA-graph the decode step and fuse the elementwise kernels; confirm with cuda_api_sum. Expect "
            f"~{ms(after)} per token, {token_us / after:.1f}×."
        ),
        tell="Confetti kernels with gaps between every pair, and launches vertically aligned with their kernels.",
    )
    zoom_start = windows[2][0] + 0.4 * (windows[2][1] - windows[2][0])
    zoom = (zoom_start, zoom_start + 3000.0)
    annotations = [
        Annotation(
            0, COMPUTE, *zoom, f"{n_kernels:,.0f} kernels/token · mean {us_(mean_kernel)} · gap {us_(mean_gap)}"
        ),
        Annotation(0, CUDA_API, *zoom, f"launch wall: API time {figures['launch_api_share_pct']:.0f}% of wall time"),
    ]
    return finish(
        ID, seed, difficulty, hw, context, [rank], "training", windows, figures, reveal, annotations, first, zoom=zoom
    )


def pct_text(x: float) -> str:
    return f"{100 * x:.0f}%"
