"""`tracedrill analyze`: real HTA traces agree with HTA, every synthetic scenario is named, bad files get one
clear line."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.analyze.service import AnalysisError, analyze_path
from bot.cli import main
from bot.scenarios.export import export_scenario
from bot.scenarios.model import Scenario
from bot.scenarios.registry import generate

from .hta_load import hta_figures

REAL = Path(__file__).resolve().parent / "data" / "real-traces"
TOLERANCE_PP = 2.0


def _real(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "real"
    folder.mkdir()
    for n in names:
        shutil.copy(REAL / n, folder / n)
    return folder


@pytest.mark.parametrize("names", [("alexnet_a100.json.gz",), ("sampled_rank-0.json.gz", "sampled_rank-1.json.gz")])
def test_real_traces_agree_with_hta(names: tuple[str, ...], tmp_path: Path) -> None:
    folder = _real(tmp_path, *names)
    ours = analyze_path(folder).json
    breakdown, overlap = hta_figures(folder)
    assert sorted(r["rank"] for r in ours["ranks"]) == sorted(breakdown["rank"])
    for rank in ours["ranks"]:
        row = breakdown.loc[breakdown["rank"] == rank["rank"]].iloc[0]
        assert rank["hta"]["idle_pct"] == pytest.approx(float(row["idle_time_pctg"]), abs=TOLERANCE_PP)
        assert rank["hta"]["compute_pct"] == pytest.approx(float(row["compute_time_pctg"]), abs=TOLERANCE_PP)
        assert rank["hta"]["non_compute_pct"] == pytest.approx(float(row["non_compute_time_pctg"]), abs=TOLERANCE_PP)
        hta_overlap = float(overlap.loc[overlap["rank"] == rank["rank"], "comp_comm_overlap_pctg"].iloc[0])
        if hta_overlap == hta_overlap:  # NaN when a rank has no communication
            assert rank["hta"]["overlap_pct"] == pytest.approx(hta_overlap, abs=TOLERANCE_PP)


def test_a_real_trace_without_profiler_steps_is_read_as_one_window(tmp_path: Path) -> None:
    result = analyze_path(_real(tmp_path, "alexnet_a100.json.gz"))
    assert "No ProfilerStep#N annotations" in result.text
    assert all(f["confidence"] <= 0.6 for f in result.json["findings"]), "honest about weak evidence"


def test_analysis_figures_match_the_generators_ground_truth(tmp_path: Path) -> None:
    s = generate("input_starvation", 5, "medium")
    export_scenario(s, tmp_path)
    figures = analyze_path(tmp_path).json["ranks"][0]["figures"]
    assert figures["gpu_idle_pct"] == pytest.approx(s.figures["gpu_idle_pct"], abs=3.0)
    assert figures["step_ms"] == pytest.approx(s.figures["step_ms"], rel=0.05)


def test_cli_analyze_json_and_picture(tmp_path: Path) -> None:
    export_scenario(generate("launch_bound", 1), tmp_path / "t")
    runner = CliRunner()
    result = runner.invoke(main, ["analyze", str(tmp_path / "t"), "--json", "--out", str(tmp_path / "a.png")])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["signature"] == "launch_bound"
    assert {"figures", "hta", "top_kernels"} <= set(doc["ranks"][0])
    assert (tmp_path / "a.png").read_bytes()[:4] == b"\x89PNG"
    text = runner.invoke(main, ["analyze", str(tmp_path / "t" / "rank-0.json")])
    for part in ("Step boundary.", "Gaps.", "Overlap.", "Top kernels.", "Most likely:"):
        assert part in text.output


def _bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    good = tmp_path / "good"
    export_scenario(generate("healthy", 1), good)
    raw = (good / "rank-0.json").read_bytes()
    truncated = tmp_path / "truncated.json.gz"
    truncated.write_bytes(gzip.compress(raw)[:2000])
    not_trace = tmp_path / "config.json"
    not_trace.write_text(json.dumps({"learning_rate": 0.1, "layers": [1, 2]}))
    doc = json.loads(raw)
    cpu_only = tmp_path / "cpu_only.json"
    cpu_only.write_text(
        json.dumps(
            {**doc, "traceEvents": [e for e in doc["traceEvents"] if e.get("cat") not in ("kernel", "gpu_memcpy")]}
        )
    )
    no_steps = tmp_path / "zero_steps.json"
    events = [e for e in doc["traceEvents"] if not str(e.get("name", "")).startswith("ProfilerStep")]
    events.append(
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 10**12, "dur": 5}
    )  # a step far from any GPU work
    no_steps.write_text(json.dumps({**doc, "traceEvents": events}))
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x00\x01{not json at all")
    return {
        "truncated": (truncated, "gzip"),
        "not a trace": (not_trace, "traceEvents"),
        "no GPU events": (cpu_only, "no GPU kernels"),
        "0 steps": (no_steps, "0 usable steps"),
        "garbage": (garbage, "JSON"),
        "missing": (tmp_path / "nope.json", "no such file"),
    }


def test_bad_files_get_one_clear_line(tmp_path: Path) -> None:
    runner = CliRunner()
    for label, (path, needle) in _bad_files(tmp_path).items():
        with pytest.raises(AnalysisError, match=needle):
            analyze_path(path)
        result = runner.invoke(main, ["analyze", str(path)])
        assert result.exit_code == 1, label
        message = result.output.strip()
        assert message.startswith("Error:"), label
        assert len(message.splitlines()) == 1, (label, message)
        assert "Traceback" not in message


async def test_drills_from_a_real_trace(database, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from bot.drills.errors import DrillError
    from bot.drills.fake import FakeChat

    from .helpers import Clock, channel, engine_for, user

    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    data = (REAL / "sampled_rank-0.json.gz").read_bytes()
    stored = await e.store_trace(channel(), "sampled_rank-0.json.gz", data)
    assert stored == await e.store_trace(channel(), "again.json.gz", data), "same bytes, same trace"
    trace_id, answer = stored.id, stored.signature
    expected = analyze_path(REAL / "sampled_rank-0.json.gz").signature
    assert answer == expected
    d = await e.start(channel(), trace_id=trace_id, duration_seconds=60)
    assert d.signature == expected
    assert d.difficulty == "real"
    post = chat.drills[0][1]
    assert post.image_png[:4] == b"\x89PNG"
    assert expected not in " ".join(post.context_lines), "the drill does not give its answer away"
    outcome = await e.submit(d.id, user("Ana"), "exposed communication, the all-to-all is not overlapped")
    assert outcome.grade.signature.credit == (1.0 if expected == "unoverlapped_allreduce" else 0.0)
    clock.advance(61)
    assert await e.reveal(d.id)
    assert "Most likely" in chat.reveals[0][1].headline
    with pytest.raises(DrillError, match="No stored trace"):
        await e.start(channel("OTHER-WORKSPACE"), trace_id=trace_id)


def test_two_traces_with_one_finding_do_not_share_a_picture(tmp_path: Path) -> None:
    """Two ranks of one job have the same top finding; their drills are still two pictures, and the same bytes
    uploaded again are the same drill (its cached picture is reused)."""
    from bot.analyze.service import scenario_from_bytes
    from bot.render.cache import RenderCache

    first, second = ((REAL / f"sampled_rank-{k}.json.gz").read_bytes() for k in (0, 1))
    a, b = scenario_from_bytes("r0.json.gz", first), scenario_from_bytes("r1.json.gz", second)
    assert (a.signature, a.difficulty) == (b.signature, b.difficulty)
    assert a.key != b.key
    assert scenario_from_bytes("again.json.gz", first).key == a.key

    def draw(s: Scenario, theme: str, reveal: bool) -> bytes:
        return repr(sorted(s.figures.items())).encode()

    cache = RenderCache(directory=tmp_path)
    pictures = {cache.png(s, draw=draw) for s in (a, b, a)}
    assert len(pictures) == 2 and cache.renders == 2
    assert len(list(tmp_path.glob("*.png"))) == 2


def test_play_from_a_real_trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEDRILL_OUT", str(tmp_path / "pictures"))
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'p.sqlite3'}"}
    result = CliRunner().invoke(
        main,
        ["play", "--user", "ana", "--from-trace", str(REAL / "alexnet_a100.json.gz")],
        input="alloc stall, cudaMalloc every step; memory_stats\n\n",
        env=env,
    )
    assert result.exit_code == 0, result.output
    assert "Your trace" in result.output
    assert "Most likely" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    failed = CliRunner().invoke(main, ["play", "--user", "ana", "--from-trace", str(bad)], input="", env=env)
    assert failed.exit_code == 1
    assert "traceEvents" in failed.output
