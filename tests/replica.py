"""One bot replica for the two-process tests: the real composition root (bot.app.build_core) with the real
Slack ChatPort talking to a fake Slack Web API, driven by commands on stdin, reporting JSON lines on stdout.

Run: python -m tests.replica   (DATABASE_URL, TRACEDRILL_*, REPLICA_SLACK_API, REPLICA_NAME from the environment)
Commands: `drill SECONDS` · `schedule HOUR MINUTE` · `fire CHANNEL_ID` (run the daily job now) · `hold` (leave a
transaction open on the job store's rows, as a leader hung mid-write would) · `quit`.
Events: ready · leading {"leading": bool} · started {"id", "deadline"} · scheduled · fired · holding · error.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from typing import Any

from sqlalchemy import Connection, Engine, text

from bot.adapters.slack.chat import SlackChat
from bot.app import build_core
from bot.drills.ports import ChannelRef
from bot.schedule import jobs
from bot.settings import CoreSettings

CHANNEL = ChannelRef("slack", "T1", "C1", "perf")


def emit(event: str, **fields: Any) -> None:
    print(
        json.dumps({"event": event, "name": os.environ.get("REPLICA_NAME", ""), "t": time.time(), **fields}), flush=True
    )


def hold_job_rows(engine: Engine) -> Connection:
    conn = engine.connect()
    conn.execute(text("SELECT id FROM apscheduler_jobs FOR UPDATE")).all()
    return conn  # the transaction stays open while the connection is referenced


async def main() -> None:
    engine, scheduler, service = build_core(CoreSettings())
    engine.retry_base_seconds = 0.05

    async def token_for(_team: str) -> str:
        return "xoxb-test-token-456"

    chat = SlackChat(token_for, os.environ["REPLICA_SLACK_API"], min_gap=0.0, update_every=3600)
    engine.chats["slack"] = chat
    jobs.bind(engine)  # a follower runs the job function only when told to (`fire`), like a leader's cron would
    scheduler.start_background()

    async def watch() -> None:
        leading = None
        while True:
            if scheduler.running != leading:
                leading = scheduler.running
                emit("leading", leading=leading, lost=getattr(scheduler, "lost_leadership", 0))
            await asyncio.sleep(0.02)

    watcher = asyncio.create_task(watch())
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    held: list[Connection] = []
    emit("ready", pid=os.getpid())
    try:
        while line := (await reader.readline()).decode().split():
            try:
                if line[0] == "drill":
                    d = await engine.start(CHANNEL, signature="straggler", duration_seconds=int(line[1]))
                    emit("started", id=d.id, deadline=d.deadline.timestamp())
                elif line[0] == "schedule":
                    text = await service.set_schedule(CHANNEL, "mon-sun", int(line[1]), int(line[2]), "UTC")
                    emit("scheduled", text=text)
                elif line[0] == "fire":
                    await jobs.channel_drill(int(line[1]))
                    emit("fired")
                elif line[0] == "hold":
                    held.append(await asyncio.to_thread(hold_job_rows, engine.db.engine))
                    emit("holding")
                elif line[0] == "quit":
                    break
            except Exception as exc:
                emit("error", error=f"{type(exc).__name__}: {exc}")
    finally:
        watcher.cancel()
        await scheduler.stop()
        await chat.close()
        engine.db.dispose()


if __name__ == "__main__":
    asyncio.run(main())
