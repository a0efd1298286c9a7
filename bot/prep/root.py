"""Building the interview-prep services next to the drill engine (called by the composition root; the scheduler
side is bot.schedule.prep_jobs.attach)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..drills.engine import Drills
from ..interview.service import InterviewService
from ..mathdrill.service import MathService


@dataclass
class PrepServices:
    math: MathService
    interview: InterviewService
    on_schedule_change: Callable[[], None] | None = None  # set when a scheduler runs

    def schedules_changed(self) -> None:
        if self.on_schedule_change is not None:
            self.on_schedule_change()


def build_prep(engine: Drills) -> PrepServices:
    math = MathService(engine.db, clock=engine.clock)
    interview = InterviewService(engine.db, renders=engine.renders, theme=engine.theme, clock=engine.clock)
    return PrepServices(math, interview)
