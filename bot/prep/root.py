"""Building the interview-prep services next to the drill engine (called by the composition root)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..drills.engine import DrillEngine
from ..interview.service import InterviewService
from ..mathdrill.service import MathService, MathStarted

if TYPE_CHECKING:
    from ..schedule.scheduler import DrillScheduler


@dataclass
class PrepServices:
    math: MathService
    interview: InterviewService
    on_schedule_change: object = None  # a no-argument callable, set when a scheduler runs

    def schedules_changed(self) -> None:
        if callable(self.on_schedule_change):
            self.on_schedule_change()


def build_prep(engine: DrillEngine) -> PrepServices:
    math = MathService(engine.db, clock=engine.clock)
    interview = InterviewService(engine.db, renders=engine.renders, theme=engine.theme, clock=engine.clock)
    return PrepServices(math, interview)


def attach(prep: PrepServices, scheduler: DrillScheduler) -> None:
    """Math reveals at their deadlines, prep schedules as cron jobs, and the sweep — on the leader only."""
    from ..schedule import prep_jobs

    async def reveal_later(started: MathStarted) -> None:
        if scheduler.running:
            prep_jobs.add_reveal(scheduler.scheduler, started.id, started.deadline)

    def resync() -> None:
        if scheduler.running:
            prep_jobs.sync(scheduler.scheduler, prep)

    prep.math.on_started.append(reveal_later)
    prep.on_schedule_change = resync
    scheduler.prep = prep
