"""The input pipeline cannot keep up: the GPU idles at the start of every step while workers decode."""

from __future__ import annotations

import math

import numpy as np

from ..common import TrainingSetup, finish, ms, pct, pick, setup_figures
from ..dp import run_dp
from ..families import TRAINING_WORLDS, VISION_TOKENS, draw_family, family_gpus, family_models, setup_context
from ..figures import gpu_gaps, hta_view
from ..model import Annotation, Category, Reveal, Scenario
from ..sim import COMPUTE, MAIN_THREAD
from ..training import DataLoaderSpec, transformer_program

ID = "input_starvation"
TITLE = "Input-pipeline starvation"
SUMMARY = "The dataloader cannot keep up: the GPU idles at the start of each step while workers are busy."
TWIN = None

# Images per second one CPU core turns from a 224-px JPEG into a training tensor (PIL decode, RandomResizedCrop,
# flip, normalise): ~100-200 on a server core. A fixed per-core rate, not one derived from the step time.
DECODE_IMG_S_PER_CORE = (110.0, 170.0)


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    family = draw_family(rng, ID)
    lo, hi = {"easy": (0.3, 0.42), "medium": (0.2, 0.3), "hard": (0.1, 0.18)}[difficulty]
    gap_target = float(rng.uniform(lo, hi))
    rate = float(rng.uniform(*DECODE_IMG_S_PER_CORE))
    for _ in range(200):  # a GPU and model whose demand a whole number of workers misses by about `gap_target`
        hw = pick(rng, family_gpus(family))
        model = pick(rng, family_models(family))
        world = int(pick(rng, TRAINING_WORLDS))
        eff = float(rng.uniform(0.4, 0.55))
        per_image_us = 6.0 * model.params_b * 1e9 * VISION_TOKENS / (hw.bf16_tflops * 1e12 * eff) * 1e6
        workers = math.floor((1.0 - gap_target) / (per_image_us * 1e-6 * rate))
        realised = 1.0 - per_image_us * 1e-6 * rate * workers  # the GPU's idle share once starved
        if 3 <= workers <= 32 and lo <= realised <= hi + 0.04:
            break
    fitting = [
        b
        for b in (128, 192, 256, 384, 512)
        if TrainingSetup(hw, world, model, VISION_TOKENS, b, per_image_us * b, eff).fits
    ]
    batch = int(pick(rng, fitting or [64]))
    compute_us = per_image_us * batch
    decode_us = batch / rate * 1e6  # one batch on one worker
    batch_bytes = batch * 3 * 224 * 224  # uint8 images
    h2d_us = batch_bytes / 22e9 * 1e6  # pinned PCIe copy
    loader = DataLoaderSpec(workers, decode_us, 2, h2d_us, batch_bytes)
    program = transformer_program(hw, rng, layers=model.blocks, compute_us=compute_us)
    setup = TrainingSetup(hw, world, model, VISION_TOKENS, batch, compute_us, eff)
    run = run_dp(setup, rng, program, dataloader=loader, with_nccl=False, distractors=difficulty == "hard")
    rank = run.ranks[0]
    b = run.rank0
    step = b["step_us"]
    w = run.windows[0][1]
    gaps = gpu_gaps(rank, w, min_us=500.0)
    lead_gap = gaps[0][1] - gaps[0][0] if gaps else 0.0
    waits = [e for e in rank.track(MAIN_THREAD).events if e.category is Category.DATALOADER]
    wait_mean = float(np.mean([e.dur for e in waits[1:]])) if len(waits) > 1 else waits[0].dur
    per_worker = batch / (decode_us * 1e-6)
    supply = workers * per_worker
    demand = batch / ((b["compute_us"] + h2d_us) * 1e-6)
    needed = math.ceil(workers * demand / supply * 1.5)
    after = b["compute_us"] + h2d_us + 1000.0
    hta = hta_view(rank, len(run.windows[0]) - 1, run.windows[0])
    figures = {
        **setup_figures(setup),
        "step_ms": step / 1000,
        "compute_ms": b["compute_us"] / 1000,
        "gpu_idle_ms": b["idle_us"] / 1000,
        "gpu_idle_pct": 100 * b["idle_us"] / step,
        "start_gap_ms": lead_gap / 1000,
        "dataloader_wait_ms": wait_mean / 1000,
        "workers": workers,
        "supply_img_s": supply,
        "demand_img_s": demand,
        "workers_needed": needed,
        "h2d_ms": h2d_us / 1000,
        "batch": batch,
        "step_after_ms": after / 1000,
        "speedup": step / after,
        "hta_idle_pct": hta["idle_pct"],
        "hta_overlap_pct": hta["overlap_pct"],
    }
    context = setup_context(rng, family, setup, step, difficulty)
    figures |= {
        "unexplained_ms": (step - after) / 1000,
        "img_s_per_worker": per_worker,
        "busy_ms": (b["compute_us"] + h2d_us) / 1000,
        "supply_after_img_s": needed * per_worker,
        "supply_after_ratio": needed * per_worker / demand,
    }
    reveal = Reveal(
        headline="Input starvation — the dataloader cannot keep up; the GPU waits at the start of every step.",
        read=(
            (
                "Step boundary",
                f"A {ms(step)} step; the reference does ~{ms(after)}, so ~{ms(step - after)} is unexplained.",
            ),
            (
                "Gaps",
                f"The compute stream is idle for the first ~{ms(lead_gap)} of every step. Meanwhile the main "
                f"thread sits in DataLoader.__next__ (~{ms(wait_mean)}) and the {workers} worker rows are "
                "busy decoding without a break. The GPU is waiting on Python.",
            ),
            (
                "Overlap",
                f"The H2D copy is {ms(h2d_us)} — real but small. Once fed, the busy {ms(b['compute_us'])} is healthy.",
            ),
            (
                "Top kernels",
                "Nothing to win inside the busy region; jumping to the longest kernel would optimise a "
                f"GEMM in a step that is {figures['gpu_idle_pct']:.0f}% idle.",
            ),
        ),
        wrong_hypothesis=(
            "“nvidia-smi says 100%, so the GPU is busy — the kernels must be slow.” That counter means some kernel "
            f"was resident during a coarse sample; a GPU idle {pct(b['idle_us'] / step)} of every step can still read 100%. Also "
            f"rejected: “the H2D copy” — it is {ms(h2d_us)}, not {ms(lead_gap)}."
        ),
        measurement=(
            f"Time next(dataloader) per step (NVTX it): ~{ms(wait_mean)}, covering the {ms(lead_gap)} gap (the "
            "host had run ahead into the wait). The decisive "
            "experiment: swap in a synthetic in-memory dataset — if the step drops to "
            f"~{ms(after)}, the input pipeline is convicted."
        ),
        fix=(
            f"num_workers={workers} → {needed}, pin_memory=True with non_blocking copies, prefetch_factor=4, "
            "persistent_workers=True; if CPU decode is still the wall, GPU decode (DALI / nvJPEG) or "
            "preprocess offline."
        ),
        arithmetic=(
            f"Supply: {workers} workers × ~{per_worker:.0f} img/s = {supply:.0f} img/s; demand: {batch} images / "
            f"{ms(b['compute_us'] + h2d_us)} = {demand:.0f} img/s.",
            f"{needed} workers supply ~{needed * per_worker:.0f} img/s, {needed * per_worker / demand:.1f}× demand.",
            f"Before: {ms(step)}/step. After: ≈ {ms(after)}/step → {step / after:.2f}× throughput.",
        ),
        spoken=(
            f"Step is {ms(step)} but the compute stream is idle for the first {ms(lead_gap)} of every one — the "
            f"main thread is stuck in DataLoader.__next__ and {workers} workers are pegged decoding. nvidia-smi's "
            f"100% is 'a kernel was resident', the trace overrules it. Supply is ~{supply:.0f} images a second, "
            f"the GPU eats {demand:.0f}. The busy part is healthy, nothing to win there. Fix: {needed} workers, "
            f"pinned memory, prefetch; confirm with a synthetic-data run. Expect ~{ms(after)}, {step / after:.2f}×."
        ),
        tell="The gap is at the start of the step, the main thread waits in __next__ and the worker rows are busy.",
    )
    wait0 = next((e for e in waits if e.start >= w[0]), waits[-1])
    annotations = [
        Annotation(0, COMPUTE, gaps[0][0], gaps[0][1], f"GPU idle {ms(lead_gap)} at step start")
        if gaps
        else Annotation(0, COMPUTE, w[0], w[1], "busy"),
        Annotation(0, MAIN_THREAD, wait0.start, wait0.end, f"waiting in DataLoader.__next__ ~{ms(wait_mean)} a step"),
    ]
    return finish(
        ID,
        seed,
        difficulty,
        hw,
        context,
        run.ranks,
        "training",
        run.windows[0],
        figures,
        reveal,
        annotations,
        run.first_step_number,
    )
