"""The one way the async core runs blocking work — a store transaction, drawing, grading: in a worker thread,
so the adapters' event loops keep acknowledging within the platforms' 3 seconds."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

from ..store.db import Database

P = ParamSpec("P")
T = TypeVar("T")


async def off_loop(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    return await asyncio.to_thread(fn, *args, **kwargs)


async def in_store(db: Database, fn: Callable[Concatenate[Database, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
    """A store call (bot.store functions take the database first), off the event loop."""
    return await asyncio.to_thread(fn, db, *args, **kwargs)


async def claim_in_store(
    db: Database,
    claim: Callable[Concatenate[Database, int, P], T | None],
    release: Callable[[Database, int], object],
    key: int,
    *args: P.args,
    **kwargs: P.kwargs,
) -> T | None:
    """Run a claim (a reveal's `UPDATE … WHERE revealed_at IS NULL`) so a cancelled caller never strands it. The
    claim's thread cannot be stopped: if the caller is cancelled meanwhile, whatever it claims is released as soon
    as it commits, so the next sweep takes it (shutdown and a lost leader lock cancel reveals in flight)."""
    task = asyncio.ensure_future(asyncio.to_thread(claim, db, key, *args, **kwargs))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        task.add_done_callback(lambda t: _release_if_claimed(t, db, release, key))
        raise


def _release_if_claimed(
    task: asyncio.Future[Any], db: Database, release: Callable[[Database, int], object], key: int
) -> None:
    if task.cancelled() or task.exception() is not None or task.result() is None:
        return
    # A plain thread, not a task: the loop may be closing; the interpreter waits for it before exiting.
    threading.Thread(target=release, args=(db, key), name=f"release-claim-{key}").start()
