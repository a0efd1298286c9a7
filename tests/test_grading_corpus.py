"""The grader against the independent corpus (tests/data/corpus/*.jsonl), on its fixed dev and test splits.

The rubrics are tuned on the dev split only. The test split is graded here and reported as aggregate figures, never
row by row, so that reading a failure cannot become tuning on it.
"""

from __future__ import annotations

import hashlib

import pytest

from bot.grading.corpus import CORPUS_DIR, PARTS, answer_key, evaluate, load_rows, rows_in, split_of
from bot.scenarios.ids import SIGNATURE_IDS

PER_PART_TARGET = 0.95  # credit ≥ ½ on both sides (or 0 on both)
EXACT_TARGET = 0.90  # the same 0 / ½ / 1


def test_the_split_is_the_fixed_hash_rule() -> None:
    for answer in ("straggler", "  one rank is slow\n", "the dataloader can't keep up", "🔥"):
        first = hashlib.sha256(answer.strip().encode("utf-8")).digest()[0]
        assert split_of(answer) == ("test" if first % 5 < 2 else "dev")
    assert split_of(" x ") == split_of("x")  # surrounding space does not move a reply


def test_the_corpus_is_there_and_covers_every_signature_in_both_splits() -> None:
    rows = load_rows()  # raises (fails loudly) if the folder is empty
    assert len(rows) >= 1000, f"{len(rows)} rows in {CORPUS_DIR}"
    for split in ("dev", "test"):
        part = rows_in(split, rows)
        assert {r["signature"] for r in part} == set(SIGNATURE_IDS), split
    for r in rows:
        assert r["signature"] in SIGNATURE_IDS
        assert all(r["expect"][p] in (0, 0.5, 1) for p in PARTS)
    share = len(rows_in("test", rows)) / len(rows)
    assert 0.3 <= share <= 0.5, f"test split is {share:.0%} of the corpus"


def test_dev_split_agreement() -> None:
    rows = rows_in("dev", load_rows())
    assert rows, "the dev split is empty"
    figures = evaluate(rows, keep_misses=True)
    print("\n".join(figures.lines()))
    report = "\n".join([*figures.lines(), *figures.misses[:80]])
    assert all(figures.per_part[p] >= PER_PART_TARGET for p in PARTS), report
    assert all(figures.exact[p] >= EXACT_TARGET for p in PARTS), report
    assert figures.stuffing_rows > 0, "the dev split has no stuffing rows"
    assert figures.stuffing_scored == 0, report


# The held-out split does NOT yet meet the targets (PER_PART_TARGET, EXACT_TARGET, no stuffing earning);
# README "The corpus and its split" reports its figures. Until it does, this test guards the level measured on
# 2026-12-01 (per-part 0.920 / 0.918 / 0.928, exact 0.889 / 0.895 / 0.913, 10 of 46 stuffing replies earning):
# a change that makes the grader worse on replies nobody tuned on fails here.
TEST_FLOOR_PER_PART = 0.91
TEST_FLOOR_EXACT = 0.88
TEST_MAX_STUFFING_SHARE = 0.25


def test_test_split_agreement() -> None:
    rows = rows_in("test", load_rows())
    assert rows, "the test split is empty"
    figures = evaluate(rows)  # aggregate figures only, never the rows that missed
    report = "\n".join(figures.lines())
    print(report)
    assert all(figures.per_part[p] >= TEST_FLOOR_PER_PART for p in PARTS), report
    assert all(figures.exact[p] >= TEST_FLOOR_EXACT for p in PARTS), report
    assert figures.stuffing_rows > 0, "the test split has no stuffing rows"
    assert figures.stuffing_scored <= TEST_MAX_STUFFING_SHARE * figures.stuffing_rows, report


def test_the_cli_refuses_to_list_test_split_misses(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.grading.corpus import main

    with pytest.raises(SystemExit):
        main(["--split", "test", "--misses"])
    assert "dev split only" in capsys.readouterr().err


def test_an_empty_corpus_folder_fails_loudly(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    with pytest.raises(FileNotFoundError):
        load_rows(tmp_path)


def test_the_second_labels_name_dev_rows_only_and_agreement_counts_both_ways() -> None:
    """tests/data/corpus_relabel holds second labellers' labels of dev rows (benchmarks/label_agreement.py): every
    row must name a dev row of the corpus by its key, with the same drill, and a valid label."""
    from benchmarks.label_agreement import agreement, load_relabels

    dev = {answer_key(r["answer"]): r for r in rows_in("dev", load_rows())}
    relabels = load_relabels()
    assert len(relabels) >= 3
    for rows in relabels.values():
        assert len(rows) >= 250
        for key, row in rows.items():
            assert key in dev and dev[key]["signature"] == row["signature"]
            assert all(row["expect"][p] in (0, 0.5, 1) for p in PARTS)
    ones = {"signature": 1.0, "measurement": 0.5, "fix": 0.0}
    halves = {"signature": 0.5, "measurement": 1.0, "fix": 0.5}
    per_part, exact = agreement([ones, ones], [halves, ones])
    assert per_part == {"signature": 1.0, "measurement": 1.0, "fix": 0.5}
    assert exact == {"signature": 0.5, "measurement": 0.5, "fix": 0.5}
