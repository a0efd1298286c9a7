"""Mock interviews: the plan, the narration score, and `tracedrill interview` run with piped answers."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bot.cli import main
from bot.grading import grade
from bot.interview import judge, model_answer, narration, plan, scenario_for
from bot.interview.narration import trace_figures
from bot.scenarios.ids import DIFFICULTIES, SIGNATURE_IDS
from bot.scenarios.registry import generate


def test_plan_rises_in_difficulty_with_distinct_signatures() -> None:
    for seed in range(30):
        specs = plan(3, seed)
        assert [s.difficulty for s in specs] == ["easy", "medium", "hard"]
        assert len({s.signature for s in specs}) == 3
        assert plan(3, seed) == specs
        five = plan(5, seed)
        levels = [DIFFICULTIES.index(s.difficulty) for s in five]
        assert levels == sorted(levels) and levels[0] == 0 and levels[-1] == 2
    assert len({tuple(s.signature for s in plan(3, seed)) for seed in range(30)}) > 10
    with pytest.raises(ValueError, match="rounds"):
        plan(11, 0)


def test_reading_order_is_scored_by_coverage_and_order() -> None:
    s = generate("unoverlapped_allreduce", 2, "medium")
    in_order = (
        "The step is long. There is a gap at the end of compute. No overlap: comm is exposed. Top kernels are GEMMs."
    )
    reversed_ = "Top kernels are GEMMs. No overlap: comm is exposed. There is a gap at the end. The step is long."
    assert narration(s, in_order).order == 1.0
    assert narration(s, reversed_).order == 0.5
    assert narration(s, "The step is long.").order == 0.125
    assert narration(s, "It is broken.").order == 0.0


def test_numbers_must_be_this_traces_own() -> None:
    s = generate("straggler", 5, "medium")
    step, wait = s.figures["step_ms"], s.figures["wait_ms"]
    right = narration(s, f"The step is {step:.0f} ms and the others wait {wait:.0f} ms.")
    assert right.numbers == 1.0
    figures = trace_figures(s)
    wrong_value = next(
        v for v in (step * 3.7, step * 5.3, 12345.0) if all(abs(v - f) > 0.1 * abs(f) for f in figures if f)
    )
    wrong = narration(s, f"The step is {wrong_value:.0f} ms.")
    assert wrong.numbers == 0.0 and "nothing in this trace" in wrong.notes[1]
    half = narration(s, f"The step is {step:.0f} ms.")
    assert half.numbers == 0.5
    assert narration(s, "The step is long.").numbers == 0.0


def test_twin_must_be_named_and_rejected() -> None:
    s = generate("straggler", 5, "medium")
    assert narration(s, "It is a straggler, not an unoverlapped all-reduce.").twin == 1.0
    assert narration(s, "It isn't an unoverlapped all-reduce; rank 1 is the straggler.").twin == 1.0
    assert narration(s, "It is an unoverlapped all-reduce.").twin == 0.0
    assert narration(s, "It is a straggler.").twin == 0.0
    assert "unoverlapped" in narration(s, "It is a straggler.").notes[2].lower()


@pytest.mark.parametrize("signature", SIGNATURE_IDS)
def test_the_model_answer_quotes_the_scenarios_figures_and_grades_well(signature: str) -> None:
    for seed, difficulty in ((1, "easy"), (7, "hard")):
        s = generate(signature, seed, difficulty)
        answer = model_answer(s)
        n = narration(s, answer)
        assert n.numbers >= 0.5, (signature, n.notes)
        assert grade(s, answer).score >= 0.8, signature
        other = generate(signature, seed + 1000, difficulty)
        assert model_answer(other) != answer  # built from each scenario's own figures


def test_piped_interview_completes_with_a_summary_and_model_answers() -> None:
    specs = plan(3, 42)
    answers = "".join(model_answer(scenario_for(spec)) + "\n\n" for spec in specs)
    result = CliRunner().invoke(main, ["interview", "--rounds", "3", "--user", "ana", "--seed", "42"], input=answers)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Summary" in out and "Overall" in out
    for spec in specs:
        assert f"Round {spec.number} ({spec.difficulty})" in out
        assert f"Model answer, round {spec.number}" in out
    scored = [judge(spec, scenario_for(spec), model_answer(scenario_for(spec)), 10) for spec in specs]
    for r in scored:
        assert f"grade {r.grade.score:.0%}" in out


def test_an_interview_with_no_answers_still_ends_in_a_summary() -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["interview", "--help"]).exit_code == 0
    result = runner.invoke(main, ["interview", "--rounds", "2", "--seed", "1", "--user", "bo"], input="")
    assert result.exit_code == 0, result.output
    assert "Summary" in result.output and "grade 0%" in result.output
    bad = runner.invoke(main, ["interview", "--rounds", "0"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
