"""A person's home (Slack App Home, Discord /trace-me): stats, streak, last answers with their feedback, the
weakest signatures, the settings of the channel they play in, and a per-signature accuracy chart.

Feedback for a drill shows only once it is revealed, so the home never gives an answer away early."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..grading import grade
from ..render.accuracy_chart import accuracy_chart_png
from ..store import repo
from ..store.channel_settings import settings_row
from ..store.models import Attempt, Channel, Drill
from .channel_config import ChannelSettings
from .engine import DrillEngine, DrillKey
from .ports import UserRef
from .stats import UserStats, user_stats

LAST_ANSWERS = 5
CHART_WEEKS = 12


@dataclass(frozen=True, slots=True)
class PastAnswer:
    drill_id: int
    answer: str
    revealed: bool
    signature: str | None  # the true signature, once revealed
    score: float | None  # None until the reveal
    points: int | None
    feedback: str  # the per-part table, or why it isn't shown yet
    late: bool


@dataclass
class Home:
    stats: UserStats | None
    answers: list[PastAnswer] = field(default_factory=list)
    settings: ChannelSettings | None = None
    channel_name: str = ""
    series: dict[str, list[tuple[date, float]]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return self.stats is None or (self.stats.answers == 0 and not self.answers)

    def text(self, default_seconds: int) -> str:
        """The home as plain text (adapters escape it for their markup)."""
        if self.stats is None:
            return "No answers from you yet — press **Submit diagnosis** under a drill."
        st = self.stats
        lines = [
            f"{st.answers} answers · {st.total_points} points · mean {round(100 * st.mean_score)}/100 · "
            f"streak {st.streak} (best {st.best_streak})"
        ]
        if st.weakest:
            lines.append("Weakest: " + ", ".join(st.weakest))
        if self.answers:
            lines.append("Last answers:")
        for a in self.answers:
            head = f"#{a.drill_id}" + (" (late)" if a.late else "")
            if a.revealed:
                head += f" — {a.signature}: {round(100 * (a.score or 0))}/100, {a.points} pts"
            else:
                head += " — awaiting the reveal"
            lines.append(f"• {head}\n  you wrote: {_clip(a.answer, 200)}\n  " + a.feedback.replace("\n", "\n  "))
        if self.settings is not None:
            lines.append(
                f"Settings in #{self.channel_name or 'your channel'}: " + self.settings.summary(default_seconds)
            )
        return "\n".join(lines)


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


class HomeService:
    def __init__(self, engine: DrillEngine) -> None:
        self.engine = engine
        self.db = engine.db

    async def home(self, user: UserRef) -> Home:
        found = await asyncio.to_thread(self._load, user)
        if found is None:
            return Home(None)
        home, keys = found
        graded = []
        for a, key in zip(home.answers, keys, strict=True):
            if a.revealed and key is not None:
                scenario = await asyncio.to_thread(self.engine._scenario_for, key)
                g = await asyncio.to_thread(grade, scenario, a.answer)
                a = PastAnswer(a.drill_id, a.answer, True, a.signature, a.score, a.points, g.feedback(), a.late)
            graded.append(a)
        home.answers = graded
        return home

    async def chart(self, home: Home, name: str = "") -> bytes:
        title = f"{name}: accuracy by signature" if name else ""
        return await asyncio.to_thread(accuracy_chart_png, home.series, title)

    def _load(self, user: UserRef) -> tuple[Home, list[DrillKey | None]] | None:
        with self.db.session() as s:
            ws = repo.find_workspace(s, user.platform, user.workspace)
            u = repo.find_user(s, ws, user.user) if ws else None
            if ws is None or u is None:
                return None
            st = user_stats(s, ws.id, u.id)
            rows = s.execute(
                select(Attempt, Drill)
                .join(Drill, Drill.id == Attempt.drill_id)
                .where(Attempt.workspace_id == ws.id, Attempt.user_id == u.id)
                .order_by(Attempt.submitted_at.desc())
                .limit(LAST_ANSWERS)
            ).all()
            answers, keys = [], []
            for a, d in rows:
                revealed = d.revealed_at is not None
                answers.append(
                    PastAnswer(
                        d.id,
                        a.answer_text,
                        revealed,
                        d.signature if revealed else None,
                        a.score if revealed else None,
                        a.points if revealed else None,
                        "" if revealed else "Feedback arrives with the reveal.",
                        a.late,
                    )
                )
                keys.append(DrillKey(d.signature, d.seed, d.difficulty, None, d.trace_id) if revealed else None)
            home = Home(st, answers)
            if rows:
                channel = s.get(Channel, rows[0][0].channel_id)  # the channel of the latest answer
                if channel is not None:
                    home.channel_name = channel.name or channel.external_id
                    home.settings = ChannelSettings.of(settings_row(channel))
            home.series = _weekly(s, ws.id, u.id, self.engine.clock().date())
            return home, keys


def _weekly(s: Session, workspace_id: int, user_id: int, today: date) -> dict[str, list[tuple[date, float]]]:
    """signature → [(Monday of the week, mean on-time score that week)] over the last CHART_WEEKS weeks, only
    for revealed drills (a score before the reveal would hint at the answer)."""
    start = today - timedelta(days=today.weekday() + 7 * (CHART_WEEKS - 1))
    rows = s.execute(
        select(Attempt.signature, Attempt.submitted_at, Attempt.score)
        .join(Drill, Drill.id == Attempt.drill_id)
        .where(
            Attempt.workspace_id == workspace_id,
            Attempt.user_id == user_id,
            Attempt.late.is_(False),
            Drill.revealed_at.is_not(None),
        )
    ).all()
    sums: dict[str, dict[date, list[float]]] = {}
    for signature, when, score in rows:
        day = when.date()
        if day < start:
            continue
        week = day - timedelta(days=day.weekday())
        sums.setdefault(signature, {}).setdefault(week, []).append(score)
    return {sig: [(w, sum(v) / len(v)) for w, v in sorted(weeks.items())] for sig, weeks in sums.items()}
