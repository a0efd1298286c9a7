"""Mental math from outside: the CLI's JSON, the formulas from the issue on the givens, --check, parsing."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from bot.cli import main
from bot.mathdrill.answers import UnreadableAnswer, parse_answer
from bot.mathdrill.questions import KINDS, question
from bot.scenarios.hardware import ALL_GPUS

SEEDS = range(0, 4000, 97)  # 42 seeds per kind, spread out


def formula(kind: str, g: dict[str, float]) -> float:
    """The issue's formulas, written out independently of bot.mathdrill."""
    if kind == "busbw":
        n = g["ranks"]
        return 2 * (n - 1) / n * g["bytes"] / g["seconds"] / 1e9
    if kind in ("allgather", "reduce_scatter"):
        n = g["ranks"]
        return (n - 1) / n * g["bytes"] / g["seconds"] / 1e9
    if kind == "bubble":
        p, m = g["stages"], g["microbatches"]
        return 100 * (p - 1) / (m + p - 1)
    if kind == "ridge":
        return g["peak_tflops"] / g["bandwidth_tbps"]
    if kind == "mfu":
        return 100 * 6 * g["params"] * g["tokens_per_step"] / (g["step_seconds"] * g["gpus"] * g["peak_tflops"] * 1e12)
    if kind == "intensity":
        m, n, k, b = g["m"], g["n"], g["k"], g["bytes_per_element"]
        return 2 * m * n * k / (b * (m * k + k * n + m * n))
    if kind == "kv_cache":
        return 2 * g["layers"] * g["kv_heads"] * g["head_dim"] * g["bytes_per_element"]
    if kind == "itl_floor":
        return g["params"] * g["bytes_per_param"] / (g["gpus"] * g["bandwidth_tbps"] * 1e12) * 1e3
    raise AssertionError(kind)


GIVEN_NAMES = {
    "busbw": {"bytes", "ranks", "seconds"},
    "bubble": {"stages", "microbatches"},
    "ridge": {"peak_tflops", "bandwidth_tbps"},
    "mfu": {"params", "tokens_per_step", "step_seconds", "gpus", "peak_tflops"},
    "intensity": {"m", "n", "k", "bytes_per_element"},
}


def run(*args: str) -> dict[str, object]:
    result = CliRunner().invoke(main, ["math", *args])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("kind", KINDS)
def test_answers_equal_the_formula_and_check_accepts_it_but_not_twice_it(kind: str) -> None:
    for seed in SEEDS:
        q = run("--kind", kind, "--seed", str(seed), "--json")
        assert set(q) == {"kind", "question", "given", "answer", "unit", "tolerance"}
        assert q["kind"] == kind and q["tolerance"] == 0.05
        given = q["given"]
        assert isinstance(given, dict)
        if kind in GIVEN_NAMES:
            assert set(given) == GIVEN_NAMES[kind]
        answer = q["answer"]
        assert isinstance(answer, (int, float))
        expected = formula(kind, given)
        assert answer == pytest.approx(expected, rel=0.02), (kind, seed, given)
        ok = run("--kind", kind, "--seed", str(seed), "--check", str(answer))
        assert ok["correct"] is True and ok["answer"] == answer
        assert set(ok) == {"correct", "answer", "explanation"}
        bad = run("--kind", kind, "--seed", str(seed), "--check", str(2 * answer))
        assert bad["correct"] is False, (kind, seed)


def test_the_same_seed_gives_the_same_question_and_seeds_vary_it() -> None:
    assert run("--kind", "mfu", "--seed", "5", "--json") == run("--kind", "mfu", "--seed", "5", "--json")
    questions = {json.dumps(run("--kind", "busbw", "--seed", str(s), "--json")["given"]) for s in range(20)}
    assert len(questions) >= 15
    kinds = {question(None, s).kind for s in range(200)}
    assert kinds == set(KINDS)


