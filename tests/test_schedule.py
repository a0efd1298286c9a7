"""The scheduler: cron in local time across DST, one leader per database, the startup sweep, jobs by id."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select, text

from bot.drills.fake import FakeChat
from bot.schedule import jobs
from bot.schedule.leader import LeaderLock
from bot.schedule.scheduler import DrillScheduler
from bot.schedule.triggers import channel_trigger
from bot.store import repo
from bot.store.db import Database
from bot.store.models import Channel, Drill

from .dbs import pg_url
from .helpers import Clock, channel, engine_for


def _fires(tz: str, start: datetime, n: int) -> list[datetime]:
    ch = Channel(
        workspace_id=1,
        external_id="C",
        timezone=tz,
        schedule_hour=9,
        schedule_minute=30,
        weekdays="mon-sun",
        enabled=True,
    )
    trigger = channel_trigger(ch)
    assert trigger is not None
    out, prev = [], None
    now = start
    for _ in range(n):
        nxt = trigger.get_next_fire_time(prev, now)
        assert nxt is not None
        out.append(nxt.astimezone(UTC))
        prev, now = nxt, nxt + timedelta(seconds=1)
    return out


def test_cron_fires_at_local_time_across_dst_in_two_timezones() -> None:
    ny = _fires("America/New_York", datetime(2026, 3, 7, 0, 0, tzinfo=UTC), 3)
    assert [t.hour for t in ny] == [14, 13, 13], "09:30 EST is 14:30 UTC, 09:30 EDT is 13:30 UTC"
    assert all(t.minute == 30 for t in ny)
    berlin = _fires("Europe/Berlin", datetime(2026, 3, 28, 0, 0, tzinfo=UTC), 3)
    assert [t.hour for t in berlin] == [8, 7, 7], "09:30 CET is 08:30 UTC, 09:30 CEST is 07:30 UTC"
    autumn = _fires("America/New_York", datetime(2026, 10, 31, 0, 0, tzinfo=UTC), 3)
    assert [t.hour for t in autumn] == [13, 14, 14]


def test_disabled_or_unscheduled_channels_have_no_trigger() -> None:
    assert channel_trigger(Channel(schedule_hour=None, enabled=True, timezone="UTC", weekdays="mon")) is None
    assert (
        channel_trigger(Channel(schedule_hour=9, schedule_minute=0, enabled=False, timezone="UTC", weekdays="mon"))
        is None
    )


async def test_only_one_scheduler_leads_and_another_takes_over(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    a = DrillScheduler(engine_for(database, chat, clock), database.engine)
    b = DrillScheduler(engine_for(Database(engine=database.engine), chat, clock), database.engine)
    try:
        first = await a.become_leader()
        second = await b.become_leader()
        if database.is_sqlite:
            assert first and second, "SQLite runs as one process: the lock is not needed (documented)"
            return
        assert (first, second) == (True, False)
        await a.stop()  # the leader dies: its connection closes and the advisory lock frees
        assert await b.become_leader()
    finally:
        await a.stop()
        await b.stop()
        jobs.unbind()


def test_advisory_lock_is_exclusive_on_postgres(database: Database) -> None:
    one, two = LeaderLock(database.engine), LeaderLock(database.engine)
    try:
        assert one.try_acquire()
        assert two.try_acquire() is database.is_sqlite
    finally:
        one.release()
        two.release()


async def test_startup_sweep_reveals_overdue_drills_once_and_rebuilds_reveal_jobs(database: Database) -> None:
    chat, clock = FakeChat(), Clock(datetime.now(UTC))  # reveal jobs run on real time
    e = engine_for(database, chat, clock)
    overdue = await e.start(channel(), signature="straggler", duration_seconds=60)
    clock.advance(120)
    pending = await e.start(channel(), signature="healthy", duration_seconds=3600)
    sched = DrillScheduler(e, database.engine)
    try:
        assert await sched.become_leader()
        assert [post.drill_id for _, post in chat.reveals] == [overdue.id]
        assert sched.scheduler.get_job(f"reveal:{pending.id}") is not None
        await sched.sweep()
        assert len(chat.reveals) == 1
    finally:
        await sched.stop()
        jobs.unbind()


async def test_cron_jobs_and_reveal_jobs_are_persisted_by_plain_id(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    with database.session() as s:
        ws = repo.workspace(s, "slack", "T1", "", clock())
        ch = repo.channel(s, ws, "C1", "general")
        ch.schedule_hour, ch.timezone, ch.weekdays = 10, "Asia/Tokyo", "mon-fri"
        ch_id = ch.id
    sched = DrillScheduler(e, database.engine)
    e.on_started.append(sched.schedule_reveal)
    try:
        assert await sched.become_leader()
        job = sched.scheduler.get_job(f"channel:{ch_id}")
        assert job is not None
        assert job.args == (ch_id,)
        assert job.func_ref == "bot.schedule.jobs:channel_drill"
        d = await e.start(channel(), signature="launch_bound")
        reveal_job = sched.scheduler.get_job(f"reveal:{d.id}")
        assert reveal_job is not None
        assert reveal_job.misfire_grace_time is None
        with database.engine.connect() as conn:
            # The channel's cron and the drill's reveal (besides the standing appeal-notices sweep, issue 17).
            assert (
                conn.execute(text("SELECT count(*) FROM apscheduler_jobs WHERE id != 'appeal-notices'")).scalar() == 2
            )
            assert sched.scheduler.get_job("appeal-notices") is not None
    finally:
        await sched.stop()
        jobs.unbind()


async def test_scheduled_job_posts_a_drill_and_respects_skip_dates(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    with database.session() as s:
        ws = repo.workspace(s, "slack", "T1", "", clock())
        ch = repo.channel(s, ws, "C1", "general")
        ch.schedule_hour = 9
        ch.skip_dates = [clock().date().isoformat()]
        ch_id = ch.id
    jobs.bind(e)
    try:
        await jobs.channel_drill(ch_id)
        assert chat.drills == [], "a skip date posts nothing"
        clock.advance(24 * 3600)
        await jobs.channel_drill(ch_id)
        assert len(chat.drills) == 1
        with database.session() as s:
            d = s.scalars(select(Drill)).one()
            assert d.scheduled
        clock.advance(3600)
        await jobs.reveal(d.id)
        assert len(chat.reveals) == 1
        with database.session() as s:
            assert s.scalar(select(func.count()).select_from(Drill).where(Drill.revealed_at.is_not(None))) == 1
    finally:
        jobs.unbind()


def test_the_lock_key_is_per_deployment(database: Database) -> None:
    from bot.schedule.leader import lock_key

    prod, staging, prod2 = (LeaderLock(database.engine, name) for name in ("prod", "staging", "prod"))
    default = LeaderLock(database.engine)
    try:
        assert prod.try_acquire()
        assert staging.try_acquire(), "another deployment on the same database leads on its own"
        assert prod2.try_acquire() is database.is_sqlite
        if not database.is_sqlite:
            with database.engine.connect() as c:
                schema = str(c.execute(text("SELECT current_schema()")).scalar())
            assert default.key == lock_key(schema), "by default the deployment is the schema"
            assert len({prod.key, staging.key, default.key}) == 3
    finally:
        for lock in (prod, staging, prod2, default):
            lock.release()


async def test_the_leader_stops_at_its_next_poll_when_its_lock_connection_dies(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    a = DrillScheduler(engine_for(database, chat, clock), database.engine, poll_seconds=0.05)
    b = DrillScheduler(engine_for(Database(engine=database.engine), chat, clock), database.engine, poll_seconds=0.05)
    try:
        assert await a.become_leader()
        assert await a.poll()
        if database.is_sqlite:
            return  # one process, always the leader (documented)
        pid = a.lock.backend_pid
        with database.engine.connect() as c:
            assert c.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar()
        assert not await a.poll()
        assert not a.running
        assert a.lost_leadership == 1
        assert await b.poll(), "the lock is free again"
        assert not await a.poll()
    finally:
        await a.stop()
        await b.stop()
        jobs.unbind()


async def test_a_hung_leader_is_replaced_once_it_is_stale(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    a = DrillScheduler(engine_for(database, chat, clock), database.engine)
    b = DrillScheduler(engine_for(Database(engine=database.engine), chat, clock), database.engine, stale_seconds=0.5)
    try:
        assert await a.become_leader()
        if database.is_sqlite:
            return
        assert await a.poll()  # a poll is the leader's proof of life
        assert not await b.poll(), "a fresh leader is left alone"
        assert a.running
        await asyncio.sleep(0.8)  # the leader "hangs": no query on its lock connection
        assert not await b.poll()  # b terminates the stale leader's lock session…
        assert await b.poll()  # …and leads on its next poll
        assert not await a.poll(), "the old leader wakes up, finds its lock gone and stops"
        assert not a.running
    finally:
        await a.stop()
        await b.stop()
        jobs.unbind()


async def test_the_leader_sweeps_periodically_so_a_failed_reveal_post_is_retried(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel(), signature="healthy", duration_seconds=60)
    clock.advance(61)
    chat.fail_next = e.post_attempts  # the first sweep's reveal fails, retries included
    sched = DrillScheduler(e, database.engine, poll_seconds=0.05, sweep_seconds=0.3)
    sched.start_background()
    try:
        for _ in range(100):
            if chat.reveals:
                break
            await asyncio.sleep(0.05)
        assert [post.drill_id for _, post in chat.reveals] == [d.id]
        assert sched.running
    finally:
        await sched.stop()
        jobs.unbind()


async def test_a_schedule_changed_elsewhere_is_synced_by_the_leader(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    sched = DrillScheduler(engine_for(database, chat, clock), database.engine, poll_seconds=0.05, sweep_seconds=0.2)
    try:
        assert await sched.become_leader()
        with database.session() as s:  # what a follower's `/trace schedule` writes
            ws = repo.workspace(s, "slack", "T1", "", clock())
            ch = repo.channel(s, ws, "C1", "general")
            ch.schedule_hour, ch.schedule_minute = 9, 30
            ch_id = ch.id
        assert sched.scheduler.get_job(f"channel:{ch_id}") is None
        await asyncio.sleep(0.25)
        await sched.poll()
        await sched.chores_done()
        job = sched.scheduler.get_job(f"channel:{ch_id}")
        assert job is not None
        before = job.next_run_time
        await asyncio.sleep(0.25)
        await sched.poll()
        await sched.chores_done()
        after = sched.scheduler.get_job(f"channel:{ch_id}")
        assert after is not None and after.next_run_time == before, "an unchanged job is left alone"
    finally:
        await sched.stop()
        jobs.unbind()


def test_the_lock_connection_has_tcp_keepalives_on_both_ends(database: Database) -> None:

    from bot.store.db import normalize_url

    if database.is_sqlite:
        assert LeaderLock(database.engine).try_acquire()
        return
    db = Database(normalize_url(pg_url()))  # the app's own engine factory
    lock = LeaderLock(db.engine, "keepalive-probe")
    try:
        assert lock.try_acquire()
        conn = lock._conn
        assert conn is not None
        server = {k: conn.execute(text(f"SHOW tcp_keepalives_{k}")).scalar() for k in ("idle", "interval", "count")}
        assert server == {"idle": "10", "interval": "5", "count": "3"}, "the server drops a vanished leader"
        client = conn.connection.dbapi_connection.info.get_parameters()  # type: ignore[union-attr]
        assert client.get("keepalives") == "1" and client.get("keepalives_idle") == "10", client
    finally:
        lock.release()
        db.dispose()
