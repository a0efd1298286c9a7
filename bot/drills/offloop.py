"""The one way the async core runs blocking work — a store transaction, drawing, grading: in a worker thread,
so the adapters' event loops keep acknowledging within the platforms' 3 seconds."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from ..store.db import Database

P = ParamSpec("P")
T = TypeVar("T")


async def off_loop(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    return await asyncio.to_thread(fn, *args, **kwargs)


async def in_store(db: Database, fn: Callable[Concatenate[Database, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
    """A store call (bot.store functions take the database first), off the event loop."""
    return await asyncio.to_thread(fn, db, *args, **kwargs)
