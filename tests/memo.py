"""Scenarios and pictures shared by the tests of one worker process. A multi-rank drill costs 50–150 ms to generate
and several parametrised tests (themes × modes, several checks per seed) read the same (signature, seed,
difficulty); a drill picture costs ~0.1 s to draw and the engine and chat tests, whose engines pick seeds from the
same seeded random numbers, post the same drills again and again.

Read-only: a test that changes a scenario calls `bot.scenarios.registry.generate` itself. Bounded at 48 entries
(a physics test walks 12 seeds × 3 difficulties; a multi-rank scenario holds ~20 MB, a single-rank one ~3.5 MB)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from bot.render.cache import RenderCache
from bot.scenarios.model import Scenario
from bot.scenarios.registry import generate


@lru_cache(maxsize=48)
def scenario(signature: str, seed: int, difficulty: str = "medium") -> Scenario:
    return generate(signature, seed, difficulty)


class WorkerPictures(RenderCache):
    """One render cache for the engines of every test in this process, as the app shares one across all drills.
    A stored trace's drill is the exception: its key (its top finding, seed 0, "real") does not tell two traces
    apart, and another test's trace may have made it, so it is drawn and never kept. A test that counts the
    pictures drawn gives its engine a RenderCache of its own."""

    def png(
        self,
        scenario: Scenario,
        theme: str = "light",
        kind: str = "drill",
        draw: Callable[[Scenario, str, bool], bytes] | None = None,
    ) -> bytes:
        if scenario.difficulty == "real":
            return RenderCache().png(scenario, theme, kind, draw)
        return super().png(scenario, theme, kind, draw)


PICTURES = WorkerPictures(max_items=512)  # ~100–300 kB a picture
