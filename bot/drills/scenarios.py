"""Scenario and picture access for the core: generated once per key, drawn once per key (cached)."""

from __future__ import annotations

from functools import lru_cache

from ..analyze.service import scenario_from_bytes
from ..render.cache import RenderCache
from ..render.text import render_text
from ..scenarios.model import Scenario
from ..scenarios.registry import generate
from ..store import traces
from ..store.db import Database
from ..store.drills import DrillKey
from .errors import DrillError


@lru_cache(maxsize=256)
def scenario(signature: str, seed: int, difficulty: str) -> Scenario:
    return generate(signature, seed, difficulty)


def drill_png(cache: RenderCache, s: Scenario, theme: str) -> bytes:
    return cache.png(s, theme, "drill")


def reveal_png(cache: RenderCache, s: Scenario, theme: str) -> bytes:
    return cache.png(s, theme, "reveal")


def text_timeline(s: Scenario, width: int = 100) -> str:
    return render_text(s, width, header=False)


class DrillScenarios:
    """Each drill's scenario: generated from (signature, seed, difficulty), or read from the team's stored trace
    (a bounded cache: each holds a whole trace). Blocking: callers run it off the event loop."""

    def __init__(self, db: Database, trace_cache: int = 32) -> None:
        self.db = db
        self._from_trace = lru_cache(maxsize=trace_cache)(self._read_trace)

    def for_key(self, key: DrillKey) -> Scenario:
        if key.trace_id is None:
            return scenario(key.signature, key.seed, key.difficulty)
        return self._from_trace(key.trace_id)

    def _read_trace(self, trace_id: int) -> Scenario:
        found = traces.load(self.db, trace_id)
        if found is None:
            raise DrillError("The trace behind this drill was deleted.")
        return scenario_from_bytes(found.filename, found.data)

    def clear(self) -> None:
        self._from_trace.cache_clear()
