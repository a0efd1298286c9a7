"""`serve` closes what it opened — the scheduler, the adapters, the drill core and the database, in that order —
whether it is stopped by SIGTERM (a container's stop: a clean exit) or cancelled."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
from pathlib import Path

import pytest
from aiohttp import web

from bot.adapters.slack.chat import SlackChat
from bot.app import plan_serve, serve
from bot.drills.engine import Drills
from bot.schedule.scheduler import DrillScheduler
from bot.settings import ServeSettings
from bot.store.db import Database


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def closed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """Serve Slack over HTTP from the environment alone, and record each close as it happens."""
    port = free_port()
    for name, value in {
        "HOME": str(tmp_path),
        "TRACEDRILL_PLATFORM": "slack",
        "TRACEDRILL_HTTP_PORT": str(port),
        "TRACEDRILL_HOST": "127.0.0.1",
        "SLACK_BOT_TOKEN": "xoxb-0-test",
        "SLACK_SIGNING_SECRET": "a-signing-secret",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
    }.items():
        monkeypatch.setenv(name, value)
    calls: list[str] = []

    def record(cls: type, method: str, label: str) -> None:
        original = getattr(cls, method)
        if asyncio.iscoroutinefunction(original):

            async def async_wrapper(self: object) -> None:
                calls.append(label)
                await original(self)

            monkeypatch.setattr(cls, method, async_wrapper)
        else:

            def wrapper(self: object) -> None:
                calls.append(label)
                original(self)

            monkeypatch.setattr(cls, method, wrapper)

    record(SlackChat, "close", "chat")
    record(web.AppRunner, "cleanup", "http")
    record(DrillScheduler, "stop", "scheduler")
    record(Drills, "aclose", "drills")
    record(Database, "dispose", "database")
    return calls


async def _serving() -> asyncio.Task[None]:
    task = asyncio.create_task(serve(plan_serve(ServeSettings())))
    port = int(os.environ["TRACEDRILL_HTTP_PORT"])
    for _ in range(300):
        assert not task.done(), task.exception()
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        await writer.wait_closed()
        return task
    raise AssertionError("serve never listened")


async def test_sigterm_stops_serve_cleanly_and_closes_everything(closed: list[str]) -> None:
    task = await _serving()
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.wait_for(task, 30)  # returns: SIGTERM is a clean stop, not an error
    assert closed == ["scheduler", "http", "chat", "drills", "database"]


async def test_a_cancelled_serve_closes_everything(closed: list[str]) -> None:
    task = await _serving()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 30)
    assert closed == ["scheduler", "http", "chat", "drills", "database"]
