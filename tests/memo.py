"""Scenarios shared by the tests of one worker process. A multi-rank drill costs 50–150 ms to generate and several
parametrised tests (themes × modes, several checks per seed) read the same (signature, seed, difficulty).

Read-only: a test that changes a scenario calls `bot.scenarios.registry.generate` itself. Bounded at 48 entries
(a physics test walks 12 seeds × 3 difficulties; a multi-rank scenario holds ~20 MB, a single-rank one ~3.5 MB)."""

from __future__ import annotations

from functools import lru_cache

from bot.scenarios.model import Scenario
from bot.scenarios.registry import generate


@lru_cache(maxsize=48)
def scenario(signature: str, seed: int, difficulty: str = "medium") -> Scenario:
    return generate(signature, seed, difficulty)
