"""The scheduler: cron jobs per channel and study group, a reveal job per drill, and the startup sweep."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC

from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import select

from ..drills.engine import DrillEngine, StartedDrill
from ..store import repo
from ..store.models import Channel, StudyGroup
from . import jobs
from .leader import LeaderLock
from .triggers import channel_trigger, group_trigger

log = logging.getLogger(__name__)


class SharedEngineJobStore(SQLAlchemyJobStore):
    """The job store on the app's own engine. APScheduler disposes its engine on shutdown; this one
    belongs to the app (and holds the leader lock's connection), so it is left alone."""

    def shutdown(self) -> None:
        return None


class DrillScheduler:
    def __init__(self, engine: DrillEngine, *, poll_seconds: float = 5.0) -> None:
        self.engine = engine
        self.lock = LeaderLock(engine.db.engine)
        self.poll_seconds = poll_seconds
        self.scheduler = AsyncIOScheduler(
            jobstores={"default": SharedEngineJobStore(engine=engine.db.engine, tablename="apscheduler_jobs")},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 600},
            timezone=UTC,
        )
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return bool(self.scheduler.running)

    def sync_schedules(self) -> int:
        """(Re)create one cron job per scheduled channel and study group; drop jobs of ones switched off."""
        n = 0
        with self.engine.db.session() as s:
            for ch in s.scalars(select(Channel)):
                n += self._put(f"channel:{ch.id}", channel_trigger(ch), "bot.schedule.jobs:channel_drill", ch.id)
            for g in s.scalars(select(StudyGroup)):
                n += self._put(f"group:{g.id}", group_trigger(g), "bot.schedule.jobs:group_drill", g.id)
        return n

    def _put(self, job_id: str, trigger: object, func: str, arg: int) -> int:
        if trigger is None:
            if self.scheduler.get_job(job_id):
                self.scheduler.remove_job(job_id)
            return 0
        self.scheduler.add_job(func, trigger=trigger, args=[arg], id=job_id, replace_existing=True)
        return 1

    async def schedule_reveal(self, drill: StartedDrill) -> None:
        self.scheduler.add_job("bot.schedule.jobs:reveal", trigger=DateTrigger(run_date=drill.deadline),
                               args=[drill.id], id=f"reveal:{drill.id}", replace_existing=True,
                               misfire_grace_time=None)

    async def sweep(self) -> list[int]:
        """Reveal what came due while no scheduler ran (exactly once), and re-create missing reveal jobs."""
        revealed = await self.engine.reveal_due()
        now = self.engine.clock()
        with self.engine.db.session() as s:
            pending = repo.pending_drills(s, now)
        for drill_id, deadline in pending:
            if self.scheduler.get_job(f"reveal:{drill_id}") is None:
                self.scheduler.add_job("bot.schedule.jobs:reveal", trigger=DateTrigger(run_date=deadline),
                                       args=[drill_id], id=f"reveal:{drill_id}", replace_existing=True,
                                       misfire_grace_time=None)
        return revealed

    async def become_leader(self) -> bool:
        """Start scheduling if this replica can take the lock; True if it now leads."""
        if self.running:
            return True
        if not await asyncio.to_thread(self.lock.try_acquire):
            return False
        jobs.bind(self.engine)
        self.scheduler.start()
        self.sync_schedules()
        await self.sweep()
        # Rulings made with the operator CLI reach the appellant within a minute (issue 17).
        self.scheduler.add_job("bot.schedule.jobs:appeal_notices", trigger=IntervalTrigger(seconds=60),
                               id="appeal-notices", replace_existing=True)
        log.info("this replica runs the scheduler")
        return True

    async def run(self) -> None:
        """Lead if possible; otherwise keep trying, so a replica takes over when the leader dies."""
        while True:
            await self.become_leader()
            await asyncio.sleep(self.poll_seconds)

    def start_background(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self.running:
            self.scheduler.shutdown(wait=False)
        await asyncio.to_thread(self.lock.release)
