"""A signed Slack request is good for 5 minutes; within them, the same request must not act twice.

Bolt checks the signature and the timestamp's age; this remembers each (timestamp, signature) it accepted for
that window and refuses a repeat. Slack's own retries of an event carry X-Slack-Retry-Num, which is part of
the key (their effects are deduplicated by event id); slash commands are never retried, so a repeated
command is always a replay. The memory is per process: a replay sent to another replica is refused only by
the idempotency keys — keep the window short and the bound on entries.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.response import BoltResponse

WINDOW_SECONDS = 5 * 60


class ReplayGuard:
    def __init__(
        self, window: float = WINDOW_SECONDS, max_entries: int = 100_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.window = window
        self.max_entries = max_entries
        self.clock = clock
        self._seen: OrderedDict[tuple[str, ...], float] = OrderedDict()  # key → when it expires

    def first_time(self, key: tuple[str, ...]) -> bool:
        """True the first time a key is offered within the window; False for a repeat."""
        now = self.clock()
        while self._seen and (next(iter(self._seen.values())) <= now or len(self._seen) >= self.max_entries):
            self._seen.popitem(last=False)
        if key in self._seen:
            return False
        self._seen[key] = now + self.window
        return True

    async def middleware(self, req: Any, resp: Any, next: Callable[[], Awaitable[None]]) -> Any:
        """Bolt middleware; Bolt runs it after its signature check."""
        headers = req.headers or {}

        def header(name: str) -> str:
            values = headers.get(name) or [""]
            return str(values[0] if isinstance(values, list) else values)

        signature = header("x-slack-signature")
        if signature and not self.first_time(
            (header("x-slack-request-timestamp"), signature, header("x-slack-retry-num"))
        ):
            return BoltResponse(status=401, body="replayed request")
        await next()
        return resp
