"""The pipeline family hosts four signatures — pipeline_bubbles, a healthy pipeline, a straggler stage, a memory-bound
pipeline — told in the same words: the micro-batch count, the tokens per micro-batch, a stage's speed and the
GPU-metrics levels are in the trace only, and the reader finds them there."""

from __future__ import annotations

import re
import tempfile
from functools import lru_cache
from itertools import islice
from pathlib import Path

import pytest

from bot.analyze.service import analyze_path
from bot.analyze.stages import micro_batches_per_step
from bot.drills.scenarios import text_timeline
from bot.scenarios import pipeline_job
from bot.scenarios.export import export_scenario
from bot.scenarios.families import PIPELINE
from bot.scenarios.ids import DIFFICULTIES
from bot.scenarios.kernels import NCCL_SENDRECV
from bot.scenarios.leakage import context_words
from bot.scenarios.model import Scenario
from bot.scenarios.pipeline import ideal_bubble_fraction, is_pipeline
from bot.scenarios.registry import generate, generate_in_family

from .giveaways import trace_words_for, words_for
from .reveal_numbers import unexplained
from .test_giveaways import exported_text
from .test_physics import check_rates, kernels_per_step
from .test_scenario_properties import check_scenario

SIGNATURES = ("pipeline_bubbles", "healthy", "straggler", "memory_bound_kernel")
SEEDS = range(820_000, 820_002)  # every check walks both; the reader reads the second, the word check the first
_TITLE = re.compile(r"^(32|64)×.+ · (34B dense|70B dense|175B GPT-style) · LLM pre-training$")
_PARALLELISM = re.compile(r"^(4|8)-stage pipeline \(1F1B\) × TP=8 \(traces: one rank per stage\)$")
_MODEL = re.compile(r"^(34B dense|70B dense|175B GPT-style), BF16, AdamW$")


@lru_cache(maxsize=32)
def drill(signature: str, seed: int, difficulty: str) -> Scenario:
    return generate_in_family(signature, PIPELINE, seed, difficulty)


@pytest.mark.parametrize("signature", SIGNATURES)
def test_the_four_share_one_context_and_its_pools(signature: str) -> None:
    for seed in SEEDS:
        for difficulty in DIFFICULTIES:
            c = drill(signature, seed, difficulty).context
            assert _TITLE.match(c.title), c.title
            assert _PARALLELISM.match(c.parallelism), c.parallelism
            assert _MODEL.match(c.model), c.model
            assert c.complaint in pipeline_job._COMPLAINTS
            assert c.details == ((pipeline_job.NVIDIA_SMI_DETAIL,) if difficulty == "hard" else ())
            told = " ".join(context_words(c))
            assert not re.search(
                r"micro|bubble|slow (stage|gpu)|stage \d|throttl|clock|token|memory|bandwidth", told
            ), told


@pytest.mark.parametrize("signature", SIGNATURES)
def test_the_micro_batch_count_is_read_from_the_trace(signature: str) -> None:
    s = drill(signature, SEEDS[0], "medium")
    m = s.figures["micro_batches"]
    assert micro_batches_per_step(s.trace.ranks[0]) == m


def test_the_micro_batch_counts_set_the_schedule_idle() -> None:
    """Bubbles run few micro-batches per stage, the healthy, straggling and memory-bound pipelines many; the healthy
    stages idle about (p−1)/(m+p−1), the bubbly ones at least that."""
    for seed in SEEDS:
        for difficulty in DIFFICULTIES:
            healthy = drill("healthy", seed, difficulty).figures
            bubbly = drill("pipeline_bubbles", seed, difficulty).figures
            straggling = drill("straggler", seed, difficulty).figures
            membound = drill("memory_bound_kernel", seed, difficulty).figures
            assert healthy["micro_batches"] >= 8 * healthy["stages"]
            assert membound["micro_batches"] >= 8 * membound["stages"]
            assert straggling["micro_batches"] >= 6 * straggling["stages"]
            assert bubbly["micro_batches"] <= 3 * bubbly["stages"]
            ideal = 100 * ideal_bubble_fraction(int(healthy["stages"]), int(healthy["micro_batches"]))
            assert ideal <= healthy["bubble_pct"] <= ideal + 3.0, healthy
            assert (
                bubbly["bubble_pct"] >= bubbly["ideal_bubble_pct"] - 3.0
            )  # the optimizer is work the formula leaves out


def test_a_straggler_stage_runs_the_same_kernels_longer() -> None:
    for seed in SEEDS:
        for difficulty in DIFFICULTIES:
            f = drill("straggler", seed, difficulty).figures
            assert f["kernels_slow_stage"] == f["kernels_peer_stage"]
            assert 1.13 <= f["kernel_ratio"] <= 1.42
            assert f["others_idle_max_pct"] > f["slow_stage_idle_pct"]


def test_an_imbalanced_stage_runs_more_kernels_at_the_same_speed() -> None:
    """Hard bubbles put more layers on one stage: more kernels, each as long as on the others (not a straggler)."""
    for seed in SEEDS:
        s = drill("pipeline_bubbles", seed, "hard")
        assert 1.1 < s.figures["heavy_stage_factor"] < 1.35
        assert s.figures["heavy_kernel_factor"] > 1.1
        assert s.figures["flash_fwd_heavy_ms"] == pytest.approx(s.figures["flash_fwd_stage0_ms"], rel=0.03)


