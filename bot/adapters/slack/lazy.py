"""Bolt's lazy listeners, run as tasks the adapter's Runner holds (and cancels on close).

Bolt's own asyncio runner starts each lazy function with a bare `asyncio.ensure_future`: nothing keeps the task
alive but the loop's weak reference, and nothing can wait for it at shutdown."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.lazy_listener.async_internals import to_runnable_function
from slack_bolt.lazy_listener.async_runner import AsyncLazyListenerRunner
from slack_bolt.request.async_request import AsyncBoltRequest

from ..common.runner import Runner


class TrackedLazyRunner(AsyncLazyListenerRunner):
    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.logger = runner.log

    def start(self, function: Callable[..., Awaitable[None]], request: AsyncBoltRequest) -> None:
        self.runner.spawn(to_runnable_function(internal_func=function, logger=self.logger, request=request))


def track_lazy_listeners(app: AsyncApp, runner: Runner) -> None:
    # AsyncApp takes no lazy runner in its constructor (the sync App's listener_executor has no async twin), so
    # the one it built is replaced on its listener runner.
    app._async_listener_runner.lazy_listener_runner = TrackedLazyRunner(runner)


async def ack_only(ack: Any) -> None:
    """The ack half of a listener whose work is all lazy."""
    await ack()
