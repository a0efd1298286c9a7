"""Render cache keyed by (signature, seed, difficulty, theme, kind): a drill posted to many channels is drawn
once. In memory (LRU) and, optionally, on disk so replicas and restarts share it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..scenarios.model import Scenario

if TYPE_CHECKING:
    from .png import Renderer

KINDS = ("drill", "reveal")


@dataclass(frozen=True, slots=True)
class RenderKey:
    signature: str
    seed: int
    difficulty: str
    theme: str
    kind: str  # drill | reveal

    def filename(self) -> str:
        return f"{self.signature}-{self.seed}-{self.difficulty}-{self.theme}-{self.kind}.png"


class RenderCache:
    """Pictures by key, drawn by a renderer of its own (which keeps each drawing thread's glyphs warm)."""

    def __init__(self, max_items: int = 256, directory: Path | None = None) -> None:
        self._renderer: Renderer | None = None  # made on the first picture drawn
        self._items: OrderedDict[RenderKey, bytes] = OrderedDict()
        self._max = max_items
        self._dir = directory
        self._lock = threading.Lock()
        self._key_locks: dict[RenderKey, threading.Lock] = {}
        self.renders = 0  # how many pictures were actually drawn (for tests and the fan-out benchmark)

    def png(
        self,
        scenario: Scenario,
        theme: str = "light",
        kind: str = "drill",
        draw: Callable[[Scenario, str, bool], bytes] | None = None,
    ) -> bytes:
        if kind not in KINDS:
            raise ValueError(f"unknown picture kind {kind!r}")
        key = RenderKey(scenario.signature, scenario.seed, scenario.difficulty, theme, kind)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:  # concurrent requests for one picture draw it once
            with self._lock:
                if key in self._items:
                    return self._items[key]
            data = self._from_disk(key)
            if data is None:
                data = (draw or self._draw)(scenario, theme, kind == "reveal")
                self._to_disk(key, data)
                with self._lock:
                    self.renders += 1
            with self._lock:
                self._items[key] = data
                while len(self._items) > self._max:
                    self._items.popitem(last=False)
                self._key_locks.pop(key, None)
            return data

    def _draw(self, scenario: Scenario, theme: str, reveal: bool) -> bytes:
        # Imported here for start-up time: matplotlib adds ~0.3 s to a process, and many that make a cache never draw
        # (the CLI's appeal and report commands build a drill engine, and so a cache, only to read the store).
        from .png import Renderer

        with self._lock:
            if self._renderer is None:
                self._renderer = Renderer()
            renderer = self._renderer
        return renderer.png(scenario, theme_name=theme, reveal=reveal)

    def _from_disk(self, key: RenderKey) -> bytes | None:
        if self._dir is None:
            return None
        path = self._dir / key.filename()
        return path.read_bytes() if path.exists() else None

    def _to_disk(self, key: RenderKey, data: bytes) -> None:
        if self._dir is None:
            return
        self._dir.mkdir(parents=True, exist_ok=True)
        tmp = self._dir / (key.filename() + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(self._dir / key.filename())
