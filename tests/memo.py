"""Scenarios and pictures shared by the tests of one worker process. A multi-rank drill costs 50–150 ms to generate
and several parametrised tests (themes × modes, several checks per seed) read the same (signature, seed,
difficulty); a drill picture costs ~0.1 s to draw and the engine and chat tests, whose engines pick seeds from the
same seeded random numbers, post the same drills again and again.

Read-only: a test that changes a scenario calls `bot.scenarios.registry.generate` itself. Bounded at 48 entries
(a physics test walks 12 seeds × 3 difficulties; a multi-rank scenario holds ~20 MB, a single-rank one ~3.5 MB)."""

from __future__ import annotations

from functools import lru_cache

from bot.render.cache import RenderCache
from bot.scenarios.model import Scenario
from bot.scenarios.registry import generate


@lru_cache(maxsize=48)
def scenario(signature: str, seed: int, difficulty: str = "medium") -> Scenario:
    return generate(signature, seed, difficulty)


# One render cache for the engines of every test in this process, as the app shares one across all drills (a
# stored trace's drill is keyed by its bytes, so two tests' traces never share a picture). A test that counts the
# pictures drawn gives its engine a RenderCache of its own.
PICTURES = RenderCache(max_items=512)  # ~100–300 kB a picture
