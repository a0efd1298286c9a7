"""The honest test: agreement with a hand-labelled set of replies, stuffing, and minimal pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.grading import grade

DATA = Path(__file__).parent / "data" / "replies.jsonl"
PARTS = ("signature", "measurement", "fix")


def labelled() -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_labelled_set_is_big_and_covers_every_signature() -> None:
    rows = labelled()
    assert len(rows) >= 200
    assert len({r["signature"] for r in rows}) == 10


def test_per_part_agreement_is_at_least_90_percent() -> None:
    rows = labelled()
    agree = dict.fromkeys(PARTS, 0)
    misses: list[str] = []
    for r in rows:
        g = grade(r["signature"], r["answer"])
        got = {"signature": g.signature.credit, "measurement": g.measurement.credit, "fix": g.fix.credit}
        for part in PARTS:
            if got[part] == r["expect"][part]:
                agree[part] += 1
            else:
                misses.append(f"{r['signature']}/{part}: want {r['expect'][part]} got {got[part]}: {r['answer'][:70]}")
    rates = {p: agree[p] / len(rows) for p in PARTS}
    print("agreement", rates)
    assert all(rate >= 0.9 for rate in rates.values()), "\n".join([str(rates), *misses])


def test_named_signature_matches_the_labels() -> None:
    rows = labelled()
    right = sum(1 for r in rows if grade(r["signature"], r["answer"]).named == r["named"])
    assert right / len(rows) >= 0.85


def test_keyword_stuffing_never_earns_anything() -> None:
    for r in labelled():
        if r["note"].startswith(("stuffing", "bullet stuffing")):
            g = grade(r["signature"], r["answer"])
            assert g.score == 0.0, r["answer"]


MINIMAL_PAIRS = [
    # (signature, earns the signature, does not)
    ("straggler", "it's a straggler rank", "it's not a straggler rank"),
    ("straggler", "one rank is slow", "no rank is slow, every rank looks the same"),
    ("straggler", "straggler", "unoverlapped all-reduce"),
    (
        "unoverlapped_allreduce",
        "the all-reduce is not overlapped with backward",
        "the all-reduce overlaps fine with backward, it's a straggler",
    ),
    ("unoverlapped_allreduce", "exposed communication after backward", "one slow rank makes the others wait"),
    ("sync_stall", "cudaStreamSynchronize from .item() every step", "cudaMalloc every step from allocator misses"),
    ("alloc_stall", "cudaMalloc every step from allocator misses", "cudaStreamSynchronize from .item() every step"),
    ("healthy", "the trace is healthy, nothing to fix", "the top kernel is memory bound"),
    ("memory_bound_kernel", "the top kernel is memory bound", "the trace is healthy, nothing to fix"),
    ("input_starvation", "the dataloader is the bottleneck", "the dataloader is fine, it's a sync stall"),
    ("launch_bound", "launch overhead dominates", "launch overhead is not the problem here"),
    ("pipeline_bubbles", "pipeline bubbles from 1F1B", "not pipeline bubbles — a straggler stage"),
    ("prefill_blocks_decode", "long prefill blocks decode", "it's GC jitter, not prefill blocking decode"),
    ("input_starvation", "dataloader can't keep up", "either the dataloader or launch overhead, not sure"),
]


@pytest.mark.parametrize(("signature", "good", "bad"), MINIMAL_PAIRS)
def test_minimal_pairs(signature: str, good: str, bad: str) -> None:
    assert grade(signature, good).signature.credit == 1.0
    assert grade(signature, bad).signature.credit == 0.0
