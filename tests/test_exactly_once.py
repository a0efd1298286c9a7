"""Answers racing the reveal, concurrent revisions, failed posts: nothing is lost or counted twice.

Races are made deterministic with real lock contention: another connection holds the attempts table
(PostgreSQL: EXCLUSIVE mode, reads still allowed; SQLite: the database's write lock) while answers and the
reveal queue up behind it.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from sqlalchemy import create_engine, func, select, text

from bot.drills.errors import AlreadyStarted
from bot.drills.fake import FakeChat
from bot.store.db import Database
from bot.store.models import Attempt, Drill

from .dbs import WriteLock
from .helpers import Clock, channel, engine_for, user

GOOD = "Rank 2 is a straggler: its compute is longer and everyone waits. Check DCGM clocks; fix the node."


class AttemptsWriteLock:
    """Block writes to `attempts` (reads go on) until released."""

    def __init__(self, db: Database) -> None:
        if db.is_sqlite:
            self._sqlite = WriteLock(db, "attempts")
            return
        with db.engine.connect() as c:
            schema = str(c.execute(text("SELECT current_schema()")).scalar())
        self._engine = create_engine(db.engine.url, connect_args={"options": f"-csearch_path={schema}"})
        self.conn = self._engine.raw_connection()
        self.conn.cursor().execute("LOCK TABLE attempts IN EXCLUSIVE MODE")

    def release(self) -> None:
        if hasattr(self, "_sqlite"):
            self._sqlite.release()
            return
        self.conn.rollback()
        self.conn.close()
        self._engine.dispose()


async def test_an_answer_racing_the_reveal_is_in_it_or_late(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="straggler", duration_seconds=60)
    clock.advance(59)
    names = ["Ana", "Bo", "Cy", "Di"]
    lock = AttemptsWriteLock(database)
    try:
        answers = [asyncio.create_task(e.submit(d.id, user(n), GOOD)) for n in names]
        await asyncio.sleep(0.5)  # every answer was sent before the deadline and now waits to be written
        clock.advance(2)
        reveal = asyncio.create_task(e.reveal(d.id))
        await asyncio.sleep(0.5)
    finally:
        lock.release()
    outcomes = await asyncio.gather(*answers)
    assert await reveal
    assert len(chat.reveals) == 1
    in_reveal = {s.user for s in chat.reveals[0][1].scores}
    with database.session() as s:
        rows = s.execute(select(Attempt.late, Attempt.points, Attempt.user_id)).all()
    assert len(rows) == len(names)
    on_time = [o for o in outcomes if not o.late]
    assert len(in_reveal) == len(on_time) == sum(1 for late, _, _ in rows if not late), (
        f"{len(on_time)} on-time answers stored, {len(in_reveal)} in the reveal"
    )
    assert all(o.status == "late" for o in outcomes if o.late)


async def test_concurrent_revisions_are_all_counted(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="straggler", duration_seconds=600)
    first = await e.submit(d.id, user("Ana"), GOOD)
    assert first.status == "scored"
    n = 5
    lock = AttemptsWriteLock(database)
    try:
        tasks = [asyncio.create_task(e.submit(d.id, user("Ana"), f"{GOOD} (take {i})")) for i in range(n)]
        await asyncio.sleep(0.5)  # all revisions have read the attempt and wait to write
    finally:
        lock.release()
    outcomes = await asyncio.gather(*tasks)
    assert [o.status for o in outcomes] == ["revised"] * n
    with database.session() as s:
        assert s.scalar(select(func.count()).select_from(Attempt)) == 1
        assert s.scalar(select(Attempt.revisions)) == n


async def test_concurrent_first_answers_of_one_user_make_one_attempt(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="straggler", duration_seconds=600)
    n = 4
    lock = AttemptsWriteLock(database)
    try:
        tasks = [asyncio.create_task(e.submit(d.id, user("Ana"), f"{GOOD} ({i})")) for i in range(n)]
        await asyncio.sleep(0.5)
    finally:
        lock.release()
    outcomes = await asyncio.gather(*tasks)  # no NotRecorded from a unique-key collision
    assert sorted(o.status for o in outcomes) == ["revised"] * (n - 1) + ["scored"]
    with database.session() as s:
        assert s.scalar(select(Attempt.revisions)) == n - 1


async def test_a_drill_post_that_fails_once_is_retried(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    chat.fail_next = 1
    d = await e.start(channel(), signature="healthy", duration_seconds=60)
    assert [post.drill_id for _, post in chat.drills] == [d.id]
    clock.advance(61)
    chat.fail_next = 2  # the reveal post fails twice, then goes through within the same call
    assert await e.reveal(d.id)
    assert len(chat.reveals) == 1


async def until_posting(chat: FakeChat, seconds: float = 60.0) -> None:
    """Poll until a chat call is inside its delay (waiting on the claim's commit alone races its return)."""
    deadline = time.monotonic() + seconds
    while not chat.in_flight:
        assert time.monotonic() < deadline, "the reveal never reached the chat"
        await asyncio.sleep(0.02)


async def test_a_reveal_cancelled_in_flight_is_released_and_the_sweep_posts_it(database: Database) -> None:
    """Shutdown and a lost leader lock cancel reveals in flight: the claim must not strand the drill unrevealed."""
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="healthy", duration_seconds=60)
    clock.advance(61)
    chat.delay = 30.0  # the post stays in flight until cancelled, however slow the machine
    reveal = asyncio.create_task(e.reveal(d.id))
    await until_posting(chat)  # the claim has returned and the post is in flight
    reveal.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reveal
    chat.delay = 0.0
    assert await e.reveal_due() == [d.id], "the cancelled reveal gave its claim back"
    assert len(chat.reveals) == 1


