"""Generalisation checks written fresh for the grader (tests/data/grading_generalise.txt, none from a labelled
corpus; "\\n" in a reply is a line break): for each concept or rule that was broadened, replies in other words that
must earn their parts, and near misses (catalogues, twins, hedges) that must not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.grading import grade

DATA = Path(__file__).parent / "data" / "grading_generalise.txt"


def _rows() -> list[tuple[str, tuple[float, float, float], str]]:
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        signature, expected, answer = (x.strip() for x in line.split("|", 2))
        credits = (0.0, 0.0, 0.0) if expected == "S" else tuple(float(x) for x in expected.split())
        assert len(credits) == 3, line
        rows.append((signature, (credits[0], credits[1], credits[2]), answer.replace("\\n", "\n")))
    return rows


ROWS = _rows()


@pytest.mark.parametrize(("signature", "expected", "answer"), ROWS, ids=[f"{k}-{r[0]}" for k, r in enumerate(ROWS)])
def test_replies_in_other_words(signature: str, expected: tuple[float, float, float], answer: str) -> None:
    """Catalogues earn nothing in any dress (long prose, a verdict up front, "in some jobs …", "whichever applies");
    committed replies earn their parts in words nobody tuned on; hedges and twins earn what LABELLING.md says."""
    g = grade(signature, answer)
    assert (g.signature.credit, g.measurement.credit, g.fix.credit) == expected
    if expected == (0.0, 0.0, 0.0):
        assert g.score == 0.0
