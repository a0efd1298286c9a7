"""The online-serving family: four signatures told in the same words, iterations with a real model's kernels whose
durations obey the roofline, each drill's tell readable — and the reader names each one on its exports."""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import islice
from pathlib import Path

import pytest

from bot.analyze.agreement import agreement
from bot.scenarios.engine import ITL, REQUESTS
from bot.scenarios.export import export_scenario
from bot.scenarios.families import HOSTS, SERVING, SERVING_GPUS, forced_family
from bot.scenarios.figures import gpu_gaps
from bot.scenarios.hardware import MAX_MFU
from bot.scenarios.ids import DIFFICULTIES
from bot.scenarios.leakage import NaiveBayes, context_words
from bot.scenarios.model import Category, Scenario
from bot.scenarios.registry import generate
from bot.scenarios.served import MEMORY_HEADROOM, PRECISIONS, SERVED_MODELS, Batch, Costs, gemm_peak_tflops

from .giveaways import trace_words_for, words_for
from .reveal_numbers import numbers, unexplained
from .test_giveaways import exported_text
from .test_scenario_properties import check_scenario

SERVING_SIGNATURES = ("healthy", "sync_stall", "launch_bound", "prefill_blocks_decode")
SEEDS = (5, 31)


@lru_cache(maxsize=32)
def serving(signature: str, seed: int, difficulty: str = "medium") -> Scenario:
    with forced_family(SERVING):
        return generate(signature, seed, difficulty)


def test_the_family_hosts_four_signatures() -> None:
    hosted = {sig for sig, hosts in HOSTS.items() if any(f == SERVING for f, _ in hosts)}
    assert hosted == set(SERVING_SIGNATURES)
    for sig in SERVING_SIGNATURES:
        assert serving(sig, 5).trace.kind == "serving"


def test_forcing_a_family_changes_no_drill_it_does_not_pick() -> None:
    """The forced draw consumes the same random numbers: drills that cannot be served, and drills whose own draw
    already was serving, come out byte for byte the same."""
    for sig, seed in (("alloc_stall", 3), ("straggler", 3), ("memory_bound_kernel", 3)):
        assert serving(sig, seed).figures == generate(sig, seed).figures
    # The first two seeds that draw it (generating on past them would only be thrown away).
    natural = list(islice((s for s in range(60) if generate("healthy", s).trace.kind == "serving"), 2))
    assert natural, "about one healthy drill in ten is served"
    for seed in natural:
        assert serving("healthy", seed).figures == generate("healthy", seed).figures


_TITLE = re.compile(r"1×(?P<gpu>.+?) · (?P<model>.+) · LLM serving")


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_every_serving_drill_is_told_in_the_same_words(difficulty: str) -> None:
    gpus = {hw.name for hw in SERVING_GPUS}
    models = {m.name for m in SERVED_MODELS}
    precisions = {p.label for p in PRECISIONS}
    shapes = set()
    for sig in SERVING_SIGNATURES:
        for seed in SEEDS:
            c = serving(sig, seed, difficulty).context
            m = _TITLE.fullmatch(c.title)
            assert m and m["gpu"] in gpus and m["model"] in models, c.title
            assert c.hardware == f"1×{m['gpu']}"
            head, _, tail = c.model.partition(" (")
            assert head == m["model"] and tail.removesuffix("), continuous batching") in precisions, c.model
            assert c.parallelism == "1 GPU per replica"
            shapes.add(c.details)
            told = " ".join([c.title, *c.lines()]).lower()
            for word in (*words_for(sig), "eager", "chunked", ".item()", "graph", "batch size"):
                assert word not in told, (sig, word)
    assert len(shapes) == 1, shapes  # one detail set per difficulty, whatever is injected


def test_kernels_obey_the_roofline_on_every_gpu_model_and_precision() -> None:
    batches = (Batch(1, 800), Batch(32, 1200), Batch(40, 1500, 472, 3000), Batch(0, 300, 8192))
    for hw in SERVING_GPUS:
        for model in SERVED_MODELS:
            for precision in PRECISIONS:
                costs = Costs(hw, model, precision)
                peak = gemm_peak_tflops(hw, precision) * 1e12
                for b in batches:
                    for fused in (True, False):
                        for k in costs.iteration(b, fused):
                            assert k.flops / (k.us * 1e-6) <= MAX_MFU * peak, (k.name, hw.name)
                            assert k.nbytes / (k.us * 1e-6) <= hw.dram_gbps * 1e9, (k.name, hw.name)


def test_the_models_have_their_published_sizes() -> None:
    sizes = {m.name: m.params / 1e9 for m in SERVED_MODELS}
    assert sizes == pytest.approx(
        {"Llama-style 7B chat": 6.74, "Llama-style 8B chat": 8.03, "Qwen-style 3B chat": 3.09}, abs=0.02
    )


