"""Locating a rule's words in a clause (matcher._locate): the two-token fast path finds what the general search
finds, on random clauses."""

from __future__ import annotations

import itertools
import random

from bot.grading import matcher


def _first_after(anchor: int, rest: list[list[int]], at_of: tuple[int, ...]) -> list[int] | None:
    """Written out here, not borrowed from the matcher: the anchor, then each next token's first word at a later
    position than the word chosen before it."""
    chosen = [anchor]
    for words in rest:
        later = [k for k in words if at_of[k] > at_of[chosen[-1]]]
        if not later:
            return None
        chosen.append(min(later, key=lambda k: (at_of[k], k)))
    return chosen


def _general(
    tokens: tuple[str, ...], positions: dict[str, list[int]], at_of: tuple[int, ...], ordered: bool
) -> tuple[int, ...] | None:
    """The general search, as written for rules of any length (each anchor, the nearest word for each other token; for
    an ordered rule, the first word after the one chosen before)."""
    lists = [positions.get(t) for t in tokens]
    if any(x is None for x in lists):
        return None
    first, *rest = [x for x in lists if x is not None]
    window = len(tokens) + matcher.WINDOW_SLACK
    for anchor in first:
        found = _first_after(anchor, rest, at_of) if ordered else matcher._nearest(anchor, rest, at_of)
        if found is None:
            continue
        chosen = found
        spread = [at_of[k] for k in chosen]
        if tokens[0] in matcher._NEGATIONS and min(spread) != spread[0]:
            continue
        if len(set(chosen)) < len(chosen):
            continue
        if ordered and any(a >= b for a, b in itertools.pairwise(spread)):
            continue
        if max(spread) - min(spread) < window:
            return tuple(chosen)
    return None


def test_a_two_token_rule_is_located_as_the_general_search_locates_it() -> None:
    rng = random.Random(7)
    stems = ["not", "rank", "slow", "overlap"]
    found = 0
    for _ in range(5000):
        n = rng.randint(1, 12)
        words = [rng.choice(stems) for _ in range(n)]
        at_of = tuple(itertools.accumulate(rng.choice((1, 1, 2, 6)) for _ in range(n)))
        positions: dict[str, list[int]] = {}
        for i, w in enumerate(words):
            positions.setdefault(w, []).append(i)
        tokens = (rng.choice(stems), rng.choice(stems))
        for ordered in (False, True):
            expected = _general(tokens, positions, at_of, ordered)
            assert matcher._locate(tokens, positions, at_of, ordered) == expected, (tokens, words, at_of)
            found += expected is not None
    assert found > 100
