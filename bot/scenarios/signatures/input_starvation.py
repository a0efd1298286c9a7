"""The input pipeline cannot keep up: the GPU idles at the start of every step while workers prepare batches."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..common import Model, TrainingSetup, ms, pct, pick, plural, setup_figures, us_
from ..dp import DPRun, finish_training, run_dp
from ..families import (
    LLM,
    RECSYS,
    TRAINING_WORLDS,
    VISION,
    draw_family,
    family_gpus,
    family_models,
    family_pair_ok,
    family_seqs,
    setup_context,
)
from ..figures import gpu_gaps, hta_view
from ..model import Annotation, Category, Hardware, Reveal, Scenario
from ..sim import COMPUTE, MAIN_THREAD
from ..training import DataLoaderSpec, program_kernel_us, transformer_program

ID = "input_starvation"
TITLE = "Input-pipeline starvation"
SUMMARY = "The dataloader cannot keep up: the GPU idles at the start of each step while workers are busy."
TWIN = None


@dataclass(frozen=True, slots=True)
class Loader:
    """One family's input pipeline: what a worker does to a sample and how fast one worker does it."""

    unit: str  # what a sample is called: images, sequences, samples
    short: str  # the unit in a rate: img, seq, samples
    work: str  # the worker row's label
    rate: tuple[float, float]  # samples per second one worker prepares: a fixed per-core figure
    workers: tuple[int, int]  # num_workers the job was launched with
    batches: tuple[int, ...]  # samples per GPU per step
    bytes_per_token: float  # bytes of the finished sample copied to the GPU, per token of the model
    why: str  # what the worker spends its time on
    offload: str  # the fix beyond more workers


LOADERS: dict[str, Loader] = {
    # PIL decode, RandomResizedCrop, flip, normalise of a 224-px JPEG: ~100-200 images/s on a server core.
    VISION: Loader(
        "images",
        "img",
        "decode + augment",
        (110.0, 170.0),
        (3, 32),
        (128, 192, 256, 384, 512),
        3 * 224 * 224 / 197,
        "decoding JPEGs",
        "GPU decode (DALI / nvJPEG) or preprocess offline",
    ),
    # Each packed sequence is a few random reads of a tokenised shard on a loaded network file system:
    # ~80-650 ms of round trips per sequence, so 1.5-12 sequences/s per worker, whatever the model.
    LLM: Loader(
        "sequences",
        "seq",
        "read shard + pack",
        (1.5, 12.0),
        (1, 8),
        (1, 2, 4, 8),
        8.0,  # int64 token ids
        "waiting on random reads of the tokenised shards from the network file system",
        "stage the shards on local NVMe and read them in large sequential chunks",
    ),
    # Per-row Python feature code (hashing, bucketising, negative sampling) over a 256-1,024-event history:
    # 5-12 ms a sample on one core.
    RECSYS: Loader(
        "samples",
        "samples",
        "build features",
        (80.0, 200.0),
        (3, 16),
        (32, 64, 128, 256),
        32.0,  # four int64 feature ids per event
        "running per-row Python feature code",
        "vectorise the feature code or move it to the GPU, or precompute the features offline",
    ),
}


@dataclass(frozen=True, slots=True)
class StarvedJob:
    setup: TrainingSetup
    workers: int
    rate: float  # samples per second per worker
    gap: float  # the GPU's idle share once starved


def _draw_job(rng: np.random.Generator, family: str, loader: Loader, gap: float) -> StarvedJob:
    """A GPU, model and worker count whose demand the workers miss by `gap` of the step: the per-worker rate
    that gives it must be one the family's pipeline really has. The GPU/model pair is drawn first, as for every
    signature of the family, and kept if some job on it starves."""
    pair_ok = family_pair_ok(family)
    for _ in range(500):
        hw, model = pick(rng, family_gpus(family)), pick(rng, family_models(family))
        if pair_ok is not None and not pair_ok(hw, model):
            continue
        for _ in range(300):  # enough tries that every pair of the family finds its starved jobs
            job = _starved_job(rng, family, loader, gap, hw, model)
            if job is not None:
                return job
    raise RuntimeError(f"no {family} job starves at {gap:.2f}")  # a table error, not bad luck


def _starved_job(
    rng: np.random.Generator, family: str, loader: Loader, gap: float, hw: Hardware, model: Model
) -> StarvedJob | None:
    tokens = int(pick(rng, family_seqs(family)))
    eff = float(rng.uniform(0.4, 0.55))
    per_sample_us = 6.0 * model.params_b * 1e9 * tokens / (hw.bf16_tflops * 1e12 * eff) * 1e6
    workers = int(rng.integers(loader.workers[0], loader.workers[1] + 1))
    rate = (1.0 - gap) / (per_sample_us * 1e-6 * workers)  # workers × rate = (1 − gap) × demand
    if not loader.rate[0] <= rate <= loader.rate[1]:
        return None
    world = int(pick(rng, TRAINING_WORLDS))
    fitting = [
        b
        for b in loader.batches
        if TrainingSetup(hw, world, model, tokens, b, per_sample_us * b, eff).fits
        and per_sample_us * b >= 30_000.0  # a step long enough to profile
    ]
    if not fitting:
        return None
    batch = int(pick(rng, fitting))
    return StarvedJob(TrainingSetup(hw, world, model, tokens, batch, per_sample_us * batch, eff), workers, rate, gap)


