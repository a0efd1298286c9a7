"""Scheduler jobs for interview prep (math questions, interview invitations, math reveals), by import path with
plain ids like bot.schedule.jobs; the running services are bound here by the composition root."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.date import DateTrigger

from ..prep.schedules import all_schedules
from . import jobs

if TYPE_CHECKING:
    from ..prep.root import PrepServices

log = logging.getLogger(__name__)
_bound: dict[str, PrepServices] = {}
PREFIX = "prep:"


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
    found = await jobs.engine().calendar.prep_target(schedule_id)
    if found is not None:
        await services().math.start(found.channel, scheduled=True, group_id=found.group_id)


async def interview_invite(schedule_id: int) -> None:
    found = await jobs.engine().calendar.prep_target(schedule_id)
    if found is not None:
        await services().interview.invite(
            found.channel, rounds=found.rounds, group=found.group_name, group_id=found.group_id
        )


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


def add_reveal(scheduler: BaseScheduler, question_id: int, deadline: object) -> None:
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
    for qid, deadline in await asyncio.to_thread(prep.math.pending):  # a store read: off the loop
        if scheduler.get_job(f"math-reveal:{qid}") is None:
            add_reveal(scheduler, qid, deadline)
    return done