async def test_a_reveal_cancelled_while_claiming_gives_the_claim_back(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="healthy", duration_seconds=60)
    clock.advance(61)
    lock = WriteLock(database, "drills")  # the claim's thread blocks on the drill row…
    try:
        reveal = asyncio.create_task(e.reveal(d.id))
        await asyncio.sleep(0.3)
        reveal.cancel()  # …and its caller is cancelled meanwhile
        with pytest.raises(asyncio.CancelledError):
            await reveal
    finally:
        lock.release()  # now the claim commits, with nobody left to post it
    # The claim commits in its thread, then is released: until then the sweep finds the drill taken.
    deadline = time.monotonic() + 30
    while True:
        revealed = await e.reveal_due()
        if revealed or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    assert revealed == [d.id], "the claim was never given back"
    assert len(chat.reveals) == 1


async def test_a_drill_whose_post_failed_is_marked_failed_and_never_revealed(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    chat.fail_next = e.post_attempts
    with pytest.raises(ConnectionError):
        await e.start(channel(), signature="healthy", duration_seconds=60)
    with database.session() as s:
        d = s.scalars(select(Drill)).one()
        assert d.failed_at is not None
        assert d.message_ref is None
        drill_id = d.id
    clock.advance(3600)
    assert await e.reveal_due() == []
    assert not await e.reveal(drill_id)
    assert not await e.reveal(drill_id, force=True)
    assert chat.reveals == []


async def test_a_scheduled_slot_is_started_once_however_often_it_fires(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e1 = engine_for(database, chat, clock)
    e2 = engine_for(Database(engine=database.engine), chat, clock, seed=2)
    slot = "channel:2026-03-02T09:00Z"
    results = await asyncio.gather(
        *(eng.start(channel(), scheduled=True, slot_key=slot) for eng in (e1, e2, e1)), return_exceptions=True
    )
    started = [r for r in results if not isinstance(r, BaseException)]
    assert len(started) == 1, results
    assert all(isinstance(r, AlreadyStarted) for r in results if isinstance(r, BaseException))
    assert len(chat.drills) == 1
    other = await e1.start(channel(), scheduled=True, slot_key="channel:2026-03-03T09:00Z")
    assert other.id != started[0].id  # type: ignore[union-attr]