def _run(rng: np.random.Generator, job: StarvedJob, loader: Loader, difficulty: str) -> tuple[DPRun, float, float]:
    """Run the starved job; returns the run, the H2D copy and one batch's time on one worker (µs)."""
    setup = job.setup
    batch_bytes = int(setup.tokens_per_gpu * loader.bytes_per_token)
    h2d_us = batch_bytes / 22e9 * 1e6  # pinned PCIe copy
    program = transformer_program(setup.hw, rng, layers=setup.model.blocks, compute_us=setup.compute_us)
    # The workers supply (1 − gap) of what the whole step's kernels (optimizer included) consume.
    decode_us = job.workers * program_kernel_us(program) / (1.0 - job.gap)
    spec = DataLoaderSpec(job.workers, decode_us, 2, h2d_us, batch_bytes, loader.work)
    run = run_dp(setup, rng, program, dataloader=spec, with_nccl=False, distractors=difficulty == "hard")
    return run, h2d_us, decode_us


def generate(rng: np.random.Generator, difficulty: str, seed: int) -> Scenario:
    family = draw_family(rng, ID)
    loader = LOADERS[family]
    lo, hi = {"easy": (0.3, 0.42), "medium": (0.2, 0.3), "hard": (0.12, 0.2)}[difficulty]
    job = _draw_job(rng, family, loader, float(rng.uniform(lo, hi)))
    setup, workers, batch = job.setup, job.workers, job.setup.micro_batch
    hw = setup.hw
    run, h2d_us, decode_us = _run(rng, job, loader, difficulty)
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
    context = setup_context(rng, family, setup, difficulty)
    figures |= {
        "unexplained_ms": (step - after) / 1000,
        "img_s_per_worker": per_worker,
        "busy_ms": (b["compute_us"] + h2d_us) / 1000,
        "h2d_us": h2d_us,
        "supply_after_img_s": needed * per_worker,
        "supply_after_ratio": needed * per_worker / demand,
    }
    u = loader.short
    copy = ms(h2d_us) if h2d_us >= 100.0 else us_(h2d_us)  # token ids are a few kB: microseconds
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
                f"thread sits in DataLoader.__next__ (~{ms(wait_mean)}) and the {plural(workers, 'worker row')} "
                f"{'is' if workers == 1 else 'are'} busy ({loader.work}) without a break. The GPU is waiting on "
                "Python.",
            ),
            (
                "Overlap",
                f"The H2D copy is {copy} — real but small. Once fed, the busy {ms(b['compute_us'])} is healthy.",
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
            f"rejected: “the H2D copy” — it is {copy}, not {ms(lead_gap)}."
        ),
        measurement=(
            f"Time next(dataloader) per step (NVTX it): ~{ms(wait_mean)}, covering the {ms(lead_gap)} gap (the "
            "host had run ahead into the wait). The decisive "
            "experiment: swap in a synthetic in-memory dataset — if the step drops to "
            f"~{ms(after)}, the input pipeline is convicted."
        ),
        fix=(
            f"num_workers={workers} → {needed}, pin_memory=True with non_blocking copies, prefetch_factor=4, "
            f"persistent_workers=True; if the workers are still the wall, {loader.offload}."
        ),
        arithmetic=(
            f"Supply: {plural(workers, 'worker')} × ~{_rate(per_worker)} {u}/s = {_rate(supply)} {u}/s; demand: "
            f"{batch} {loader.unit} / {ms(b['compute_us'] + h2d_us)} = {_rate(demand)} {u}/s.",
            f"{needed} workers supply ~{_rate(needed * per_worker)} {u}/s, {needed * per_worker / demand:.1f}× demand.",
            f"Before: {ms(step)}/step. After: ≈ {ms(after)}/step → {step / after:.2f}× throughput.",
        ),
        spoken=(
            f"Step is {ms(step)} but the compute stream is idle for the first {ms(lead_gap)} of every one — the "
            f"main thread is stuck in DataLoader.__next__ and {plural(workers, 'worker')} never rest{'s' if workers == 1 else ''}, "
            f"{loader.why}. nvidia-smi's 100% is 'a kernel was resident', the trace overrules it. Supply is "
            f"~{_rate(supply)} {loader.unit} a second, the GPU eats {_rate(demand)}. The busy part is healthy, nothing to win there. Fix: {needed} workers, "
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
    return finish_training(ID, seed, difficulty, hw, context, run, figures, reveal, annotations)


def _rate(x: float) -> str:
    return f"{x:,.0f}" if x >= 20 else f"{x:.1f}"
