"""The scheduler: cron in local time across DST, one leader per database, the startup sweep, jobs by id."""

from __future__ import annotations

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

from .helpers import Clock, channel, engine_for


def _fires(tz: str, start: datetime, n: int) -> list[datetime]:
    ch = Channel(workspace_id=1, external_id="C", timezone=tz, schedule_hour=9, schedule_minute=30,
                 weekdays="mon-sun", enabled=True)
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
    assert channel_trigger(Channel(schedule_hour=9, schedule_minute=0, enabled=False, timezone="UTC",
                                   weekdays="mon")) is None


async def test_only_one_scheduler_leads_and_another_takes_over(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    a = DrillScheduler(engine_for(database, chat, clock))
    b = DrillScheduler(engine_for(Database(engine=database.engine), chat, clock))
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
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    overdue = await e.start(channel(), signature="straggler", duration_seconds=60)
    clock.advance(120)
    pending = await e.start(channel(), signature="healthy", duration_seconds=3600)
    sched = DrillScheduler(e)
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
    sched = DrillScheduler(e)
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
            assert conn.execute(text("SELECT count(*) FROM apscheduler_jobs WHERE id != 'appeal-notices'")
                                ).scalar() == 2
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
