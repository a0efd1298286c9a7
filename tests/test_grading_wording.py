"""The wording model: learned from the dev split only, asked only where no rule read a diagnosis, never
overriding what the rules decided."""

from __future__ import annotations

import json

import pytest

from bot.grading import grade
from bot.grading.corpus import load_rows, rows_in
from bot.grading.matcher import Reply
from bot.grading.wording import MODEL, MODEL_PATH, WORDING_NOTE, build, diagnosis_text

WORDING = WORDING_NOTE


def test_the_shipped_model_is_what_the_dev_split_teaches() -> None:
    """Rebuilt from the dev rows it is byte-for-byte the shipped counts: no test row went in, and it is current
    (`python -m bot.grading.corpus --write-wording` after the corpus changes)."""
    assert json.loads(MODEL_PATH.read_text(encoding="utf-8")) == build(rows_in("dev", load_rows()))


@pytest.mark.parametrize(
    ("signature", "answer"),
    [
        (
            "straggler",
            "Seven machines finish early and then sit at the barrier for the eighth one, which is always late.",
        ),
        (
            "pipeline_bubbles",
            "The later stages have nothing to do at the start and the earlier ones at the end; "
            "the schedule has too few pieces in flight.",
        ),
    ],
)
def test_a_diagnosis_in_words_no_rule_holds_is_read_from_the_wording(signature: str, answer: str) -> None:
    g = grade(signature, answer)
    assert (g.signature.credit, g.signature.note, g.named) == (1.0, WORDING, signature)
    assert g.signature.evidence and g.signature.evidence in answer  # the person's own clause is quoted back
    hedged = grade(signature, "Not sure, but maybe: " + answer)
    assert (hedged.signature.credit, hedged.signature.note) == (0.5, WORDING)


@pytest.mark.parametrize(
    ("signature", "answer"),
    [
        # denied or retracted: the rules decided
        (
            "straggler",
            "Seven machines finish early — no, scratch that, it's not a slow rank at all, the network is slow.",
        ),
        # the same words for the wrong drill: the model reads straggler, not the drill's signature
        ("unoverlapped_allreduce", "Seven machines finish early and then sit at the barrier for the eighth one."),
        # only a check, only a question, only a fix: no statement of a diagnosis left
        ("input_starvation", "run it once on a fake in-memory dataset and compare the step time"),
        ("pipeline_bubbles", "why do the later stages have nothing to do at the start?"),
        ("launch_bound", "```python\nmodel = torch.compile(model, mode='reduce-overhead')\n```"),
    ],
)
def test_the_model_is_not_asked_where_the_rules_decided_or_no_diagnosis_is_stated(signature: str, answer: str) -> None:
    g = grade(signature, answer)
    assert g.signature.note != WORDING
    assert g.signature.credit == 0.0


def test_the_model_reads_statements_and_is_sure_only_of_clear_ones() -> None:
    reading = MODEL.read("the eighth machine is always late and the other seven sit at the barrier waiting")
    assert reading.label == "straggler" and reading.probability > 0.99
    assert MODEL.read("it is slow") is None  # too few words it knows: no reading at all
    denied = "It is not that the eighth machine is always late and the other seven sit at the barrier."
    assert diagnosis_text(Reply.parse(denied)) == ""  # a denied statement is not read as one


@pytest.mark.parametrize("signature", ["healthy", "straggler", "input_starvation"])
def test_nonsense_and_repetition_earn_nothing(signature: str) -> None:
    """Words the model never saw say nothing, and a repeated phrase counts once: length cannot buy certainty."""
    lorem = " ".join(["lorem ipsum dolor sit amet consectetur adipiscing elit"] * 60)
    for answer in (
        lorem,
        "one of the " * 360,
        "i wouldn't bet my " * 230,
        "monday again, no coffee, this format annoys me",
    ):
        assert grade(signature, answer).signature.credit == 0.0, answer[:40]
