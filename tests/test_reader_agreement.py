"""The project's trace reader names the injected signature on the exported files of seeds no other test uses:
30 seeds × 3 difficulties per signature, >= 0.97 per signature (and so >= 0.99 overall needs near-perfect rows).

Slow by design (about 900 exports read back); run it alone with -k to check one signature."""

from __future__ import annotations

import pytest

from bot.scenarios.agreement import agreement
from bot.scenarios.ids import DIFFICULTIES, SIGNATURE_IDS

SEEDS = range(610_000, 610_030)
PER_SIGNATURE = 0.97


@pytest.mark.parametrize("signature", SIGNATURE_IDS)
def test_reader_names_the_injected_signature(signature: str) -> None:
    rows = agreement(SEEDS, [signature], DIFFICULTIES)[signature]
    assert len(rows) == 90
    misses = [r for r in rows if r[2] != signature]
    assert 1 - len(misses) / len(rows) >= PER_SIGNATURE, misses