def test_givens_are_physically_possible() -> None:
    links = {h.name: h for h in ALL_GPUS}
    for kind in KINDS:
        for seed in range(300):
            q = question(kind, seed)
            g = q.given
            assert all(isinstance(v, (int, float)) and v > 0 and math.isfinite(v) for v in g.values()), g
            if kind in ("busbw", "allgather", "reduce_scatter"):
                hw = links[q.hardware]
                assert 0.2 * hw.link_gbps <= q.answer <= hw.link_gbps, (kind, seed, q.answer)
            elif kind == "mfu":
                assert 20 <= q.answer <= 60
                assert g["peak_tflops"] in {h.bf16_tflops for h in ALL_GPUS}
            elif kind == "bubble":
                assert 0 < q.answer < 100
            elif kind == "ridge":
                assert any(
                    g["peak_tflops"] == h.bf16_tflops and g["bandwidth_tbps"] * 1000 == pytest.approx(h.hbm_gbps)
                    for h in ALL_GPUS
                )
            elif kind == "itl_floor":
                hw = links[q.hardware]
                assert g["params"] * g["bytes_per_param"] / g["gpus"] <= hw.memory_gb * 1e9
                assert 0.5 <= q.answer <= 200
            elif kind == "kv_cache":
                assert q.answer * 8192 < 80e9  # one long sequence fits a GPU


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [
        ("~1.2e3", "GB/s", 1200.0),
        ("1,200 GB/s", "GB/s", 1200.0),
        ("45%", "%", 45.0),
        ("0.45", "%", 45.0),
        ("≈ 230", "GB/s", 230.0),
        ("1.2 TB/s", "GB/s", 1200.0),
        ("320 KiB", "bytes", 327680.0),
        ("160 KB", "bytes", 160000.0),
        ("1.2k", "FLOP/byte", 1200.0),
        ("21 µs", "ms", 0.021),
        ("2,5", "ms", 2.5),
        ("3 x 10^2", "ms", 300.0),
        ("2·7/8·16e9/0.175 = 160", "GB/s", 160.0),
        ("about 295 FLOP/byte", "FLOP/byte", 295.0),
    ],
)
def test_lenient_parsing(text: str, unit: str, value: float) -> None:
    assert parse_answer(text, unit) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "no idea", "%", "1e999"])
def test_unreadable_answers_raise_one_clear_error(text: str) -> None:
    with pytest.raises(UnreadableAnswer):
        parse_answer(text, "GB/s")


def test_check_with_lenient_text_and_tolerance() -> None:
    q = run("--kind", "bubble", "--seed", "11", "--json")
    answer = q["answer"]
    assert isinstance(answer, float)
    assert run("--kind", "bubble", "--seed", "11", "--check", f"{answer * 1.04:.3f}%")["correct"] is True
    assert run("--kind", "bubble", "--seed", "11", "--check", f"~{answer * 1.07:.3f}")["correct"] is False
    loose = run("--kind", "bubble", "--seed", "11", "--check", f"{answer * 1.07:.3f}", "--tolerance", "0.1")
    assert loose["correct"] is True
    explanation = loose["explanation"]
    assert isinstance(explanation, str) and "(p−1)/(m+p−1)" in explanation


def test_bad_input_is_one_line_without_traceback() -> None:
    runner = CliRunner()
    for args in (["--check", "3"], ["--seed", "1", "--check", "lots"], ["--kind", "nope"], ["--seed", "-1"]):
        result = runner.invoke(main, ["math", *args])
        assert result.exit_code == 2, args
        assert "Traceback" not in result.output and "Error:" in result.output


def test_interactive_with_piped_answers() -> None:
    q1, q2 = question("ridge", 3), question("ridge", 4)
    result = CliRunner().invoke(
        main, ["math", "--kind", "ridge", "--seed", "3", "--rounds", "2"], input=f"{q1.answer}\n{2 * q2.answer}\n"
    )
    assert result.exit_code == 0, result.output
    assert q1.question.split(":")[0] in result.output
    assert "✓ Right" in result.output and "✗ Not quite" in result.output
    assert "1/2 right" in result.output
    assert "peak_tflops / bandwidth_tbps" in result.output


def test_play_math_stores_points_on_the_local_math_board(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from sqlalchemy import select

    from bot.store.db import Database
    from bot.store.prep_models import MathAnswer

    monkeypatch.setenv("TRACEDRILL_OUT", str(tmp_path / "pictures"))
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'play.sqlite3'}"}
    q = question(None, 12)
    runner = CliRunner()
    result = runner.invoke(
        main, ["play", "--math", "--seed", "12", "--user", "ana"], input=f"no idea\n{q.answer:,.4g} {q.unit}\n", env=env
    )
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # the console wraps at 80 columns
    assert "nothing was recorded" in out and "Worked:" in out
    assert "1. ana — " in out and "(1/1 right)" in out
    db = Database(env["DATABASE_URL"])
    with db.session() as s:
        answer = s.scalars(select(MathAnswer)).one()
        assert answer.correct and answer.points >= 100
    db.dispose()
    too_big = runner.invoke(main, ["play", "--math", "--seed", str(2**40)], input="1\n", env=env)
    assert too_big.exit_code == 2 and "below" in too_big.output


def test_the_terminal_prompt_submits_on_enter_and_when_time_runs_out() -> None:
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from bot.adapters.terminal.math_play import read_line_with_countdown

    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("1,200 GB/s\r")
        assert read_line_with_countdown(30) == "1,200 GB/s"
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("45")  # no Enter: the clock submits what was typed
        assert read_line_with_countdown(1) == "45"
