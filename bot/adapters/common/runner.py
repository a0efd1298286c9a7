"""The one way a chat adapter works after answering the platform: ack → tracked background task → typed error
→ reply.

Slack and Discord both want an answer within 3 seconds, so every handler acks (or defers) first and hands the
slow part to `Runner.later`. The task is kept in a set, so the event loop's weak reference is not the only one,
and `close()` cancels and awaits what is still running. A failure becomes one line for the person through an
`ErrorTable` (exception type → user-facing line), and every failure leaves a log line.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from ...drills.errors import DrillError

SOMETHING_WRONG = "Something went wrong; please try again."

Reply = Callable[[str], Awaitable[object]]
Line = Callable[[Any], str]


@dataclass(frozen=True, slots=True)
class ErrorRow:
    """Exceptions of `kind` become `line(exc)`; `expected` ones (told to the person as they are) log at INFO,
    the rest with their traceback."""

    kind: type[Exception]
    line: Line
    expected: bool = True


class ErrorTable:
    """Exception type → the line the person reads. The first row whose type matches wins; anything else gets
    `fallback` and a logged traceback."""

    def __init__(self, *rows: ErrorRow, fallback: str = SOMETHING_WRONG) -> None:
        self.rows, self.fallback = rows, fallback

    def with_rows(self, *rows: ErrorRow, fallback: str | None = None) -> ErrorTable:
        """This table with `rows` tried first (and another fallback line, if given)."""
        return ErrorTable(*rows, *self.rows, fallback=self.fallback if fallback is None else fallback)

    def line(self, exc: Exception, what: str, log: logging.Logger) -> str:
        for row in self.rows:
            if isinstance(exc, row.kind):
                if row.expected:
                    log.info("%s: %s: %s", what, type(exc).__name__, exc)
                else:
                    log.warning("%s failed", what, exc_info=exc)
                return row.line(exc)
        log.error("%s failed", what, exc_info=exc)
        return self.fallback


def drill_errors(line: Line = str) -> ErrorTable:
    """The table both platforms start from: the core's own errors are already sentences for the person."""
    return ErrorTable(ErrorRow(DrillError, line))


class Runner:
    def __init__(self, errors: ErrorTable, log: logging.Logger) -> None:
        self.errors, self.log = errors, log
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run `coro` in the background, held until it ends; its failure is logged, never lost."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.log.error("background task %s failed", task.get_name(), exc_info=task.exception())

    def later(self, what: str, work: Awaitable[str | None], reply: Reply, errors: ErrorTable | None = None) -> None:
        """`reply_after` in the background: for handlers that have already acked."""
        self.spawn(self.reply_after(what, work, reply, errors))

    async def reply_after(
        self, what: str, work: Awaitable[str | None], reply: Reply, errors: ErrorTable | None = None
    ) -> None:
        """Await `work`; reply with its text (None: it answered by itself), or with the table's line for its error."""
        try:
            text = await work
        except Exception as exc:
            text = (errors or self.errors).line(exc, what, self.log)
        if text is None:
            return
        try:
            await reply(text)
        except Exception as exc:  # the person can't be told: at least the operator is
            self.log.warning("%s: the reply failed: %s", what, type(exc).__name__, exc_info=exc)

    def detach(self, what: str, work: Awaitable[object]) -> None:
        """`quietly` in the background."""
        self.spawn(self.quietly(what, work))

    async def quietly(self, what: str, work: Awaitable[object]) -> None:
        """Work nobody waits for an answer to (a notification, a refresh): a failure is logged and dropped."""
        try:
            await work
        except Exception as exc:
            self.log.warning("%s failed: %s", what, type(exc).__name__, exc_info=exc)

    async def close(self, grace_seconds: float = 5.0) -> None:
        """Let the work still running after its ack finish (an answer being stored, a reply being sent) for up to
        `grace_seconds`, then cancel what is left and wait for it to stop."""
        tasks = list(self._tasks)
        if tasks:
            await asyncio.wait(tasks, timeout=grace_seconds)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
