"""Scenario and picture access for the core: generated once per key, drawn once per key (cached)."""

from __future__ import annotations

from functools import lru_cache

from ..render.cache import RenderCache
from ..render.text import render_text
from ..scenarios.model import Scenario
from ..scenarios.registry import generate


@lru_cache(maxsize=256)
def scenario(signature: str, seed: int, difficulty: str) -> Scenario:
    return generate(signature, seed, difficulty)


def drill_png(cache: RenderCache, s: Scenario, theme: str) -> bytes:
    return cache.png(s, theme, "drill")


def reveal_png(cache: RenderCache, s: Scenario, theme: str) -> bytes:
    return cache.png(s, theme, "reveal")


def text_timeline(s: Scenario, width: int = 100) -> str:
    return render_text(s, width, header=False)
