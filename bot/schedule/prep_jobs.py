"""Scheduler jobs for interview prep (math questions, interview invitations, math reveals), by import path with
plain ids like bot.schedule.jobs; the running services are bound here by the composition root."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.date import DateTrigger

from ..drills.ports import ChannelRef
from ..prep.schedules import all_schedules
from ..store.models import Channel, StudyGroup, Workspace
from ..store.prep_models import PrepSchedule

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


def _target(schedule_id: int) -> tuple[ChannelRef, PrepSchedule, str] | None:
    with services().math.db.session() as s:
        row = s.get(PrepSchedule, schedule_id)
        ch = s.get(Channel, row.channel_id) if row else None
        ws = s.get(Workspace, row.workspace_id) if row else None
        if row is None or ch is None or ws is None or not ch.enabled:
            return None
        group = s.get(StudyGroup, row.group_id) if row.group_id else None
        s.expunge(row)
        return ChannelRef(ws.platform, ws.external_id, ch.external_id, ch.name), row, group.name if group else ""


async def math_question(schedule_id: int) -> None:
    found = _target(schedule_id)
    if found is not None:
        ref, row, _ = found
        await services().math.start(ref, scheduled=True, group_id=row.group_id)


async def interview_invite(schedule_id: int) -> None:
    found = _target(schedule_id)
    if found is not None:
        ref, row, group = found
        await services().interview.invite(ref, rounds=row.rounds, group=group, group_id=row.group_id)


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
    for qid, deadline in prep.math.pending():
        if scheduler.get_job(f"math-reveal:{qid}") is None:
            add_reveal(scheduler, qid, deadline)
    return done