@pytest.mark.parametrize("signature", SERVING_SIGNATURES)
def test_iterations_run_a_real_models_kernels_and_fit(signature: str) -> None:
    for seed in SEEDS:
        for difficulty in DIFFICULTIES:
            s = serving(signature, seed, difficulty)
            f = s.figures
            per_layer = f["kernels_per_step"] / f["layers"]
            # compiled: ~11 fused kernels a layer; eager: ~40 unfused ones
            assert per_layer >= (35 if signature == "launch_bound" else 10), (seed, difficulty, per_layer)
            assert f["memory_gb"] <= MEMORY_HEADROOM * f["memory_capacity_gb"], (seed, difficulty)
            assert f.get("mfu_pct", 0.0) <= 100 * MAX_MFU
            rows = {t.name for t in s.trace.ranks[0].tracks}
            assert {ITL, REQUESTS} <= rows


def test_healthy_serving_holds_its_budget_and_itl_stays_flat() -> None:
    for seed in SEEDS:
        for difficulty in DIFFICULTIES:
            f = serving("healthy", seed, difficulty).figures
            assert f["tokens_max"] <= f["token_budget"]
            assert f["itl_p99_ms"] <= 1.6 * f["itl_p50_ms"]
            assert f["gpu_busy_pct"] >= 88, (seed, difficulty, f["gpu_busy_pct"])


def test_sync_stall_serving_opens_one_hole_per_iteration_after_a_blocking_read() -> None:
    for seed in SEEDS:
        for difficulty in DIFFICULTIES:
            s = serving("sync_stall", seed, difficulty)
            f, rank = s.figures, s.trace.ranks[0]
            assert f["syncs_per_step"] == 1
            api = rank.track("CUDA API").events
            syncs = [e for e in api if e.category is Category.SYNC]
            assert {e.name for e in syncs} == {"cudaStreamSynchronize"}
            for lo, hi in s.trace.steps[1:]:
                holes = gpu_gaps(rank, (lo, hi), min_us=300.0)
                assert holes and holes[0][0] == pytest.approx(lo), (seed, difficulty)
            assert 5 <= f["sync_gap_pct"] <= 60
            assert f["speedup"] > 1.05


def test_launch_bound_and_prefill_keep_their_tells() -> None:
    for seed in SEEDS:
        for difficulty in DIFFICULTIES:
            f = serving("launch_bound", seed, difficulty).figures
            assert f["mean_kernel_us"] < f["host_us_per_launch"]  # the host launches slower than kernels run
            assert f["gpu_idle_pct"] > 30
            p = serving("prefill_blocks_decode", seed, difficulty).figures
            assert p["iter_max_ms"] > 5 * p["iter_p50_ms"]
            assert p["itl_spike_ms"] > 5 * p["itl_p50_ms"]


@pytest.mark.parametrize("signature", SERVING_SIGNATURES)
def test_served_drills_are_physically_consistent(signature: str) -> None:
    """The property checks every drill passes (launch before kernel, no overlap on a stream, steps that add up,
    counters that follow the kernels), on drills forced into serving."""
    for seed in SEEDS:
        for difficulty in DIFFICULTIES:
            s = serving(signature, seed, difficulty)
            check_scenario(s)
            assert min(e.start for t in s.trace.ranks[0].tracks for e in t.events) >= 0.0  # nothing before t=0


@pytest.mark.parametrize("signature", SERVING_SIGNATURES)
def test_reveals_quote_only_computed_numbers(signature: str) -> None:
    for seed in SEEDS:
        for difficulty in DIFFICULTIES:
            s = serving(signature, seed, difficulty)
            assert len(numbers(s.reveal.as_text())) >= 10
            assert unexplained(s) == [], (seed, difficulty, unexplained(s))


@pytest.mark.parametrize("signature", SERVING_SIGNATURES)
def test_no_serving_label_names_the_answer(signature: str, tmp_path: Path) -> None:
    s = serving(signature, 5, "hard")
    export_scenario(s, tmp_path)
    text = exported_text(tmp_path)
    for word in (*trace_words_for(signature), "eager", "chunk"):
        assert word not in text, word


@pytest.mark.parametrize("signature", SERVING_SIGNATURES)
def test_the_reader_names_each_serving_signature(signature: str) -> None:
    rows = agreement(range(640_000, 640_002), [signature], DIFFICULTIES, family=SERVING)[signature]
    assert all(named == signature for _, _, named in rows), rows


def test_context_alone_cannot_tell_the_served_signatures_apart() -> None:
    """A naive-Bayes classifier on the words of served drills of some seeds, scored on others: near chance (0.25)."""

    def corpus(seeds: range) -> list[tuple[str, list[str]]]:
        with forced_family(SERVING):
            return [
                (sig, context_words(generate(sig, seed, d).context))
                for seed in seeds
                for sig in SERVING_SIGNATURES
                for d in DIFFICULTIES
            ]

    model = NaiveBayes().fit(corpus(range(100, 110)))
    test = corpus(range(900, 905))
    assert sum(model.predict(words) == sig for sig, words in test) / len(test) <= 0.45
