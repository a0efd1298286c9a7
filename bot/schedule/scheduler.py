"""The scheduler: cron jobs per channel and study group, a reveal job per drill, and the leader's poll.

Every replica runs `run()`: a poll every `poll_seconds`. A follower tries to take the lock (and replaces a
hung leader). The leader proves its lock on every poll and stops scheduling when it is lost; every
`sweep_seconds` it re-syncs the cron jobs from the database (so `/trace schedule` handled on any replica
takes effect) and sweeps drills: overdue ones are revealed (a failed reveal post is retried this way) and
pending ones without a reveal job get one (so a drill started on any replica is revealed on time). Hourly it
runs the maintenance hooks (purging old delivery keys, expired OAuth states).

A follower that starts a drill also keeps a local timer for its reveal: the claim is atomic, so whichever of
that timer and the leader's job comes first reveals it, once.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import Engine

from ..drills.calendar import ChannelSchedule, GroupSchedule
from ..drills.engine import Drills
from ..drills.outcomes import StartedDrill
from . import jobs, prep_jobs
from .leader import LeaderLock
from .triggers import channel_trigger, group_trigger

log = logging.getLogger(__name__)
Hook = Callable[[], Awaitable[Any]]


class SharedEngineJobStore(SQLAlchemyJobStore):  # type: ignore[misc]  # APScheduler 3 ships no type hints
    """The job store on the app's own engine. APScheduler disposes its engine on shutdown; this one
    belongs to the app (and holds the leader lock's connection), so it is left alone."""

    def shutdown(self) -> None:
        return None


class DrillScheduler:
    def __init__(
        self,
        drills: Drills,
        database: Engine,
        *,
        poll_seconds: float = 5.0,
        sweep_seconds: float = 15.0,
        maintenance_seconds: float = 3600.0,
        deployment: str | None = None,
        stale_seconds: float = 30.0,
    ) -> None:
        """`database`: the SQLAlchemy engine the job store and the leader lock use (the app's own, so the lock
        lives and dies with the app's connections); the composition root passes it in."""
        self.drills = drills
        self.database = database
        self.lock = LeaderLock(database, deployment, stale_seconds=stale_seconds)
        self.poll_seconds = poll_seconds
        self.sweep_seconds = sweep_seconds
        self.maintenance_seconds = maintenance_seconds
        self.maintenance: list[Hook] = [drills.calendar.purge_delivery_keys]
        self.scheduler = self._new_scheduler()
        self._task: asyncio.Task[None] | None = None
        self._timers: set[asyncio.Task[Any]] = set()  # followers' reveal timers, background re-syncs
        self._syncing = threading.Lock()  # one re-sync at a time: each reads then rewrites the job store
        self._next_sweep = 0.0
        self._next_maintenance = 0.0
        self.lost_leadership = 0  # times the lock was found lost (for operators and tests)
        self._leading = False
        self._chores: asyncio.Task[None] | None = None  # the running sweep / maintenance, off the poll's path
        self.prep: Any = None  # interview-prep services (bot.prep.root.attach), scheduled alongside drills

    def _new_scheduler(self) -> AsyncIOScheduler:
        return AsyncIOScheduler(
            jobstores={"default": SharedEngineJobStore(engine=self.database, tablename="apscheduler_jobs")},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": jobs.MISFIRE_GRACE_SECONDS},
            timezone=UTC,
        )

    @property
    def running(self) -> bool:
        """True while this replica leads (its scheduler runs jobs)."""
        return self._leading

    async def sync_schedules(self) -> int:
        """Make the cron jobs match the database: one per scheduled channel and study group. A job is only
        rewritten when its trigger changed, so a re-sync never moves a fire time that is about to come."""
        channels, groups = await self.drills.calendar.schedules()
        return await asyncio.to_thread(self._apply_locked, channels, groups)  # the job store writes SQL

    def _apply_locked(self, channels: list[ChannelSchedule], groups: list[GroupSchedule]) -> int:
        with self._syncing:
            return self._apply_schedules(channels, groups)

    def _apply_schedules(self, channels: list[ChannelSchedule], groups: list[GroupSchedule]) -> int:
        n = sum(
            self._put(f"channel:{c.id}", channel_trigger(c), "bot.schedule.jobs:channel_drill", c.id) for c in channels
        )
        n += sum(self._put(f"group:{g.id}", group_trigger(g), "bot.schedule.jobs:group_drill", g.id) for g in groups)
        if self.prep is not None:
            n += prep_jobs.sync(self.scheduler, self.prep)
        return n

    def resync(self) -> None:
        """A schedule changed on this replica: re-sync now if it leads (in the background, off the caller's
        path); on a follower, the leader's next re-sync (≤ sweep_seconds) picks it up."""
        if self.running:
            task = asyncio.get_running_loop().create_task(self.sync_schedules())
            self._timers.add(task)
            task.add_done_callback(self._resync_done)

    def _resync_done(self, task: asyncio.Task[int]) -> None:
        self._timers.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.warning("schedule re-sync failed: %s", type(exc).__name__, exc_info=exc)

    def _put(self, job_id: str, trigger: Any, func: str, arg: int) -> int:
        existing = self.scheduler.get_job(job_id)
        if trigger is None:
            if existing is not None:
                self.scheduler.remove_job(job_id)
            return 0
        if existing is None or repr(existing.trigger) != repr(trigger):
            self.scheduler.add_job(func, trigger=trigger, args=[arg], id=job_id, replace_existing=True)
        return 1

    def _add_reveal_job(self, drill_id: int, deadline: datetime) -> None:
        self.scheduler.add_job(
            "bot.schedule.jobs:reveal",
            trigger=DateTrigger(run_date=deadline),
            args=[drill_id],
            id=f"reveal:{drill_id}",
            replace_existing=True,
            misfire_grace_time=None,
        )

    async def schedule_reveal(self, drill: StartedDrill) -> None:
        if self.running:
            self._add_reveal_job(drill.id, drill.deadline)
            return
        # A follower's scheduler holds no jobs: a local timer reveals on time; if this replica dies first,
        # the leader's sweep has already given the drill a reveal job.
        task = asyncio.get_running_loop().create_task(self._reveal_at(drill.id, drill.deadline))
        self._timers.add(task)
        task.add_done_callback(self._timers.discard)

    async def _reveal_at(self, drill_id: int, deadline: datetime) -> None:
        await asyncio.sleep(max(0.0, (deadline - datetime.now(UTC)).total_seconds()))
        try:
            await self.drills.reveal(drill_id)
        except Exception as exc:  # the leader's sweep retries
            log.warning("reveal of drill %s failed: %s", drill_id, type(exc).__name__)

    async def sweep(self) -> list[int]:
        """Reveal what is overdue (exactly once) and give every pending drill a reveal job."""
        revealed = await self.drills.reveal_due()
        if self.prep is not None:
            await prep_jobs.sweep(self.scheduler, self.prep)
        await asyncio.to_thread(self._add_missing_reveal_jobs, await self.drills.calendar.pending())
        return revealed

    def _add_missing_reveal_jobs(self, pending: list[tuple[int, datetime]]) -> None:
        for drill_id, deadline in pending:
            if self.scheduler.get_job(f"reveal:{drill_id}") is None:
                self._add_reveal_job(drill_id, deadline)

    async def become_leader(self) -> bool:
        """Start scheduling if this replica can take the lock; True if it now leads. A follower that finds
        the leader hung terminates its lock session, and takes the lock on a later poll."""
        if self.running:
            return True
        if not await asyncio.to_thread(self.lock.try_acquire):
            await asyncio.to_thread(self.lock.replace_if_hung)
            return False
        jobs.bind(self.drills)
        self.scheduler = self._new_scheduler()
        if self.prep is not None:
            prep_jobs.bind(self.prep)
        self.scheduler.start()
        self._leading = True
        # Rulings made with the operator CLI reach the appellant within a minute (issue 17).
        await asyncio.to_thread(
            self.scheduler.add_job,
            "bot.schedule.jobs:appeal_notices",
            trigger=IntervalTrigger(seconds=60),
            id="appeal-notices",
            replace_existing=True,
        )
        log.info("this replica runs the scheduler")
        self._next_sweep = self._next_maintenance = 0.0
        await self._housekeeping()
        return True

    def _halt(self) -> None:
        """Stop running jobs now. AsyncIOScheduler.shutdown only queues the stop on the loop, and a due job
        could fire before it; pausing first takes effect at once."""
        if not self._leading:
            return
        self._leading = False
        if self._chores is not None:
            self._chores.cancel()
        self.scheduler.pause()
        self.scheduler.shutdown(wait=False)

    async def _housekeeping(self) -> None:
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + self.sweep_seconds
            try:
                await self.sync_schedules()
                await self.sweep()
            except Exception as exc:  # the next sweep tries again
                log.warning("sweep failed: %s", type(exc).__name__)
        if now >= self._next_maintenance:
            self._next_maintenance = now + self.maintenance_seconds
            for hook in self.maintenance:
                try:
                    await hook()
                except Exception as exc:
                    log.warning("maintenance failed: %s", type(exc).__name__)

    async def poll(self) -> bool:
        """One poll: the leader checks its lock (stopping if lost) and does its periodic work; a follower
        tries to lead. True if this replica leads afterwards."""
        if self.running:
            if not await asyncio.to_thread(self.lock.check):
                self.lost_leadership += 1
                self._halt()
                log.warning("leader lock lost: this replica stopped scheduling")
                return False
            # The sweep can take long (reveal posts retried with backoff): it runs beside the polls, so
            # the lock is still proven every poll.
            if self._chores is None or self._chores.done():
                self._chores = asyncio.get_running_loop().create_task(self._housekeeping())
            return True
        return await self.become_leader()

    async def chores_done(self) -> None:
        """Wait for the sweep or maintenance a poll started (tests, shutdown)."""
        if self._chores is not None:
            await asyncio.gather(self._chores, return_exceptions=True)

    async def run(self) -> None:
        """Poll forever; one failed poll (database down) is logged and the next one tries again."""
        while True:
            try:
                await self.poll()
            except Exception as exc:
                log.warning("scheduler poll failed: %s", type(exc).__name__)
            await asyncio.sleep(self.poll_seconds)

    def start_background(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run())

    async def __aenter__(self) -> DrillScheduler:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        for task in list(self._timers):
            task.cancel()
        self._halt()
        await asyncio.to_thread(self.lock.release)
