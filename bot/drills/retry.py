"""Platform calls retried with exponential backoff: a blip in Slack or Discord costs seconds, not the drill."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


def is_transient(exc: BaseException) -> bool:
    """Worth retrying: the network failed (OSError covers connection resets and timeouts), or the adapter marked
    the platform's answer as temporary (`transient = True`: rate limits, 5xx). A refusal the platform won't
    change its mind about (not in the channel, missing permission, bad request) is not retried."""
    return isinstance(exc, OSError) or bool(getattr(exc, "transient", False))


async def with_retries(what: str, call: Callable[[], Awaitable[T]], attempts: int, base_seconds: float) -> T:
    """`call` up to `attempts` times, backing off base, 2 × base, …; the last error is raised."""
    delay = base_seconds
    for attempt in range(1, max(1, attempts) + 1):
        try:
            return await call()
        except Exception as exc:
            if attempt >= attempts or not is_transient(exc):
                raise
            log.warning("%s failed (%s); retry %d in %.1f s", what, type(exc).__name__, attempt, delay)
            await asyncio.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")
