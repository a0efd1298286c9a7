"""The grader's rules, its bad-input handling, its feedback, and the `tracedrill grade` CLI."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.cli import main
from bot.grading import MAX_ANSWER_CHARS, grade
from bot.grading.rubric import load_rubrics, parse_rubric
from bot.scenarios.ids import SIGNATURE_IDS
from bot.scenarios.registry import generate


def test_every_bundled_rubric_loads_and_is_complete() -> None:
    rubrics = load_rubrics()
    assert set(rubrics) == set(SIGNATURE_IDS)
    for sig, r in rubrics.items():
        assert r.signature.rules
        assert r.measurement.rules
        assert r.fix.rules
        if r.twin:
            assert rubrics[r.twin].twin == sig, "twins point at each other"
        figures = generate(sig, 1).figures
        assert all(q.figure in figures for q in r.quantities), f"{sig}: rubric quantity not in figures"


def test_a_malformed_rubric_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown signature"):
        parse_rubric(
            'id = "nope"\ntitle = "x"\ntell = "a tell long enough"\n'
            '[signature]\nhint = "a hint long enough"\nrules = ["a"]\n'
            '[measurement]\nhint = "a hint long enough"\nrules = ["a"]\n'
            '[fix]\nhint = "a hint long enough"\nrules = ["a"]\n'
        )
    with pytest.raises(ValueError, match="validation error"):
        parse_rubric('id = "healthy"\ntitle = "x"\ntell = "a tell long enough"\n[signature]\nrules = []\n')


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "   \n\t ",
        "🔥🔥🔥",
        "\x00\x01\x02straggler\x7f",
        "<!channel> <@U123> straggler",
        "a" * 50_000,
        "```\nimport torch\nloss.item()\n```",
        "日本語の回答です",
        "<script>alert(1)</script>",
        "straggler " * 5000,
        "\u202e\u200breversed text",
        None,
        12345,
        ["straggler"],
        {"answer": "straggler"},
    ],
)
def test_bad_input_gets_a_grade_never_an_exception(answer: object) -> None:
    g = grade("straggler", answer)
    assert 0.0 <= g.score <= 1.0
    assert g.feedback()
    assert set(g.as_dict()) == {"signature", "measurement", "fix", "score", "named", "feedback"}


def test_long_answers_are_truncated_and_told_so() -> None:
    g = grade("sync_stall", "x " * MAX_ANSWER_CHARS + " loss.item() every step")
    assert any("first 4,000 characters" in n for n in g.notes)
    assert g.signature.credit == 0.0  # the part past the limit is not read


def test_naming_the_twin_gets_its_tell_in_the_feedback() -> None:
    g = grade("sync_stall", "cudaMalloc every step, the caching allocator misses")
    assert g.signature.credit == 0.0
    assert g.named == "alloc_stall"
    assert "which API" in g.feedback()


def test_rejecting_a_hypothesis_then_committing_earns_the_signature() -> None:
    g = grade(
        "straggler",
        "My first guess was NCCL being slow, but that's ruled out by the bandwidth math. "
        "It's a straggler rank: rank 3 computes longer.",
    )
    assert g.signature.credit == 1.0
    assert g.named == "straggler"


def test_hedged_single_signature_gets_half() -> None:
    assert grade("pipeline_bubbles", "maybe pipeline bubbles?").signature.credit == 0.5


def test_parts_are_earned_independently() -> None:
    g = grade("straggler", "It's the dataloader. Compare per-rank compute times with HTA.")
    assert g.signature.credit == 0.0
    assert g.measurement.credit == 1.0


def test_a_fix_that_belongs_elsewhere_earns_nothing() -> None:
    g = grade("straggler", "Straggler rank. Fix: retune NCCL_ALGO and bucket_cap_mb.")
    assert g.signature.credit == 1.0
    assert g.fix.credit == 0.0


def test_feedback_quotes_what_earned_the_credit() -> None:
    g = grade("input_starvation", "The GPU waits for data: the dataloader can't keep up. Use more workers.")
    fb = g.feedback()
    assert "✓ Signature: “The GPU waits for data" in fb
    assert "✓ Fix: “Use more workers”" in fb
    assert "✗ Measurement:" in fb
    assert "synthetic" in fb


def test_stated_numbers_matching_this_scenario_earn_a_bonus() -> None:
    s = generate("unoverlapped_allreduce", 5)
    step = s.figures["step_ms"]
    base = "The all-reduce is serialized after backward, not overlapped."
    plain = grade(s, base)
    with_numbers = grade(s, f"{base} Step is {step:.0f} ms.")
    assert with_numbers.score > plain.score
    assert any("matches this trace" in n for n in with_numbers.notes)
    wrong = grade(s, f"{base} Step is {step * 3:.0f} ms.")
    assert wrong.score == plain.score


def test_numbers_alone_earn_nothing() -> None:
    s = generate("straggler", 5)
    assert grade(s, f"{s.figures['step_ms']:.0f} ms").score == 0.0


def test_cli_grade_single_and_batch(tmp_path: Path) -> None:
    runner = CliRunner()
    one = runner.invoke(main, ["grade", "--signature", "straggler", "--seed", "3", "rank 2 is a straggler"])
    assert one.exit_code == 0, one.output
    doc = json.loads(one.output)
    assert set(doc) == {"signature", "measurement", "fix", "score", "named", "feedback"}
    assert doc["signature"] == 1.0
    assert doc["named"] == "straggler"
    lines = [
        {"signature": "sync_stall", "answer": "loss.item() syncs every step; log every 50 steps"},
        "not json",
        {"signature": "bogus", "answer": "x"},
        {"signature": "healthy", "answer": "nothing wrong, stop here", "seed": 4, "difficulty": "hard"},
        {"signature": "healthy", "answer": "x", "seed": -1},
        {"signature": "alloc_stall", "answer": None},
    ]
    batch = tmp_path / "in.jsonl"
    batch.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    result = runner.invoke(main, ["grade", "--batch", str(batch)])
    assert result.exit_code == 0, result.output
    out = [json.loads(x) for x in result.output.splitlines()]
    assert len(out) == len(lines)
    assert out[0]["signature"] == 1.0
    assert out[0]["fix"] == 1.0
    assert out[0]["named"] == "sync_stall"
    assert "error" in out[1]
    assert "error" in out[2]
    assert "error" in out[4]
    assert out[3]["signature"] == 1.0
    assert out[5]["score"] == 0.0
    for row in out:
        assert {"signature", "measurement", "fix", "score", "named", "feedback"} <= set(row)


def test_cli_grade_needs_a_signature() -> None:
    result = CliRunner().invoke(main, ["grade", "some answer"])
    assert result.exit_code == 2
    assert "--signature" in result.output


@pytest.mark.parametrize("heading", ["Verdict:", "Root cause —", "Bottom line:", "tl;dr:"])
def test_a_heading_commits_the_clause_it_heads(heading: str) -> None:
    """A heading clause ("Verdict:") asserts the diagnosis after it; the same name without it is only read."""
    from bot.grading.evidence import read_claims
    from bot.grading.matcher import Reply
    from bot.grading.rulebook import compiled

    def asserted(text: str) -> bool:
        claims = read_claims(Reply.parse(text), compiled())
        return bool(claims.evidence["healthy"].asserted_in)

    body = "GPU busy 95%, comm hidden under backward, MFU 48% against a 55% ceiling."
    assert asserted(f"{body} {heading} healthy; leave the timeline alone.")
    assert not asserted(f"{body} Also healthy; leave the timeline alone.")


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("5,212 kernels, 3 ranks", ["5212", "3"]),  # a thousands comma joins; the list comma stays
        ("ranks 1,2,3 are slow", ["1", "2", "3"]),
        ("x,123 and 12,3456 and 1,000,000", ["123", "12", "3456", "1000000"]),
    ],
)
def test_a_thousands_comma_joins_its_number_and_no_other(text: str, numbers: list[str]) -> None:
    from bot.grading.text import clauses, clean

    said = [t.word for c in clauses(clean(text)) for t in c.tokens if t.word[0].isdigit()]
    assert said == numbers


@pytest.mark.parametrize(
    "reply",
    [
        # lists a denial opens that never close: every item once had two readings (2^n tries, seconds at n = 20)
        "It's bubbles, not a slow stage, a straggler, " + "a x, " * 20 + "zzz yy ww vv uu.",
        ("It's bubbles, not a slow stage, a straggler, " + "a x, " * 800)[:3990] + " zzz.",
        "Not a slow stage, "
        + ", ".join(f"a throttled GPU {i}" for i in range(20))
        + " – it's bubbles; more micro-batches.",
        ("A straggler, not " + "a x, " * 790)[:3950] + "zzz yy ww vv uu tt, ss or comm.",
        "not " + "a x," * 18 + "zzz yy ww vv uu straggler.",
        "straggler - " * 330 + "not the problem",
        ("not x, " * 570 + "straggler or comm.")[:4000],
    ],
)
def test_a_hostile_reply_is_graded_in_bounded_time(reply: str) -> None:
    """Catastrophic regex backtracking holds the interpreter lock: one such reply froze the whole bot. These take
    1–100 ms; the bound is far above that and far below what exponential backtracking costs."""
    grade("pipeline_bubbles", "warm")  # compiled rubrics are not what is timed
    started = time.process_time()
    grade("pipeline_bubbles", reply)
    assert time.process_time() - started < 2.0
