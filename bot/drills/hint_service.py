"""Asking for a hint during a drill: the next level, its cost taken off that person's points."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from ..store import repo
from .engine import DrillEngine, DrillKey
from .errors import DrillError, DrillNotFound
from .hint_store import take_next
from .hints import hint_for
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
    def __init__(self, engine: DrillEngine) -> None:
        self.engine = engine

    async def hint(self, drill_id: int, user: UserRef) -> HintGiven:
        """Raises DrillError (unknown drill, drill over, both hints taken) with a message for the person."""
        key, level, cost = await asyncio.to_thread(self._take, drill_id, user)
        scenario = await asyncio.to_thread(self.engine._scenario_for, key)
        return HintGiven(drill_id, level, cost, hint_for(scenario, level).text)

    def _take(self, drill_id: int, user: UserRef) -> tuple[DrillKey, int, int]:
        now = self.engine.clock()
        with self.engine.db.session() as s:
            ws = repo.find_workspace(s, user.platform, user.workspace)
            d = repo.drill(s, ws.id, drill_id) if ws else None
            if ws is None or d is None:
                raise DrillNotFound(drill_id)
            if d.revealed_at is not None or now > d.deadline_at:
                raise DrillError(f"Drill #{drill_id} is over: hints are for open drills.")
            u = repo.user(s, ws, user.user, user.name)
            level, cost = take_next(s, d, u.id, now)
            return DrillKey(d.signature, d.seed, d.difficulty, None, d.trace_id, d.workspace_id), level, cost