def test_a_memory_bound_pipeline_streams_its_weights_for_a_few_tokens() -> None:
    """Micro-batches of a few dozen tokens, counted from the bytes each send carries: each TP rank's GEMM sits below
    the GPU's ridge (and above it at the fix's size), and the GEMMs measured on the trace deliver intensity × the
    drawn share of DRAM bandwidth — the tensor-active share of peak the kernel reaches, no rate above a peak."""
    for seed in SEEDS:
        for difficulty in DIFFICULTIES:
            s = drill("memory_bound_kernel", seed, difficulty)
            f, hw = s.figures, s.hardware
            sends = {int((e.args or {})["bytes"]) for e in s.trace.ranks[0].kernels() if e.name == NCCL_SENDRECV}
            assert len(sends) == 1
            tokens = sends.pop() * pipeline_job.TP / (2 * f["hidden"])
            assert tokens == f["tokens_per_micro_batch"] <= 128
            assert f["arithmetic_intensity"] < f["ridge_flop_per_byte"] < f["intensity_after"]
            assert f["gemm_tflops"] == pytest.approx(hw.bf16_tflops * f["tensor_pct"] / 100, rel=0.05)
            assert f["gemm_tb_per_s"] == pytest.approx(hw.hbm_gbps / 1000 * f["dram_pct"] / 100, rel=0.05)
            assert f["gemm_tb_per_s"] < hw.hbm_gbps / 1000
            assert f["tensor_pct"] < f["kernel_efficiency_pct"]  # slower than the compute roofline, never faster
            assert f["dram_row_pct"] > 55 and f["tensor_row_pct"] < 42  # the rows under the top GEMM


def test_the_busy_twins_launch_the_same_kernels_in_a_pipeline() -> None:
    compared = 0
    for seed in SEEDS:
        healthy, membound = drill("healthy", seed, "medium"), drill("memory_bound_kernel", seed, "medium")
        if healthy.hardware.arch != membound.hardware.arch:
            continue
        compared += 1
        names = [{e.name for r in s.trace.ranks for e in r.kernels()} for s in (healthy, membound)]
        assert names[0] == names[1]
    assert compared


@pytest.mark.parametrize("signature", SIGNATURES)
def test_the_physics_holds(signature: str) -> None:
    for seed in SEEDS:
        for difficulty in DIFFICULTIES:
            s = drill(signature, seed, difficulty)
            check_rates(s)
            check_scenario(s)
            assert s.figures["mfu_pct"] <= 75.0
            assert s.figures["memory_gb"] <= s.figures["memory_capacity_gb"]
            assert kernels_per_step(s) >= 400
            assert is_pipeline(s.trace)


@pytest.mark.long
@pytest.mark.parametrize("signature", SIGNATURES)
def test_the_reader_names_each_from_the_exported_files(signature: str) -> None:
    for difficulty in ("easy", "hard"):  # the two ends (medium lies between); reading a pipeline export is ~1.5 s
        s = drill(signature, SEEDS[1], difficulty)
        with tempfile.TemporaryDirectory() as tmp:
            export_scenario(s, Path(tmp))
            result = analyze_path(Path(tmp))
        assert result.signature == signature, (difficulty, s.figures)
        if signature == "memory_bound_kernel":  # the rows' levels the reveal quotes are the ones the reader reads
            read = result.json["ranks"][0]["figures"]
            assert read["dram_busy_pct"] == pytest.approx(s.figures["dram_row_pct"], abs=0.5)
            assert read["tensor_busy_pct"] == pytest.approx(s.figures["tensor_row_pct"], abs=0.5)


@pytest.mark.parametrize("signature", SIGNATURES)
def test_no_label_or_word_names_the_answer_and_reveal_numbers_are_figures(signature: str) -> None:
    for difficulty in DIFFICULTIES:
        s = drill(signature, SEEDS[0], difficulty)
        told = " ".join([s.context.title, *s.context.lines()]).lower()
        assert not [w for w in words_for(signature) if w in told]
        with tempfile.TemporaryDirectory() as tmp:
            export_scenario(s, Path(tmp))
            exported = exported_text(Path(tmp))
        timeline = text_timeline(s).lower()
        assert not [w for w in trace_words_for(signature) if w in exported or w in timeline]
        assert unexplained(s) == []


@pytest.mark.parametrize("signature", ["healthy", "memory_bound_kernel"])
def test_forcing_the_family_changes_nothing_where_the_seed_draws_it(signature: str) -> None:
    # The first two seeds that draw it (generating on past them would only be thrown away).
    drawn = list(islice((seed for seed in range(60) if "pipeline" in generate(signature, seed).context.parallelism), 2))
    assert drawn, "about one healthy drill in seven, and one memory-bound drill in three, is a pipeline"
    for seed in drawn:
        assert generate_in_family(signature, PIPELINE, seed).figures == generate(signature, seed).figures


def test_a_signature_the_pipeline_cannot_host_is_refused() -> None:
    with pytest.raises(ValueError, match="not hosted"):
        generate_in_family("unoverlapped_allreduce", PIPELINE, 0)
