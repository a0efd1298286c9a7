"""The drill lifecycle: start → post → answers until the deadline → one reveal → points and boards.

`Drills` orchestrates: every transaction is a store call (bot.store), run off the event loop by one helper, and
so is drawing and grading, so adapters' event loops keep acknowledging within the platforms' 3 seconds.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from types import TracebackType
from typing import TypeVar

from ..analyze.service import analyze_bytes
from ..cleantext import clean_text
from ..grading import Grade, grade
from ..render.cache import RenderCache
from ..scenarios.ids import DIFFICULTIES, SIGNATURE_IDS
from ..scenarios.model import Scenario
from ..store import attempts, traces
from ..store import drills as drill_store
from ..store.channels import ChannelRow
from ..store.db import Database, StoreError
from ..store.drills import DrillKey, DrillSpec
from ..store.traces import StoredTrace
from .calendar import DrillCalendar
from .errors import AlreadyStarted, DrillError, DrillNotFound, EmptyRevision, NotRecorded
from .leaderboard import archive_previous_periods
from .offloop import claim_in_store, in_store, off_loop
from .outcomes import RevealDueReport, StartedDrill, SubmitOutcome
from .policy import points_at
from .ports import AnswerMode, ChannelRef, ChatPort, DrillPost, MessageRef, UserRef
from .retry import with_retries
from .reveal import RevealPoster
from .scenarios import DrillScenarios, drill_png, reveal_png, text_timeline
from .selection import AdaptivePicker
from .synonyms import apply_extra_phrases

__all__ = ["DrillKey", "Drills", "StartedDrill", "SubmitOutcome", "utcnow"]

log = logging.getLogger(__name__)
T = TypeVar("T")


def utcnow() -> datetime:
    return datetime.now(UTC)


class Drills:
    """Starts, grades, reveals: each step a store call, a drawing or a platform call, never a query of its own.
    An async context manager; closing it forgets cached scenarios (the database and chats are closed by their
    owners)."""

    def __init__(
        self,
        db: Database,
        chats: Mapping[str, ChatPort],
        *,
        answer_seconds: int = 120,
        theme: str = "light",
        render_cache: RenderCache | None = None,
        clock: Callable[[], datetime] = utcnow,
        rng: random.Random | None = None,
        post_attempts: int = 3,
        retry_base_seconds: float = 1.0,
    ) -> None:
        self.db = db  # the appeal, hint and prep services build on it until they have store modules of their own
        self.chats = dict(chats)
        self.answer_seconds = answer_seconds
        self.theme = theme
        self.renders = render_cache or RenderCache()
        self.clock = clock
        self.picker = AdaptivePicker(rng or random.Random())
        self.post_attempts = max(1, post_attempts)  # tries per drill or reveal post, backing off 1 s, 2 s, …
        self.retry_base_seconds = retry_base_seconds
        self.on_started: list[Callable[[StartedDrill], Awaitable[None]]] = []  # e.g. schedule the reveal
        self.calendar = DrillCalendar(db, clock)
        self.scenarios = DrillScenarios(db)
        self._reveals = RevealPoster(db, self.chat_for, self.scenario_for, self._draw_reveal, self.grade, self._retried)

    async def __aenter__(self) -> Drills:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Forget the cached trace scenarios; the database and the chats belong to whoever opened them."""
        self.scenarios.clear()

    def chat_for(self, platform: str) -> ChatPort:
        try:
            return self.chats[platform]
        except KeyError as exc:
            raise DrillError(f"no chat adapter for platform {platform!r}") from exc

    async def _retried(self, what: str, call: Callable[[], Awaitable[T]]) -> T:
        return await with_retries(what, call, self.post_attempts, self.retry_base_seconds)

    # -- start ----------------------------------------------------------------------------------------
    async def start(
        self,
        channel: ChannelRef,
        *,
        signature: str | None = None,
        seed: int | None = None,
        difficulty: str | None = None,
        duration_seconds: int | None = None,
        scheduled: bool = False,
        group_id: int | None = None,
        trace_id: int | None = None,
        slot_key: str | None = None,
        solo: bool = False,
        speed_bonus: bool = True,
    ) -> StartedDrill:
        """Create, draw and post a drill. A scheduled drill names its slot: a second start for the same channel
        and slot (another replica firing the same cron job) raises AlreadyStarted and posts nothing. If the post
        fails after retries, the drill is marked failed (never revealed) and the error raised."""
        fields = (signature, seed, difficulty, duration_seconds, scheduled, group_id, trace_id, slot_key, solo)
        spec = _checked(DrillSpec(*fields, speed_bonus=speed_bonus))
        now = self.clock()
        try:
            new = await in_store(self.db, drill_store.create, channel, spec, now, self.answer_seconds, self.picker)
        except drill_store.SlotTaken as exc:
            raise AlreadyStarted(str(spec.slot_key)) from exc
        except drill_store.TraceMissing as exc:
            raise DrillError(f"No stored trace #{spec.trace_id} in this workspace.") from exc
        key = DrillKey(new.signature, new.seed, new.difficulty, None, spec.trace_id)
        try:
            ref = await self._post(channel, new, key, now)
        except BaseException:
            # Nobody saw this drill (or we can't tell): it must never be revealed into the channel.
            await asyncio.shield(in_store(self.db, drill_store.mark_failed, new.id, self.clock()))
            raise
        await in_store(self.db, drill_store.set_message_ref, new.id, ref.message)
        started = StartedDrill(new.id, new.signature, new.seed, new.difficulty, now, new.deadline, ref, spec.trace_id)
        for hook in self.on_started:
            await hook(started)
        if spec.scheduled:
            await self._announce_last_period_winners(channel, new.channel, now)
        return started

    async def _announce_last_period_winners(self, channel: ChannelRef, row: ChannelRow, now: datetime) -> None:
        texts = await in_store(self.db, archive_previous_periods, row.workspace_id, row.id, row.timezone, now)
        for text in texts:
            await self.chat_for(channel.platform).announce(channel, text)

    async def _post(self, channel: ChannelRef, new: drill_store.NewDrill, key: DrillKey, now: datetime) -> MessageRef:
        scenario_ = await off_loop(self.scenario_for, key)
        png = await off_loop(drill_png, self.renders, scenario_, self.theme)
        timeline = await off_loop(text_timeline, scenario_)
        context = scenario_.context
        post = DrillPost(
            new.id,
            context.title,
            tuple(context.lines()),
            png,
            timeline,
            now,
            new.deadline,
            AnswerMode(new.channel.answer_mode or AnswerMode.MODAL),
            new.difficulty,
        )
        chat = self.chat_for(channel.platform)
        return await self._retried(f"post of drill {new.id}", lambda: chat.post_drill(channel, post))

    # -- scenarios ------------------------------------------------------------------------------------
    def scenario_of(self, started: StartedDrill) -> Scenario:
        return self.scenario_for(DrillKey(started.signature, started.seed, started.difficulty, None, started.trace_id))

    def scenario_for(self, key: DrillKey) -> Scenario:
        """The drill's scenario (blocking)."""
        return self.scenarios.for_key(key)

    def _draw_reveal(self, scenario_: Scenario) -> bytes:
        return reveal_png(self.renders, scenario_, self.theme)

    async def store_trace(self, channel: ChannelRef, filename: str, data: bytes) -> StoredTrace:
        """Keep a team's trace for drills: its id and the analysis' top signature. Same bytes, same id."""
        result = await off_loop(analyze_bytes, filename, data, picture=False)
        return await in_store(self.db, traces.store, channel, filename, data, result.signature, self.clock())

    # -- answers --------------------------------------------------------------------------------------
    async def submit(
        self, drill_id: int, user: UserRef, text: str, *, idempotency_key: str | None = None
    ) -> SubmitOutcome:
        """Grade and store an answer. Raises DrillNotFound, EmptyRevision, or NotRecorded when the database fails."""
        now = self.clock()
        text = clean_text(text if isinstance(text, str) else str(text))  # invalid UTF-8, NUL, control characters
        try:
            key = await in_store(self.db, drill_store.find_key, user.platform, user.workspace, drill_id)
            if key is None:
                raise DrillNotFound(drill_id)
            g = await self.grade(key, text)
            credits = attempts.Credits(g.score, g.signature.credit, g.measurement.credit, g.fix.credit, g.named)
            done = await in_store(
                self.db, attempts.record, user, drill_id, text, credits, now, idempotency_key, points_at
            )
        except attempts.DrillMissing as exc:
            raise DrillNotFound(drill_id) from exc
        except attempts.EmptyAnswer as exc:
            raise EmptyRevision(drill_id) from exc
        except StoreError as exc:
            log.warning("submit failed for drill %s: %s", drill_id, type(exc).__name__)
            raise NotRecorded() from exc
        return SubmitOutcome(done.status, g, done.points, done.late, drill_id)

    async def grade(self, key: DrillKey, text: str) -> Grade:
        """The shipped grader, plus the wordings this workspace's reviewers chose to remember (appeals)."""
        scenario_ = await off_loop(self.scenario_for, key)
        g = await off_loop(grade, scenario_, text)
        if key.workspace_id is None:
            return g
        phrases = await in_store(self.db, attempts.workspace_phrases, key.workspace_id, scenario_.signature)
        return apply_extra_phrases(g, text, phrases)

    # -- reveal ---------------------------------------------------------------------------------------
    async def reveal(self, drill_id: int, workspace_id: int | None = None, *, force: bool = False) -> bool:
        """Post the reveal if this caller wins the claim. Exactly once across callers, replicas, restarts."""
        claimed = await claim_in_store(
            self.db, drill_store.claim_reveal, drill_store.release_reveal, drill_id, workspace_id, self.clock(), force
        )
        if claimed is None:
            return False
        return await self._reveals.post(drill_id, claimed)

    async def abandon(self, drill_id: int, channel: ChannelRef) -> bool:
        """Remove a drill nobody answered (solo play interrupted with Ctrl-C): nothing half-written stays."""
        return await in_store(self.db, drill_store.abandon, channel, drill_id)

    async def reveal_due(self) -> list[int]:
        """Reveal every drill whose deadline has passed (the startup sweep); failures are logged and retried later."""
        report = await self.reveal_due_report()
        for drill_id, exc in report.failed:
            log.warning("reveal of drill %s failed: %s", drill_id, exc)
        return report.revealed

    async def reveal_due_report(self) -> RevealDueReport:
        """Reveal every overdue drill; `drill reveal-due` uses the failures for its exit code."""
        report = RevealDueReport()
        for ws_id, drill_id in await in_store(self.db, drill_store.overdue, self.clock()):
            try:
                if await self.reveal(drill_id, ws_id):
                    report.revealed.append(drill_id)
            except Exception as exc:
                report.failed.append((drill_id, exc))
        return report


def _checked(spec: DrillSpec) -> DrillSpec:
    if spec.signature is not None and spec.signature not in SIGNATURE_IDS:
        raise DrillError(f"Unknown signature {spec.signature!r}. Try one of: {', '.join(SIGNATURE_IDS)}")
    if spec.difficulty is not None and spec.difficulty not in DIFFICULTIES:
        raise DrillError(f"Unknown difficulty {spec.difficulty!r}. Try one of: {', '.join(DIFFICULTIES)}")
    if spec.duration_seconds is not None and not 10 <= spec.duration_seconds <= 24 * 3600:
        raise DrillError("Duration must be between 10 seconds and 24 hours.")
    return spec
