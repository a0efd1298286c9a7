"""The drill lifecycle: start → post → answers until the deadline → one reveal → points and boards.

Database work runs in worker threads (sync SQLAlchemy) and so does drawing, so adapters' event loops keep
acknowledging within the platforms' 3 seconds.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from ..cleantext import clean_text
from ..grading import Grade, grade
from ..render.cache import RenderCache
from ..scenarios.ids import DIFFICULTIES, SIGNATURE_IDS
from ..scenarios.model import Scenario
from ..store import repo
from ..store.db import Database, begin_write
from ..store.hints import hints_cost
from ..store.models import Attempt, Channel, DeliveryKey, Drill, TraceUpload, User, Workspace
from ..store.synonyms import extra_phrases
from . import scenarios as sc
from .errors import AlreadyStarted, ChatUnreachable, DrillError, DrillNotFound, EmptyRevision, NotRecorded
from .policy import points
from .ports import ChannelRef, ChatPort, DrillPost, FeedbackPort, MessageRef, RevealPost, ScoreLine, UserRef
from .selection import choose_seed, choose_signature, daily_seed
from .synonyms import apply_extra_phrases

log = logging.getLogger(__name__)


def is_transient(exc: BaseException) -> bool:
    """Worth retrying: the network failed (OSError covers connection resets and timeouts), or the adapter marked
    the platform's answer as temporary (`transient = True`: rate limits, 5xx). A refusal the platform won't
    change its mind about (not in the channel, missing permission, bad request) is not retried."""
    return isinstance(exc, OSError) or bool(getattr(exc, "transient", False))


T = TypeVar("T")
MAX_ANSWER_STORED = 20_000  # characters kept in the database; the grader reads at most 4,000


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class StartedDrill:
    id: int
    signature: str  # for the operator and the tests; never shown before the reveal
    seed: int
    difficulty: str
    posted_at: datetime
    deadline: datetime
    message: MessageRef | None
    trace_id: int | None = None


@dataclass(frozen=True, slots=True)
class ChannelInfo:
    id: int
    workspace_id: int
    timezone: str
    answer_mode: str


@dataclass(frozen=True, slots=True)
class DrillKey:
    signature: str
    seed: int
    difficulty: str
    message_ref: str | None = None
    trace_id: int | None = None  # a drill made from a team's own trace
    workspace_id: int | None = None  # for the workspace's remembered wordings


@dataclass(frozen=True, slots=True)
class SubmitOutcome:
    status: str  # scored | revised | late | duplicate
    grade: Grade
    points: int
    late: bool
    drill_id: int

    def private_text(self) -> str:
        head = {
            "scored": "Recorded",
            "revised": "Revised — your latest answer counts",
            "late": "Too late to score (graded for you privately)",
            "duplicate": "Already recorded",
        }[self.status]
        return f"{head}. Drill #{self.drill_id}: feedback arrives with the reveal."


class DrillEngine:
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
        self.db = db
        self.chats = dict(chats)
        self.answer_seconds = answer_seconds
        self.theme = theme
        self.renders = render_cache or RenderCache()
        self.clock = clock
        self.rng = rng or random.Random()
        self.post_attempts = max(1, post_attempts)  # tries per drill or reveal post, backing off 1 s, 2 s, …
        self.retry_base_seconds = retry_base_seconds
        self.on_started: list[Callable[[StartedDrill], Awaitable[None]]] = []  # e.g. schedule the reveal
        self._trace_scenarios: dict[int, Scenario] = {}

    def chat_for(self, platform: str) -> ChatPort:
        try:
            return self.chats[platform]
        except KeyError as exc:
            raise DrillError(f"no chat adapter for platform {platform!r}") from exc

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
        """Create, draw and post a drill. A scheduled drill names its slot: a second start for the same
        channel and slot (another replica firing the same cron job) raises AlreadyStarted and posts nothing.
        If the post fails after retries, the drill is marked failed (never revealed) and the error raised."""
        if signature is not None and signature not in SIGNATURE_IDS:
            raise DrillError(f"Unknown signature {signature!r}. Try one of: {', '.join(SIGNATURE_IDS)}")
        if difficulty is not None and difficulty not in DIFFICULTIES:
            raise DrillError(f"Unknown difficulty {difficulty!r}. Try one of: {', '.join(DIFFICULTIES)}")
        if duration_seconds is not None and not 10 <= duration_seconds <= 24 * 3600:
            raise DrillError("Duration must be between 10 seconds and 24 hours.")
        now = self.clock()
        drill_id, ch_data, sig, seed_, diff, deadline = await asyncio.to_thread(
            self._create_drill,
            channel,
            signature,
            seed,
            difficulty,
            duration_seconds,
            scheduled,
            group_id,
            now,
            trace_id,
            slot_key,
            solo,
            speed_bonus,
        )
        try:
            scenario = await asyncio.to_thread(self._scenario_for, DrillKey(sig, seed_, diff, None, trace_id))
            png = await asyncio.to_thread(sc.drill_png, self.renders, scenario, self.theme)
            timeline = await asyncio.to_thread(sc.text_timeline, scenario)
            post = DrillPost(
                drill_id,
                scenario.context.title,
                tuple(scenario.context.lines()),
                png,
                timeline,
                now,
                deadline,
                ch_data.answer_mode,
                diff,
            )
            chat = self.chat_for(channel.platform)
            ref = await self._with_retries(f"post of drill {drill_id}", lambda: chat.post_drill(channel, post))
        except BaseException:
            # Nobody saw this drill (or we can't tell): it must never be revealed into the channel.
            await asyncio.shield(asyncio.to_thread(self._mark_failed, drill_id, self.clock()))
            raise
        await asyncio.to_thread(self._store_message_ref, drill_id, ref.message)
        started = StartedDrill(drill_id, sig, seed_, diff, now, deadline, ref, trace_id)
        for hook in self.on_started:
            await hook(started)
        if scheduled:
            await self._announce_last_period_winners(channel, ch_data.workspace_id, ch_data.id, ch_data.timezone, now)
        return started

    def _create_drill(
        self,
        channel: ChannelRef,
        signature: str | None,
        seed: int | None,
        difficulty: str | None,
        duration: int | None,
        scheduled: bool,
        group_id: int | None,
        now: datetime,
        trace_id: int | None = None,
        slot_key: str | None = None,
        solo: bool = False,
        speed_bonus: bool = True,
    ) -> tuple[int, ChannelInfo, str, int, str, datetime]:
        try:
            return self._insert_drill(
                channel,
                signature,
                seed,
                difficulty,
                duration,
                scheduled,
                group_id,
                now,
                trace_id,
                slot_key,
                solo,
                speed_bonus,
            )
        except IntegrityError as exc:
            if slot_key is not None and self._slot_taken(channel, slot_key):
                raise AlreadyStarted(slot_key) from exc
            raise

    def _slot_taken(self, channel: ChannelRef, slot_key: str) -> bool:
        with self.db.session() as s:
            ws = repo.find_workspace(s, channel.platform, channel.workspace)
            ch = repo.find_channel(s, ws, channel.channel) if ws else None
            return (
                ch is not None
                and s.scalar(select(Drill.id).where(Drill.channel_id == ch.id, Drill.slot_key == slot_key)) is not None
            )

    def _insert_drill(
        self,
        channel: ChannelRef,
        signature: str | None,
        seed: int | None,
        difficulty: str | None,
        duration: int | None,
        scheduled: bool,
        group_id: int | None,
        now: datetime,
        trace_id: int | None,
        slot_key: str | None,
        solo: bool,
        speed_bonus: bool,
    ) -> tuple[int, ChannelInfo, str, int, str, datetime]:
        with self.db.session() as s:
            ws = repo.workspace(s, channel.platform, channel.workspace, "", now)
            ch = repo.channel(s, ws, channel.channel, channel.name)
            if trace_id is not None:
                upload = s.get(TraceUpload, trace_id)
                if upload is None or upload.workspace_id != ws.id:
                    raise DrillError(f"No stored trace #{trace_id} in this workspace.")
                # The answer is the analysis' top finding; the seed field keeps the trace's id (negative,
                # so it never collides with a generator seed).
                signature, seed, difficulty = upload.signature, -trace_id, "real"
            recent = repo.recent_drills(s, ws.id, ch.id, 20)
            if signature is None:
                since = now - timedelta(days=60)
                accuracy = repo.accuracy_by_signature(
                    s, ws.id, since, channel_id=None if group_id else ch.id, group_id=group_id
                )
                signature = choose_signature(self.rng, [d.signature for d in recent], accuracy, ch.signature_mix)
            assert signature is not None
            diff = difficulty or ch.difficulty
            if seed is None:
                used = repo.used_seeds(s, ws.id, ch.id)
                today = daily_seed(now.date(), signature, diff) if scheduled else None
                seed = today if today is not None and today not in used else choose_seed(self.rng, used)
            seconds = duration or ch.answer_seconds or self.answer_seconds
            deadline = now + timedelta(seconds=seconds)
            d = Drill(
                workspace_id=ws.id,
                channel_id=ch.id,
                group_id=group_id,
                signature=signature,
                seed=seed,
                difficulty=diff,
                scheduled=scheduled,
                posted_at=now,
                deadline_at=deadline,
                trace_id=trace_id,
                slot_key=slot_key,
                solo=solo,
                speed_bonus=speed_bonus,
            )
            s.add(d)
            s.flush()
            return d.id, ChannelInfo(ch.id, ws.id, ch.timezone, ch.answer_mode), signature, seed, diff, deadline

    def scenario_of(self, started: StartedDrill) -> Scenario:
        return self._scenario_for(DrillKey(started.signature, started.seed, started.difficulty, None, started.trace_id))

    def _scenario_for(self, key: DrillKey) -> Scenario:
        """The drill's scenario: generated from (signature, seed, difficulty), or read from a stored trace."""
        if key.trace_id is None:
            return sc.scenario(key.signature, key.seed, key.difficulty)
        cached = self._trace_scenarios.get(key.trace_id)
        if cached is None:
            from ..analyze.service import scenario_from_bytes

            with self.db.session() as s:
                upload = s.get(TraceUpload, key.trace_id)
                if upload is None:
                    raise DrillError("The trace behind this drill was deleted.")
                filename, data = upload.filename, upload.data
            cached = scenario_from_bytes(filename, data)
            self._trace_scenarios[key.trace_id] = cached
        return cached

    async def store_trace(self, channel: ChannelRef, filename: str, data: bytes) -> tuple[int, str]:
        """Keep a team's trace for drills; returns (trace id, the analysis' top signature). Same bytes, same id."""
        from ..analyze.service import analyze_bytes

        result = await asyncio.to_thread(analyze_bytes, filename, data, picture=False)
        return await asyncio.to_thread(self._store_trace, channel, filename, data, result.signature)

    def _store_trace(self, channel: ChannelRef, filename: str, data: bytes, signature: str) -> tuple[int, str]:
        digest = hashlib.sha256(data).hexdigest()
        with self.db.session() as s:
            ws = repo.workspace(s, channel.platform, channel.workspace, "", self.clock())
            found = s.scalars(
                select(TraceUpload).where(TraceUpload.workspace_id == ws.id, TraceUpload.sha256 == digest)
            ).first()
            if found is not None:
                return found.id, found.signature
            upload = TraceUpload(
                workspace_id=ws.id,
                sha256=digest,
                filename=filename[:200],
                signature=signature,
                data=data,
                created_at=self.clock(),
            )
            s.add(upload)
            s.flush()
            return upload.id, signature

    async def _with_retries(self, what: str, call: Callable[[], Awaitable[T]]) -> T:
        """A platform call, retried with exponential backoff: a blip in Slack or Discord costs seconds, not
        the drill. Errors the platform won't change its mind about (not installed, bad request) aren't retried."""
        delay = self.retry_base_seconds
        for attempt in range(1, self.post_attempts + 1):
            try:
                return await call()
            except Exception as exc:
                if attempt == self.post_attempts or not is_transient(exc):
                    raise
                log.warning("%s failed (%s); retry %d in %.1f s", what, type(exc).__name__, attempt, delay)
                await asyncio.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    def _mark_failed(self, drill_id: int, now: datetime) -> None:
        with self.db.session() as s:
            d = s.get(Drill, drill_id)
            if d is not None and d.message_ref is None:
                d.failed_at = now

    def _store_message_ref(self, drill_id: int, message: str) -> None:
        with self.db.session() as s:
            d = s.get(Drill, drill_id)
            if d is not None:
                d.message_ref = message

    # -- answers --------------------------------------------------------------------------------------
    async def submit(
        self, drill_id: int, user: UserRef, text: str, *, idempotency_key: str | None = None
    ) -> SubmitOutcome:
        """Grade and store an answer. Raises DrillNotFound, or NotRecorded when the database fails."""
        now = self.clock()
        text = clean_text(text if isinstance(text, str) else str(text))  # invalid UTF-8, NUL, control characters
        try:
            meta = await asyncio.to_thread(self._drill_meta, user, drill_id)
            scenario = await asyncio.to_thread(self._scenario_for, meta)
            g = await asyncio.to_thread(self.grade_in_workspace, scenario, text, meta.workspace_id)
            return await asyncio.to_thread(self._store_attempt, drill_id, user, text, g, now, idempotency_key)
        except DrillError:
            raise
        except SQLAlchemyError as exc:
            log.warning("submit failed for drill %s: %s", drill_id, type(exc).__name__)
            raise NotRecorded() from exc

    def _drill_meta(self, user: UserRef, drill_id: int) -> DrillKey:
        with self.db.session() as s:
            ws = repo.find_workspace(s, user.platform, user.workspace)
            d = repo.drill(s, ws.id, drill_id) if ws else None
            if d is None:
                raise DrillNotFound(drill_id)
            return DrillKey(d.signature, d.seed, d.difficulty, None, d.trace_id, d.workspace_id)

    def grade_in_workspace(self, scenario: Scenario, text: str, workspace_id: int | None) -> Grade:
        """The shipped grader, plus the wordings this workspace's reviewers chose to remember (appeals)."""
        g = grade(scenario, text)
        if workspace_id is None:
            return g
        with self.db.session() as s:
            phrases = extra_phrases(s, workspace_id, scenario.signature)
        return apply_extra_phrases(g, text, phrases)

    def _store_attempt(
        self, drill_id: int, user: UserRef, text: str, g: Grade, now: datetime, key: str | None
    ) -> SubmitOutcome:
        # The drill row stays locked until this attempt commits, and the reveal's claim updates that row: so an
        # attempt is either committed before the claim reads the answers (in the reveal) or sees the claim (late).
        with self.db.session(immediate=True) as s:
            ws = repo.find_workspace(s, user.platform, user.workspace)
            d = repo.drill(s, ws.id, drill_id, for_update=True) if ws else None
            if ws is None or d is None:
                raise DrillNotFound(drill_id)
            if key is not None:
                begin_write(s)  # the savepoint must not be the outermost transaction (SQLite)
                try:
                    with s.begin_nested():
                        s.add(DeliveryKey(key=key[:200], workspace_id=ws.id, created_at=now))
                except IntegrityError:
                    return SubmitOutcome("duplicate", g, 0, False, drill_id)
            u = repo.user(s, ws, user.user, user.name)
            late = now > d.deadline_at or d.revealed_at is not None
            hint_cost = 0 if late else hints_cost(s, d.id, u.id)
            pts = max(0, points(g.score, d.posted_at, d.deadline_at, now, late, d.speed_bonus) - hint_cost)
            existing = s.scalars(
                select(Attempt).where(Attempt.drill_id == d.id, Attempt.user_id == u.id, Attempt.late.is_(late))
            ).first()
            if existing is not None and not text.strip():
                raise EmptyRevision(drill_id)  # a stray empty submit must not replace a scored answer with 0
            if existing is None:
                existing = Attempt(
                    drill_id=d.id,
                    user_id=u.id,
                    workspace_id=ws.id,
                    channel_id=d.channel_id,
                    group_id=d.group_id,
                    signature=d.signature,
                    late=late,
                    revisions=0,
                )
                s.add(existing)
                status = "late" if late else "scored"
            else:
                existing.revisions = Attempt.revisions + 1  # in SQL: concurrent revisions all count
                status = "late" if late else "revised"
            existing.answer_text = text[:MAX_ANSWER_STORED]
            existing.signature_credit = g.signature.credit
            existing.measurement_credit = g.measurement.credit
            existing.fix_credit = g.fix.credit
            existing.named = g.named
            existing.score = g.score
            existing.points = pts
            existing.hint_cost = hint_cost
            existing.submitted_at = now
            return SubmitOutcome(status, g, pts, late, drill_id)

    # -- reveal ---------------------------------------------------------------------------------------
    async def reveal(self, drill_id: int, workspace_id: int | None = None, *, force: bool = False) -> bool:
        """Post the reveal if this caller wins the claim. Exactly once across callers, replicas, restarts."""
        now = self.clock()
        claimed = await asyncio.to_thread(self._claim, drill_id, workspace_id, now, force)
        if claimed is None:
            return False
        drill, channel_ref, scores, answers = claimed
        try:
            scenario = await asyncio.to_thread(self._scenario_for, drill)
            png = await asyncio.to_thread(sc.reveal_png, self.renders, scenario, self.theme)
            post = RevealPost(
                drill_id,
                scenario.signature,
                scenario.context.title,
                scenario.reveal.headline,
                scenario.reveal.as_text(),
                png,
                tuple(scores),
            )
            chat = self.chat_for(channel_ref.platform)
            ref = await self._with_retries(
                f"reveal of drill {drill_id}",
                lambda: chat.post_reveal(MessageRef(channel_ref, drill.message_ref or ""), post),
            )
        except ChatUnreachable as exc:  # keep the claim: a retry would fail the same way, forever
            log.warning("reveal of drill %s cannot be delivered: %s", drill_id, exc)
            return False
        except Exception:
            await asyncio.to_thread(self._release, drill_id)
            raise
        await asyncio.to_thread(self._store_reveal_ref, drill_id, ref.message)
        for user_ref, text in answers:
            g = await asyncio.to_thread(self.grade_in_workspace, scenario, text, drill.workspace_id)
            feedback = f"Drill #{drill_id}: your grade\n{g.feedback()}"
            try:
                if isinstance(chat, FeedbackPort):  # the adapter can attach "Appeal this grade"
                    await chat.send_grade_feedback(channel_ref, user_ref, drill_id, feedback, thread=ref)
                else:
                    await chat.send_private(channel_ref, user_ref, feedback, thread=ref)
            except Exception as exc:  # one unreachable user must not stop the others' feedback
                log.warning("private feedback failed: %s", type(exc).__name__)
        return True

    def _claim(
        self, drill_id: int, workspace_id: int | None, now: datetime, force: bool
    ) -> tuple[DrillKey, ChannelRef, list[ScoreLine], list[tuple[UserRef, str]]] | None:
        with self.db.session(immediate=True) as s:
            d = s.get(Drill, drill_id)
            if d is None or (workspace_id is not None and d.workspace_id != workspace_id):
                return None
            if not repo.claim_reveal(s, d.workspace_id, drill_id, now, force=force):
                return None
            ws = s.get(Workspace, d.workspace_id)
            ch = s.get(Channel, d.channel_id)
            assert ws is not None
            assert ch is not None
            rows = s.execute(
                select(Attempt, User)
                .join(User, User.id == Attempt.user_id)
                .where(Attempt.drill_id == drill_id)
                .order_by(Attempt.late, Attempt.points.desc(), Attempt.submitted_at)
            ).all()
            scores = [
                ScoreLine(u.display_name or u.external_id, a.score, a.points, a.named, a.hint_cost > 0)
                for a, u in rows
                if not a.late
            ]
            answers = [
                (UserRef(ws.platform, ws.external_id, u.external_id, u.display_name), a.answer_text) for a, u in rows
            ]
            channel_ref = ChannelRef(ws.platform, ws.external_id, ch.external_id, ch.name)
            key = DrillKey(d.signature, d.seed, d.difficulty, d.message_ref, d.trace_id, d.workspace_id)
            return key, channel_ref, scores, answers

    def _release(self, drill_id: int) -> None:
        with self.db.session() as s:
            repo.release_reveal(s, drill_id)

    def _store_reveal_ref(self, drill_id: int, message: str) -> None:
        with self.db.session() as s:
            d = s.get(Drill, drill_id)
            if d is not None:
                d.reveal_ref = message

    async def abandon(self, drill_id: int, channel: ChannelRef) -> bool:
        """Remove a drill nobody answered (solo play interrupted with Ctrl-C): nothing half-written stays."""
        return await asyncio.to_thread(self._abandon, drill_id, channel)

    def _abandon(self, drill_id: int, channel: ChannelRef) -> bool:
        with self.db.session() as s:
            ws = repo.find_workspace(s, channel.platform, channel.workspace)
            d = repo.drill(s, ws.id, drill_id) if ws else None
            if d is None or d.revealed_at is not None:
                return False
            if s.scalar(select(Attempt.id).where(Attempt.drill_id == drill_id).limit(1)) is not None:
                return False
            s.delete(d)
            return True

    async def reveal_due(self) -> list[int]:
        """Reveal every drill whose deadline has passed (the startup sweep); failures are logged and retried later."""
        revealed, failed = await self.reveal_due_report()
        for drill_id, exc in failed:
            log.warning("reveal of drill %s failed: %s", drill_id, exc)
        return revealed

    async def reveal_due_report(self) -> tuple[list[int], list[tuple[int, Exception]]]:
        """Reveal every overdue drill: (revealed ids, [(id, error)] of those that failed). `drill reveal-due` uses
        the failures for its exit code."""
        now = self.clock()
        due = await asyncio.to_thread(self._overdue, now)
        revealed: list[int] = []
        failed: list[tuple[int, Exception]] = []
        for ws_id, drill_id in due:
            try:
                if await self.reveal(drill_id, ws_id):
                    revealed.append(drill_id)
            except Exception as exc:
                failed.append((drill_id, exc))
        return revealed, failed

    def _overdue(self, now: datetime) -> list[tuple[int, int]]:
        with self.db.session() as s:
            return repo.overdue_drills(s, now)

    async def _announce_last_period_winners(
        self, channel: ChannelRef, workspace_id: int, channel_id: int, tz: str, now: datetime
    ) -> None:
        from .leaderboard import archive_previous_periods

        texts = await asyncio.to_thread(archive_previous_periods, self.db, workspace_id, channel_id, tz, now)
        chat = self.chat_for(channel.platform)
        for text in texts:
            await chat.announce(channel, text)
