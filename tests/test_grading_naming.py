"""The grader's signature part against the naming set (tests/data/naming/*.txt): diagnosis sentences in three
writers' own words, on the corpus's fixed dev/test split. Dev is tuned on; test is reported as figures only."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.grading.naming import evaluate_naming, load_naming, main, naming_in
from bot.scenarios.ids import SIGNATURE_IDS

DEV_FLOOR = (0.95, 0.93)  # per part, exact: the measured level (round 11: 0.961, 0.940), so nothing regresses
TEST_FLOOR = (0.93, 0.91)  # the half nobody tunes on (round 11: 0.938, 0.920)


def test_the_naming_set_is_labelled_and_covers_every_signature_in_both_splits() -> None:
    rows = load_naming()
    assert len(rows) >= 1500
    for r in rows:
        assert r.signature in SIGNATURE_IDS and r.credit in (0.0, 0.5, 1.0) and r.sentence, r.source
    for split in ("dev", "test"):
        half = naming_in(split, rows)
        assert {r.signature for r in half} == set(SIGNATURE_IDS)
        assert {r.credit for r in half} == {0.0, 0.5, 1.0}


@pytest.mark.parametrize(("split", "floor"), [("dev", DEV_FLOOR), ("test", TEST_FLOOR)])
def test_signature_agreement_on_the_naming_set(split: str, floor: tuple[float, float]) -> None:
    f = evaluate_naming(naming_in(split, load_naming()))  # type: ignore[arg-type]
    print(f"{split}: {f.rows} lines, per part {f.per_part:.3f}, exact {f.exact:.3f}, recall {f.recall:.3f}")
    assert f.per_part >= floor[0] and f.exact >= floor[1]


def test_the_cli_refuses_to_list_test_split_misses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--split", "test", "--misses"])
    assert "dev split only" in capsys.readouterr().err


def test_a_malformed_naming_line_is_named_by_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "X.txt").write_text("straggler | 1 | one rank is slow\nstraggler one rank is slow\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"X\.txt:2"):
        load_naming(tmp_path)
