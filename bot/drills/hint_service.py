"""Asking for a hint during a drill: the next level, its cost taken off that person's points."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from ..store.hints import HintRefusal, HintRefused, HintRequest, TakenHint, take_hint
from .engine import DrillKey, Drills
from .errors import DrillError, DrillNotFound
from .hints import HINT_COSTS, attempt_points, hint_for
from .ports import UserRef


@dataclass(frozen=True, slots=True)
class HintGiven:
    drill_id: int
    level: int
    cost: int
    text: str

    def as_dict(self) -> dict[str, object]:
        return {"hint": self.text, "level": self.level, "cost": self.cost}

    def private_text(self) -> str:
        return f"Hint {self.level} for drill #{self.drill_id} (−{self.cost} points): {self.text}"


class HintService:
    def __init__(self, engine: Drills) -> None:
        self.engine = engine

    async def hint(self, drill_id: int, user: UserRef) -> HintGiven:
        """Raises DrillError (unknown drill, drill over, both hints taken) with a message for the person."""
        request = HintRequest(user.platform, user.workspace, user.user, user.name, drill_id)
        try:
            taken = await asyncio.to_thread(
                take_hint, self.engine.db, request, self.engine.clock(), HINT_COSTS, attempt_points
            )
        except HintRefused as exc:
            raise _refusal_error(exc.refusal, drill_id) from exc
        scenario = await asyncio.to_thread(self.engine.scenario_for, _key(taken))
        return HintGiven(drill_id, taken.level, taken.cost, hint_for(scenario, taken.level).text)


def _key(taken: TakenHint) -> DrillKey:
    return DrillKey(taken.signature, taken.seed, taken.difficulty, None, taken.trace_id, taken.workspace_id)


def _refusal_error(refusal: HintRefusal, drill_id: int) -> DrillError:
    if refusal is HintRefusal.NO_DRILL:
        return DrillNotFound(drill_id)
    return DrillError(
        {
            HintRefusal.DRILL_OVER: f"Drill #{drill_id} is over: hints are for open drills.",
            HintRefusal.NO_MORE: f"No more hints on drill #{drill_id}: you have had both.",
            HintRefusal.JUST_GIVEN: "That hint was just given to you; ask again for the next one.",
        }[refusal]
    )
