"""Two real replica processes (tests/replica.py: the real composition root and Slack ChatPort) on the real
PostgreSQL, posting to the fake Slack API: follower drills and schedules, lock loss, a hung leader, and the
daily drill fired by two replicas at once. PostgreSQL only: SQLite runs one process by design."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, text

from bot.schedule.leader import lock_key
from bot.store import repo
from bot.store.db import Database, normalize_url
from bot.store.models import Drill

from .dbs import make_database, pg_url, postgres_url
from .fakes.slack_api import Call, FakeSlackAPI

pytestmark = pytest.mark.skipif(postgres_url()[0] is None, reason=postgres_url()[1])  # said in the summary

ROOT = Path(__file__).resolve().parents[1]
POLL, SWEEP, STALE = 0.5, 1.0, 3.0


class Replica:
    def __init__(self, name: str, proc: asyncio.subprocess.Process) -> None:
        self.name, self.proc = name, proc
        self.events: list[dict[str, Any]] = []
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while line := await self.proc.stdout.readline():
            with contextlib.suppress(ValueError):  # log lines
                self.events.append(json.loads(line))

    async def wait(
        self, pred: Callable[[dict[str, Any]], bool], seconds: float = 20.0, after: int = 0
    ) -> dict[str, Any]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for e in self.events[after:]:
                if pred(e):
                    return e
            await asyncio.sleep(0.01)
        raise AssertionError(f"{self.name}: no matching event in {seconds} s; got {self.events}")

    async def leading(self, value: bool, seconds: float = 20.0, after: int = 0) -> dict[str, Any]:
        return await self.wait(lambda e: e["event"] == "leading" and e["leading"] is value, seconds, after)

    async def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command.encode() + b"\n")
        await self.proc.stdin.drain()

    async def stop(self) -> None:
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            await self.proc.wait()
        self._reader.cancel()


@pytest.fixture
def pg(tmp_path: Path) -> Iterator[tuple[Database, str]]:
    for db in make_database("postgresql", tmp_path):
        with db.engine.connect() as c:
            schema = str(c.execute(text("SELECT current_schema()")).scalar())
        yield db, schema


@pytest.fixture
async def api() -> AsyncIterator[FakeSlackAPI]:
    fake = FakeSlackAPI()
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
async def spawn(pg: tuple[Database, str], api: FakeSlackAPI) -> AsyncIterator[Callable[[str], Any]]:
    _db, schema = pg
    url = normalize_url(pg_url())
    url += ("&" if "?" in url else "?") + f"options=-csearch_path%3D{schema}"
    started: list[Replica] = []

    async def start(name: str) -> Replica:
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "TRACEDRILL_NO_UPGRADE": "1",
            "MPLBACKEND": "Agg",
            "TRACEDRILL_LEADER_POLL_SECONDS": str(POLL),
            "TRACEDRILL_SWEEP_SECONDS": str(SWEEP),
            "TRACEDRILL_LEADER_STALE_SECONDS": str(STALE),
            "REPLICA_SLACK_API": f"{api.base}/api/",
            "REPLICA_NAME": name,
            "PYTHONPATH": str(ROOT),
        }
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.replica",
            cwd=ROOT,
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        r = Replica(name, proc)
        started.append(r)
        await r.wait(lambda e: e["event"] == "ready", 60)
        return r

    yield start
    for r in started:
        await r.stop()


async def leader_and_follower(spawn: Callable[[str], Any]) -> tuple[Replica, Replica]:
    """Two replicas started at once (a replica takes seconds to import and start); whichever takes the lock
    leads, the other must say it follows."""
    x, y = await asyncio.gather(spawn("a"), spawn("b"))
    deadline = time.monotonic() + 20
    while not any(e["event"] == "leading" and e["leading"] for r in (x, y) for e in r.events):
        assert time.monotonic() < deadline, f"no replica leads: {x.events} {y.events}"
        await asyncio.sleep(0.01)
    leader = x if any(e["event"] == "leading" and e["leading"] for e in x.events) else y
    follower = y if leader is x else x
    await follower.leading(False)
    assert not any(e["event"] == "leading" and e["leading"] for e in follower.events), "both lead"
    return leader, follower


async def _until(pred: Callable[[], bool], seconds: float) -> None:
    for _ in range(max(1, int(seconds / 0.01))):
        if pred():
            return
        await asyncio.sleep(0.01)


def _drill_posts(api: FakeSlackAPI) -> list[Call]:
    return [c for c in api.of("chat.postMessage") if not c.params.get("thread_ts")]


def _reveal_posts(api: FakeSlackAPI) -> list[Call]:
    return [c for c in api.of("chat.postMessage") if c.params.get("thread_ts") and "Reveal" in c.params["text"]]


def _jobs(db: Database) -> dict[str, float]:
    with db.engine.connect() as c:
        return {str(i): float(t) for i, t in c.execute(text("SELECT id, next_run_time FROM apscheduler_jobs"))}


@pytest.mark.long
async def test_a_follower_s_schedule_and_drill_take_effect_and_the_drill_is_revealed_on_time(
    pg: tuple[Database, str], api: FakeSlackAPI, spawn: Callable[[str], Any]
) -> None:
    db, _ = pg
    _a, b = await leader_and_follower(spawn)

    # `/trace schedule` handled on the follower: the leader's re-sync creates the cron job.
    await b.send("schedule 9 30")
    await b.wait(lambda e: e["event"] == "scheduled")
    t0 = time.monotonic()
    await _until(lambda: any(j.startswith("channel:") for j in _jobs(db)), SWEEP + 5)
    synced_after = time.monotonic() - t0
    assert any(j.startswith("channel:") for j in _jobs(db)), "the follower's schedule never reached the leader"
    assert synced_after <= SWEEP + 1.0

    # A drill started on the follower, which then dies: the leader reveals it at its deadline.
    await b.send("drill 10")
    started = await b.wait(lambda e: e["event"] == "started")
    await b.stop()
    assert len(_drill_posts(api)) == 1
    deadline = float(started["deadline"])
    await _until(lambda: bool(_reveal_posts(api)), deadline + 15 - time.time())
    seen = time.time()
    assert len(_reveal_posts(api)) == 1, "the follower's drill was never revealed"
    with db.session() as s:
        d = s.get(Drill, int(started["id"]))
        assert d is not None and d.revealed_at is not None
        claimed = d.revealed_at.timestamp() - deadline
    print(
        f"schedule synced after {synced_after:.2f} s; reveal claimed {claimed:.2f} s after the deadline, "
        f"posted after {seen - deadline:.2f} s (drawing the reveal included)"
    )
    assert 0 <= claimed <= 1.5, f"the reveal started {claimed:.2f} s after the deadline"
    assert seen - deadline <= 10.0
    await asyncio.sleep(SWEEP + 0.5)
    assert len(_reveal_posts(api)) == 1, "revealed once"


@pytest.mark.long
async def test_a_leader_that_loses_its_lock_stops_within_a_poll_and_a_hung_leader_is_replaced(
    pg: tuple[Database, str], api: FakeSlackAPI, spawn: Callable[[str], Any]
) -> None:
    db, schema = pg
    a, b = await leader_and_follower(spawn)

    # Kill the leader's lock connection: it stops within one poll; the other replica takes over.
    n_a, n_b = len(a.events), len(b.events)
    with db.engine.connect() as c:
        pid = c.execute(
            text(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND "
                "((classid::bigint << 32) | objid::bigint) = :k"
            ),
            {"k": lock_key(schema)},
        ).scalar()
        assert pid is not None
        t0 = time.time()
        assert c.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar()
    stopped = await a.leading(False, seconds=10, after=n_a)
    took = stopped["t"] - t0
    assert stopped["lost"] == 1, a.events
    assert took <= POLL + 0.5, f"the old leader kept scheduling for {took:.2f} s (poll {POLL} s)"
    took_over = (await b.leading(True, seconds=10, after=n_b))["t"] - t0

    # A hung leader (SIGSTOP) keeps its connection and lock; the follower replaces it once it's stale.
    n_a = len(a.events)
    b.proc.send_signal(signal.SIGSTOP)
    t1 = time.time()
    replaced = (await a.leading(True, seconds=STALE + 10, after=n_a))["t"] - t1
    n_b = len(b.events)
    t2 = time.time()
    b.proc.send_signal(signal.SIGCONT)
    woke = await b.leading(False, seconds=10, after=n_b)
    print(
        f"lock killed: old leader stopped after {took:.2f} s, new leader after {took_over:.2f} s; "
        f"hung leader replaced after {replaced:.2f} s (stale {STALE} s); it stopped {woke['t'] - t2:.2f} s "
        "after waking"
    )
    assert STALE <= replaced <= STALE + 3 * POLL + 1.0
    assert woke["t"] - t2 <= POLL + 1.0
    await asyncio.sleep(2 * POLL)
    assert a.events[-1]["event"] != "leading" or a.events[-1]["leading"] is True
    assert [e["leading"] for e in b.events[n_b:] if e["event"] == "leading"] == [False]


async def test_a_leader_hung_inside_a_transaction_is_replaced_and_its_successor_can_schedule(
    pg: tuple[Database, str], api: FakeSlackAPI, spawn: Callable[[str], Any]
) -> None:
    """A leader stopped mid-write holds row locks on its pool connections, not only the advisory lock: the
    follower that replaces it must end those sessions too, or the new leader's first job-store write waits
    forever behind them."""
    db, _ = pg
    a, b = await leader_and_follower(spawn)
    await _until(lambda: "appeal-notices" in _jobs(db), 10)
    await a.send("hold")
    await a.wait(lambda e: e["event"] == "holding")
    n_b = len(b.events)
    a.proc.send_signal(signal.SIGSTOP)
    await b.leading(True, seconds=STALE + 10, after=n_b)
    await b.send("schedule 9 30")
    await b.wait(lambda e: e["event"] == "scheduled")
    await _until(lambda: any(j.startswith("channel:") for j in _jobs(db)), SWEEP + 10)
    assert any(j.startswith("channel:") for j in _jobs(db)), "the new leader waits behind the hung leader's rows"
    assert [e for e in b.events if e["event"] == "error"] == []


async def test_a_daily_drill_fired_by_two_replicas_at_once_is_posted_once(
    pg: tuple[Database, str], api: FakeSlackAPI, spawn: Callable[[str], Any]
) -> None:
    db, _ = pg
    now = datetime.now(UTC) - timedelta(minutes=1)
    with db.session() as s:
        ws = repo.workspace(s, "slack", "T1", "", now)
        ch = repo.channel(s, ws, "C1", "perf")
        ch.schedule_hour, ch.schedule_minute, ch.weekdays, ch.timezone = now.hour, now.minute, "mon-sun", "UTC"
        ch_id = ch.id
    a, b = await leader_and_follower(spawn)
    for _ in range(2):  # two replicas (as two leaders would) run the 09:30 job, twice each
        await asyncio.gather(a.send(f"fire {ch_id}"), b.send(f"fire {ch_id}"))
    for r in (a, b):
        await r.wait(lambda e: e["event"] == "fired", 60)
        await r.wait(lambda e, r=r: sum(x["event"] == "fired" for x in r.events) == 2, 60)
    assert [e for r in (a, b) for e in r.events if e["event"] == "error"] == []
    assert len(_drill_posts(api)) == 1
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(Drill)) == 1
        assert s.scalar(select(Drill.slot_key)) == f"channel:{now:%Y-%m-%dT%H:%M}Z"
