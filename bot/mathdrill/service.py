"""Mental math in chat: post a 30-second question, take answers (first one counts), reveal once with the worked
arithmetic, keep its own points and board. The transactions are bot.store.math_questions', run in threads; the
reveal is claimed atomically."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from ..drills.errors import DrillError
from ..drills.offloop import claim_in_store, in_store
from ..drills.periods import PERIODS, period_bounds
from ..drills.ports import ChannelRef, MessageRef, UserRef
from ..store import math_questions as store
from ..store.db import Database
from ..store.math_questions import (
    BoardRow,
    ClaimedReveal,
    Judged,
    NewQuestion,
    PendingReveal,
    QuestionRow,
    Stored,
)
from .answers import MAX_ANSWER_CHARS, UnreadableAnswer, check
from .ports import MathChat, MathPost, MathRevealPost, MathScore
from .questions import ANSWER_SECONDS, KINDS, Question, question

log = logging.getLogger(__name__)
SEED_RANGE = 2**31
BASE_POINTS = 100
SPEED_POINTS = 50  # a right answer at once earns 150, at the deadline 100


def utcnow() -> datetime:
    return datetime.now(UTC)


def math_points(correct: bool, seconds: float, limit: float, late: bool) -> int:
    if not correct or late:
        return 0
    left = max(0.0, min(1.0, 1 - seconds / limit))
    return BASE_POINTS + round(SPEED_POINTS * left)


@dataclass(frozen=True, slots=True)
class MathStarted:
    id: int
    kind: str
    seed: int
    deadline: datetime
    message: MessageRef


class MathStatus(StrEnum):
    SCORED = "scored"
    LATE = "late"  # judged, but after the deadline or the reveal: no points
    DUPLICATE = "duplicate"  # the first answer counts
    UNREADABLE = "unreadable"  # no number in the reply: nothing stored, the person can try again


@dataclass(frozen=True, slots=True)
class MathOutcome:
    status: MathStatus
    question_id: int
    correct: bool = False
    points: int = 0
    seconds: float = 0.0
    explanation: str = ""  # late: the worked answer; unreadable: why the reply could not be read

    @property
    def text(self) -> str:
        """What to tell the person, privately."""
        if self.status is MathStatus.UNREADABLE:
            return f"{self.explanation} — nothing was recorded, try again."
        if self.status is MathStatus.DUPLICATE:
            return f"You already answered math #{self.question_id}; the first answer counts."
        if self.status is MathStatus.LATE:
            verdict = "right" if self.correct else "not right"
            return f"Too late to score, but {verdict}: {self.explanation}"
        return f"Recorded for math #{self.question_id} ({self.seconds:.0f} s). The answer comes with the reveal."


@dataclass(frozen=True, slots=True)
class MathBoard:
    period: str
    rows: tuple[BoardRow, ...]  # best first

    def text(self) -> str:
        title = f"Math board — {'all time' if self.period == 'all' else 'this ' + self.period}"
        if not self.rows:
            return f"{title}\nNo math answers here yet."
        lines = [f"{i}. {r.user} — {r.points} pts ({r.right}/{r.answered} right)" for i, r in enumerate(self.rows, 1)]
        return "\n".join([title, *lines])


class MathService:
    def __init__(
        self,
        db: Database,
        chats: MutableMapping[str, MathChat] | None = None,
        *,
        seconds: int = ANSWER_SECONDS,
        clock: Callable[[], datetime] = utcnow,
        rng: random.Random | None = None,
    ) -> None:
        self.db = db
        self.chats: MutableMapping[str, MathChat] = chats if chats is not None else {}
        self.seconds = seconds
        self.clock = clock
        self.rng = rng or random.Random()
        self.on_started: list[Callable[[MathStarted], Awaitable[None]]] = []  # e.g. schedule the reveal

    def chat_for(self, platform: str) -> MathChat:
        try:
            return self.chats[platform]
        except KeyError as exc:
            raise DrillError(f"no chat adapter for platform {platform!r}") from exc

    # -- start ----------------------------------------------------------------------------------------
    async def start(
        self,
        channel: ChannelRef,
        *,
        kind: str | None = None,
        seed: int | None = None,
        scheduled: bool = False,
        group_id: int | None = None,
    ) -> MathStarted:
        if kind is not None and kind not in KINDS:
            raise DrillError(f"Unknown math kind {kind!r}. Try one of: {', '.join(KINDS)}")
        seed = self.rng.randrange(SEED_RANGE) if seed is None else seed
        q = question(kind, seed)
        now = self.clock()
        deadline = now + timedelta(seconds=self.seconds)
        new = NewQuestion(q.kind, q.seed, scheduled, group_id, now, deadline)
        qid = await in_store(self.db, store.create_question, channel, new)
        chat = self.chat_for(channel.platform)
        try:
            ref = await chat.post_math(channel, MathPost(qid, q, now, deadline))
        except Exception:
            await in_store(self.db, store.delete_question, qid)  # nothing half-posted stays behind
            raise
        await in_store(self.db, store.set_message_ref, qid, ref.message)
        started = MathStarted(qid, q.kind, seed, deadline, ref)
        for hook in self.on_started:
            await hook(started)
        return started

    # -- answers --------------------------------------------------------------------------------------
    async def answer(self, question_id: int, user: UserRef, text: str) -> MathOutcome:
        """Judge and store a reply. An unreadable reply is not stored: the person can try again."""
        now = self.clock()
        text = (text if isinstance(text, str) else str(text))[:MAX_ANSWER_CHARS]
        row = await self._question(user, question_id)
        try:
            result = check(question(row.kind, row.seed), text)
        except UnreadableAnswer as exc:
            return MathOutcome(MathStatus.UNREADABLE, question_id, explanation=str(exc))
        seconds = max(0.0, (now - row.posted_at).total_seconds())
        late = now > row.deadline_at or row.revealed_at is not None
        limit = max(1.0, (row.deadline_at - row.posted_at).total_seconds())
        pts = math_points(result.correct, seconds, limit, late)
        judged = Judged(text, result.value, result.correct, pts, seconds, late)
        stored = await in_store(self.db, store.store_answer, row.id, user, judged, now)
        if stored is Stored.NO_QUESTION:
            raise DrillError(f"No math question #{row.id} here.")
        if stored is Stored.DUPLICATE:
            return MathOutcome(MathStatus.DUPLICATE, question_id)
        if late:
            return MathOutcome(MathStatus.LATE, question_id, result.correct, 0, seconds, result.explanation)
        return MathOutcome(MathStatus.SCORED, question_id, result.correct, pts, seconds)

    async def question_for(self, user: UserRef, question_id: int) -> Question:
        """The question behind an id, only within the person's own workspace."""
        row = await self._question(user, question_id)
        return question(row.kind, row.seed)

    async def _question(self, user: UserRef, question_id: int) -> QuestionRow:
        row = await in_store(self.db, store.find_question, user.platform, user.workspace, question_id)
        if row is None:
            raise DrillError(f"No math question #{question_id} here.")
        return row

    # -- reveal ---------------------------------------------------------------------------------------
    async def reveal(self, question_id: int, *, force: bool = False) -> bool:
        """Post the reveal if this caller wins the claim: exactly once across callers and replicas."""
        claimed = await claim_in_store(
            self.db, store.claim_reveal, store.release_reveal, question_id, self.clock(), force=force
        )
        if claimed is None:
            return False
        try:
            ref = await self._post_reveal(claimed)
        except BaseException:  # cancelled too: the next sweep must retry it
            await asyncio.shield(in_store(self.db, store.release_reveal, question_id))
            raise
        await in_store(self.db, store.set_reveal_ref, question_id, ref.message)
        return True

    async def _post_reveal(self, claimed: ClaimedReveal) -> MessageRef:
        place, row = claimed.channel, claimed.question
        channel = ChannelRef(place.platform, place.workspace, place.channel, place.name)
        scores = tuple(MathScore(a.user, a.value, a.correct, a.points, a.seconds) for a in claimed.answers)
        post = MathRevealPost(row.id, question(row.kind, row.seed), scores)
        return await self.chat_for(channel.platform).post_math_reveal(MessageRef(channel, claimed.message_ref), post)

    async def reveal_due(self) -> list[int]:
        due = await in_store(self.db, store.overdue_questions, self.clock())
        done = []
        for qid in due:
            try:
                if await self.reveal(qid):
                    done.append(qid)
            except Exception as exc:
                log.warning("math reveal %s failed: %s", qid, type(exc).__name__)
        return done

    async def pending(self) -> list[PendingReveal]:
        """Questions not revealed yet, with their deadlines (the scheduler re-creates their reveal jobs)."""
        return await in_store(self.db, store.pending_reveals)

    # -- the board ------------------------------------------------------------------------------------
    async def board(self, channel: ChannelRef, period: str = "week") -> MathBoard:
        if period not in PERIODS:
            raise DrillError(f"The period is one of: {', '.join(PERIODS)}.")
        now = self.clock()

        def window(timezone: str) -> tuple[datetime, datetime]:
            return period_bounds(period, now, timezone)

        return MathBoard(period, tuple(await in_store(self.db, store.board, channel, window)))

    async def board_text(self, channel: ChannelRef, period: str = "week") -> str:
        return (await self.board(channel, period)).text()
