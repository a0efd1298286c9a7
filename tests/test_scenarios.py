"""Scenario engine: determinism, ground truth that tells the twins apart, the export and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.cli import main
from bot.scenarios.export import export_scenario, rank_trace
from bot.scenarios.families import LLM
from bot.scenarios.ids import SIGNATURE_IDS
from bot.scenarios.model import Category, Scenario
from bot.scenarios.registry import UnknownDifficultyError, UnknownSignatureError, generate, generate_in_family

from .memo import scenario


def test_same_seed_gives_byte_identical_export(signature_id: str, tmp_path: Path) -> None:
    a = export_scenario(generate(signature_id, 1234, "medium"), tmp_path / "a")
    b = export_scenario(generate(signature_id, 1234, "medium"), tmp_path / "b")
    for pa, pb in zip(a, b, strict=True):
        assert pa.read_bytes() == pb.read_bytes()


def test_different_seeds_give_different_traces(signature_id: str) -> None:
    a, b = scenario(signature_id, 1, "medium"), scenario(signature_id, 2, "medium")
    assert a.figures != b.figures
    assert rank_trace(a, a.trace.ranks[0]) != rank_trace(b, b.trace.ranks[0])


def test_difficulty_changes_how_subtle_the_signal_is() -> None:
    easy = [generate("input_starvation", s, "easy").figures["gpu_idle_pct"] for s in range(6)]
    hard = [generate("input_starvation", s, "hard").figures["gpu_idle_pct"] for s in range(6)]
    assert min(easy) > max(hard)


def test_unknown_signature_and_difficulty_are_rejected_clearly() -> None:
    with pytest.raises(UnknownSignatureError, match="straggler"):
        generate("stragler", 1)
    with pytest.raises(UnknownDifficultyError, match="easy"):
        generate("straggler", 1, "brutal")
    with pytest.raises(ValueError, match="seed"):
        generate("straggler", -1)


@pytest.mark.parametrize("seed", range(5))
def test_long_collective_twins_differ_in_collective_count_and_rank_spread(seed: int) -> None:
    # The twins as data-parallel drills (a pipeline's straggler stage is tested in test_pipeline_family.py).
    unoverlapped = generate_in_family("unoverlapped_allreduce", LLM, seed).figures
    straggler = generate_in_family("straggler", LLM, seed).figures
    assert unoverlapped["collectives_per_step"] == 1
    assert straggler["collectives_per_step"] > 1
    assert unoverlapped["rank_compute_spread_pct"] < 2.0
    assert straggler["slowdown"] > 1.08
    # A long collective on a straggler's peers would imply an absurdly low bus bandwidth.
    assert straggler["implied_busbw_gbps"] < 0.5 * straggler["busbw_gbps"]


@pytest.mark.parametrize("seed", range(5))
def test_api_twins_differ_only_in_which_api_precedes_the_gap(seed: int) -> None:
    # The twins as training drills (a served sync stall is tested in test_serving.py).
    sync, alloc = generate_in_family("sync_stall", LLM, seed), generate_in_family("alloc_stall", LLM, seed)
    sync_apis = {e.name for e in sync.trace.ranks[0].track("CUDA API").events if e.category is Category.SYNC}
    alloc_apis = {e.name for e in alloc.trace.ranks[0].track("CUDA API").events if e.category is Category.MALLOC}
    assert sync_apis
    assert sync_apis <= {"cudaStreamSynchronize", "cudaDeviceSynchronize"}
    assert alloc_apis
    assert alloc_apis <= {"cudaMalloc", "cudaFree"}
    assert not any(e.category is Category.MALLOC for e in sync.trace.ranks[0].track("CUDA API").events)
    assert sync.figures["gpu_idle_pct"] > 3
    assert alloc.figures["gpu_idle_pct"] > 3


@pytest.mark.parametrize("seed", range(5))
def test_busy_near_pair_differs_in_the_metrics_rows(seed: int) -> None:
    # The memory-bound twin as a data-parallel drill (a memory-bound pipeline is tested in test_pipeline_family.py).
    membound = generate_in_family("memory_bound_kernel", LLM, seed)

    def mean_counter(s: Scenario, name: str) -> float:
        values = s.trace.ranks[0].track(name).sample_values
        return sum(values) / len(values)

    healthy = scenario("healthy", seed)
    assert mean_counter(membound, "DRAM Bandwidth %") > mean_counter(healthy, "DRAM Bandwidth %")
    assert mean_counter(membound, "Tensor Active %") < mean_counter(healthy, "Tensor Active %")
    assert healthy.figures["gpu_busy_pct"] > 90
    assert membound.figures["gpu_busy_pct"] > 90


def test_figures_are_computed_from_the_events() -> None:
    s = generate("launch_bound", 7, "easy")
    f = s.figures
    assert f["kernel_sum_ms"] + f["gpu_idle_ms"] == pytest.approx(f["token_ms"], rel=1e-3)
    assert f["mean_kernel_us"] < 10.0 < f["kernels_per_step"]
    assert f["mean_kernel_us"] * f["kernels_per_step"] / 1000 == pytest.approx(f["kernel_sum_ms"], rel=1e-3)
    p = generate("pipeline_bubbles", 3, "easy").figures
    assert p["bubble_pct"] >= p["ideal_bubble_pct"] - 1.0
    assert p["ideal_bubble_pct"] == pytest.approx(100 * (p["stages"] - 1) / (p["micro_batches"] + p["stages"] - 1))


def test_reveal_quotes_this_scenarios_numbers(signature_id: str) -> None:
    s = scenario(signature_id, 42, "medium")
    text = s.reveal.as_text()
    step = s.figures.get("step_ms") or s.figures.get("decode_iter_ms")
    assert step is not None
    assert f"{step:.0f}" in text.replace(",", "") or f"{step:.1f}" in text
    assert s.reveal.wrong_hypothesis
    assert s.reveal.measurement
    assert s.reveal.fix
    assert s.reveal.spoken


def test_export_is_kineto_shaped(tmp_path: Path) -> None:
    s = generate("straggler", 3)
    paths = export_scenario(s, tmp_path)
    assert {p.name for p in paths} == {*(f"rank-{r}.json" for r in range(s.trace.world_size)), "scenario.json"}
    raw = (tmp_path / "rank-1.json").read_text()
    assert '"rank": 1' in raw  # HTA's regex wants the space after the colon
    doc = json.loads(raw)
    assert doc["distributedInfo"] == {"backend": "nccl", "rank": 1, "world_size": s.trace.world_size}
    events = doc["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    runtime = {e["args"]["correlation"] for e in events if e.get("cat") == "cuda_runtime"}
    assert kernels
    assert all(k["args"]["correlation"] in runtime for k in kernels)
    assert all("stream" in k["args"] and "device" in k["args"] for k in kernels)
    steps = [e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")]
    assert len(steps) >= 5
    assert any(e.get("ph") == "s" and e.get("cat") == "ac2g" for e in events)
    summary = json.loads((tmp_path / "scenario.json").read_text())
    assert summary["signature"] == "straggler"
    assert summary["figures"] == s.figures


def test_cli_scenarios_json_lists_all_ten() -> None:
    result = CliRunner().invoke(main, ["scenarios", "--json"])
    assert result.exit_code == 0
    rows = json.loads(result.output)
    assert [r["id"] for r in rows] == list(SIGNATURE_IDS)
    assert all(r["summary"] for r in rows)


def test_cli_show_and_export(tmp_path: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(main, ["show", "--signature", "sync_stall", "--seed", "5"])
    assert shown.exit_code == 0
    assert "Complaint:" in shown.output
    assert "In 60 seconds" in shown.output
    out = tmp_path / "trace"
    exported = runner.invoke(
        main, ["export", "--signature", "healthy", "--seed", "5", "--difficulty", "hard", "--out", str(out)]
    )
    assert exported.exit_code == 0, exported.output
    assert (out / "rank-0.json").exists()
    assert (out / "scenario.json").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["show", "--signature", "nope", "--seed", "1"],
        ["show", "--signature", "healthy", "--seed", "-4"],
        ["show", "--signature", "healthy", "--seed", "abc"],
        ["show", "--signature", "healthy", "--seed", str(2**64)],
        ["export", "--signature", "healthy", "--seed", "1", "--difficulty", "brutal", "--out", "x"],
    ],
)
def test_cli_bad_input_gets_a_clear_message(args: list[str]) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "Invalid value" in result.output
    assert "Traceback" not in result.output


def test_cli_export_to_an_unwritable_place_fails_cleanly(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = CliRunner().invoke(
        main, ["export", "--signature", "healthy", "--seed", "1", "--out", str(blocker / "sub")]
    )
    assert result.exit_code != 0
    assert "cannot write" in result.output or "Invalid value" in result.output


def test_export_rounds_times_exactly_as_round_does() -> None:
    """The exporter rounds whole tracks with numpy; every float must be round(v, 3)'s, ties and near-ties included."""
    import struct

    import numpy as np

    from bot.scenarios.export import _rounded

    rng = np.random.default_rng(7)
    ties = rng.integers(0, 2**31, 20_000) / 2000.0  # k/2000: on or a rounding error away from a tie
    values = [
        *rng.uniform(0, 2e6, 20_000).tolist(),
        *ties.tolist(),
        *np.nextafter(ties, np.inf).tolist(),
        *np.nextafter(ties, -np.inf).tolist(),
        *(rng.integers(0, 2**20, 20_000) / 16.0).tolist(),  # dyadic: many exact ties
        0.0,
        -0.0,
        -0.0004,
        1062.5625,
    ]
    got, want = _rounded(values), [round(v, 3) for v in values]
    assert [struct.pack("d", g) for g in got] == [struct.pack("d", w) for w in want]
    assert _rounded([1, np.float64(0.0015)]) == [1, round(np.float64(0.0015), 3)]
