"""A person's home (Slack App Home, Discord /trace-me): stats, streak, last answers with their feedback, the
weakest signatures, the settings of the channel they play in, and a per-signature accuracy chart.

Feedback for a drill shows only once it is revealed, so the home never gives an answer away early."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from ..grading import grade
from ..render.accuracy_chart import accuracy_chart_png
from ..scenarios.ids import SIGNATURE_IDS
from ..store import boards
from ..store.boards import History, PastAttempt
from ..store.drills import DrillKey
from .channel_config import ChannelSettings
from .engine import Drills
from .offloop import in_store, off_loop
from .ports import UserRef
from .stats import UserStats

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
    def __init__(self, engine: Drills) -> None:
        self.engine = engine
        self.db = engine.db

    async def home(self, user: UserRef) -> Home:
        today = self.engine.clock().date()
        since = datetime.combine(chart_start(today), datetime.min.time(), UTC)
        found = await in_store(
            self.db, boards.history, user.platform, user.workspace, user.user, LAST_ANSWERS, since, SIGNATURE_IDS
        )
        if found is None:
            return Home(None)
        answers = [await self._past(a) for a in found.attempts]
        settings = ChannelSettings.of(found.channel) if found.channel is not None else None
        return Home(found.stats, answers, settings, found.channel_name, weekly(found))

    async def _past(self, a: PastAttempt) -> PastAnswer:
        """Feedback and score only once the drill is revealed: the home never gives an answer away early."""
        if not a.revealed:
            return PastAnswer(
                a.drill_id, a.answer, False, None, None, None, "Feedback arrives with the reveal.", a.late
            )
        scenario = await off_loop(
            self.engine.scenario_for, DrillKey(a.signature, a.seed, a.difficulty, None, a.trace_id)
        )
        g = await off_loop(grade, scenario, a.answer)
        return PastAnswer(a.drill_id, a.answer, True, a.signature, a.score, a.points, g.feedback(), a.late)

    async def chart(self, home: Home, name: str = "") -> bytes:
        title = f"{name}: accuracy by signature" if name else ""
        return await off_loop(accuracy_chart_png, home.series, title)


def chart_start(today: date) -> date:
    """The Monday CHART_WEEKS - 1 weeks before this week's."""
    return today - timedelta(days=today.weekday() + 7 * (CHART_WEEKS - 1))


def weekly(found: History) -> dict[str, list[tuple[date, float]]]:
    """signature → [(Monday of the week, mean on-time score that week)] over the chart's weeks, only for
    revealed drills (a score before the reveal would hint at the answer)."""
    sums: dict[str, dict[date, list[float]]] = {}
    for signature, when, score in found.scores:
        day = when.date()
        week = day - timedelta(days=day.weekday())
        sums.setdefault(signature, {}).setdefault(week, []).append(score)
    return {sig: [(w, sum(v) / len(v)) for w, v in sorted(weeks.items())] for sig, weeks in sums.items()}
