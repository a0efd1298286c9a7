"""Small named values an adapter keeps across restarts (the bot_state table; e.g. the hash of the command tree
Discord last synced), read and written off the event loop."""

from __future__ import annotations

from ..store import state
from .engine import Drills
from .offloop import in_store


class KeptValues:
    def __init__(self, drills: Drills) -> None:
        self._db, self._clock = drills.db, drills.clock

    async def get(self, key: str) -> str | None:
        return await in_store(self._db, state.get, key)

    async def put(self, key: str, value: str) -> None:
        await in_store(self._db, state.put, key, value, self._clock())
