"""Scheduler jobs for interview prep (math questions, interview invitations, math reveals), by import path with
plain ids like bot.schedule.jobs; the running services are bound here by the composition root (`attach`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.date import DateTrigger

from ..mathdrill.service import MathStarted
from ..prep.root import PrepServices
from ..prep.schedules import all_schedules, schedule_target


class PendingReveal(Protocol):
    """A math question still to be revealed (the math service's pending list)."""

    @property
    def question_id(self) -> int: ...
    @property
    def deadline_at(self) -> datetime: ...


class Scheduling(Protocol):
    """What attach needs of bot.schedule.scheduler.DrillScheduler (which imports this module)."""

    scheduler: BaseScheduler
    prep: Any

    @property
    def running(self) -> bool: ...

    def resync(self) -> None: ...


log = logging.getLogger(__name__)
_bound: dict[str, PrepServices] = {}
PREFIX = "prep:"


def attach(prep: PrepServices, scheduler: Scheduling) -> None:
    """Math reveals at their deadlines, prep schedules as cron jobs, and the sweep — on the leader only."""

    async def reveal_later(started: MathStarted) -> None:
        if scheduler.running:
            add_reveal(scheduler.scheduler, started.id, started.deadline)

    prep.math.on_started.append(reveal_later)
    prep.on_schedule_change = scheduler.resync  # off the loop, on the leader
    scheduler.prep = prep


def bind(prep: PrepServices) -> None:
    _bound["prep"] = prep


def unbind() -> None:
    _bound.clear()


def services() -> PrepServices:
    try:
        return _bound["prep"]
    except KeyError as exc:
        raise RuntimeError("no interview-prep services bound; start the app through bot.app") from exc


async def math_question(schedule_id: int) -> None:
    prep = services()
    target = await schedule_target(prep.math.db, schedule_id)
    if target is not None:
        await prep.math.start(target.channel, scheduled=True, group_id=target.group_id)


async def interview_invite(schedule_id: int) -> None:
    prep = services()
    target = await schedule_target(prep.math.db, schedule_id)
    if target is not None:
        await prep.interview.invite(target.channel, rounds=target.rounds, group=target.group, group_id=target.group_id)


async def math_reveal(question_id: int) -> None:
    await services().math.reveal(question_id)


def sync(scheduler: BaseScheduler, prep: PrepServices) -> int:
    """One cron job per prep schedule; jobs of deleted schedules go."""
    wanted = {}
    for row in all_schedules(prep.math.db):
        func = "math_question" if row.kind == "math" else "interview_invite"
        wanted[f"{PREFIX}{row.id}"] = (f"bot.schedule.prep_jobs:{func}", row.trigger, row.id)
    for job in scheduler.get_jobs():
        if job.id.startswith(PREFIX) and job.id not in wanted:
            scheduler.remove_job(job.id)
    for job_id, (func, trigger, arg) in wanted.items():
        scheduler.add_job(func, trigger=trigger, args=[arg], id=job_id, replace_existing=True)
    return len(wanted)


def add_reveal(scheduler: BaseScheduler, question_id: int, deadline: datetime) -> None:
    scheduler.add_job(
        "bot.schedule.prep_jobs:math_reveal",
        trigger=DateTrigger(run_date=deadline),
        args=[question_id],
        id=f"math-reveal:{question_id}",
        replace_existing=True,
        misfire_grace_time=None,
    )


async def sweep(scheduler: BaseScheduler, prep: PrepServices) -> list[int]:
    """Reveal math questions that came due while no scheduler ran; re-create missing reveal jobs."""
    done = await prep.math.reveal_due()
    await asyncio.to_thread(_add_missing_reveals, scheduler, await prep.math.pending())  # the job store is SQL
    return done


def _add_missing_reveals(scheduler: BaseScheduler, pending: Sequence[PendingReveal]) -> None:
    for p in pending:
        if scheduler.get_job(f"math-reveal:{p.question_id}") is None:
            add_reveal(scheduler, p.question_id, p.deadline_at)
