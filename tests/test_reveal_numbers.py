"""Every number a reveal states comes from the scenario's computed figures (or its context and datasheet): none
is typed in."""

from __future__ import annotations

import pytest

from bot.scenarios.ids import DIFFICULTIES
from bot.scenarios.model import Context, Reveal

from .memo import scenario
from .reveal_numbers import numbers, unexplained

SEEDS = (1, 29, 4242, 77_777)


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_every_reveal_number_is_a_figure(signature_id: str, difficulty: str) -> None:
    for seed in SEEDS:
        s = scenario(signature_id, seed, difficulty)
        assert s.difficulty == difficulty  # every difficulty generates, as asked
        assert len(numbers(s.reveal.as_text())) >= 10, "a reveal quotes its measurements"
        assert unexplained(s) == [], (seed, unexplained(s))


def test_a_typed_in_number_is_caught() -> None:
    s = scenario("healthy", 1)
    typed = Reveal(*[getattr(s.reveal, f) for f in Reveal.__slots__[:-1]], tell="idle a third (33.3%) of it")
    s.reveal = typed
    assert "33.3" in unexplained(s)
    assert isinstance(s.context, Context)
