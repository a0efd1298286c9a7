"""Mental math in chat: post a 30-second question, take answers (first one counts), reveal once with the worked
arithmetic, keep its own points and board. Database work runs in threads; the reveal is claimed atomically."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from ..drills.errors import DrillError
from ..drills.periods import PERIODS, period_bounds
from ..drills.ports import ChannelRef, MessageRef, UserRef
from ..store import repo
from ..store.db import Database
from ..store.models import Channel, User, Workspace
from ..store.prep_models import MathAnswer, MathQuestion
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


@dataclass(frozen=True, slots=True)
class MathOutcome:
    status: str  # scored | late | duplicate | unreadable
    correct: bool
    points: int
    text: str  # what to tell the person, privately


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
        qid = await asyncio.to_thread(self._create, channel, q, now, deadline, scheduled, group_id)
        chat = self.chat_for(channel.platform)
        try:
            ref = await chat.post_math(channel, MathPost(qid, q, now, deadline))
        except Exception:
            await asyncio.to_thread(self._delete, qid)  # nothing half-posted stays behind
            raise
        await asyncio.to_thread(self._set_ref, qid, "message_ref", ref.message)
        started = MathStarted(qid, q.kind, seed, deadline, ref)
        for hook in self.on_started:
            await hook(started)
        return started

    def _create(
        self, channel: ChannelRef, q: Question, now: datetime, deadline: datetime, scheduled: bool, group_id: int | None
    ) -> int:
        with self.db.session() as s:
            ws = repo.workspace(s, channel.platform, channel.workspace, "", now)
            ch = repo.channel(s, ws, channel.channel, channel.name)
            row = MathQuestion(
                workspace_id=ws.id,
                channel_id=ch.id,
                group_id=group_id,
                kind=q.kind,
                seed=q.seed,
                scheduled=scheduled,
                posted_at=now,
                deadline_at=deadline,
            )
            s.add(row)
            s.flush()
            return row.id

    def _delete(self, qid: int) -> None:
        with self.db.session() as s:
            row = s.get(MathQuestion, qid)
            if row is not None:
                s.delete(row)

    def _set_ref(self, qid: int, column: str, value: str) -> None:
        with self.db.session() as s:
            row = s.get(MathQuestion, qid)
            if row is not None:
                setattr(row, column, value[:200])

    # -- answers --------------------------------------------------------------------------------------
    async def answer(self, question_id: int, user: UserRef, text: str) -> MathOutcome:
        """Judge and store a reply. An unreadable reply is not stored: the person can try again."""
        now = self.clock()
        text = (text if isinstance(text, str) else str(text))[:MAX_ANSWER_CHARS]
        row = await asyncio.to_thread(self._question, user, question_id)
        q = question(row.kind, row.seed)
        try:
            result = check(q, text)
        except UnreadableAnswer as exc:
            return MathOutcome("unreadable", False, 0, f"{exc} — nothing was recorded, try again.")
        seconds = max(0.0, (now - row.posted_at).total_seconds())
        late = now > row.deadline_at or row.revealed_at is not None
        limit = max(1.0, (row.deadline_at - row.posted_at).total_seconds())
        pts = math_points(result.correct, seconds, limit, late)
        stored = await asyncio.to_thread(
            self._store, row.id, user, text, result.value, result.correct, pts, seconds, late, now
        )
        if not stored:
            return MathOutcome(
                "duplicate", False, 0, f"You already answered math #{question_id}; the first answer counts."
            )
        if late:
            verdict = "right" if result.correct else "not right"
            return MathOutcome("late", result.correct, 0, f"Too late to score, but {verdict}: {result.explanation}")
        return MathOutcome(
            "scored",
            result.correct,
            pts,
            f"Recorded for math #{question_id} ({seconds:.0f} s). The answer comes with the reveal.",
        )

    async def question_for(self, user: UserRef, question_id: int) -> Question:
        """The question behind an id, only within the person's own workspace."""
        row = await asyncio.to_thread(self._question, user, question_id)
        return question(row.kind, row.seed)

    def _question(self, user: UserRef, question_id: int) -> MathQuestion:
        with self.db.session() as s:
            ws = repo.find_workspace(s, user.platform, user.workspace)
            row = (
                s.scalars(
                    select(MathQuestion).where(MathQuestion.id == question_id, MathQuestion.workspace_id == ws.id)
                ).first()
                if ws
                else None
            )
            if row is None:
                raise DrillError(f"No math question #{question_id} here.")
            s.expunge(row)
            return row

    def _store(
        self,
        qid: int,
        user: UserRef,
        text: str,
        value: float | None,
        correct: bool,
        pts: int,
        seconds: float,
        late: bool,
        now: datetime,
    ) -> bool:
        with self.db.session() as s:
            row = s.get(MathQuestion, qid)
            ws = s.get(Workspace, row.workspace_id) if row else None
            if row is None or ws is None:
                raise DrillError(f"No math question #{qid} here.")
            u = repo.user(s, ws, user.user, user.name)
            try:
                with s.begin_nested():  # the unique (question, user) makes a double answer impossible
                    s.add(
                        MathAnswer(
                            question_id=qid,
                            user_id=u.id,
                            workspace_id=ws.id,
                            channel_id=row.channel_id,
                            group_id=row.group_id,
                            answer_text=text,
                            value=value,
                            correct=correct,
                            points=pts,
                            seconds=seconds,
                            late=late,
                            submitted_at=now,
                        )
                    )
            except IntegrityError:
                return False
            return True

    # -- reveal ---------------------------------------------------------------------------------------
    async def reveal(self, question_id: int, *, force: bool = False) -> bool:
        """Post the reveal if this caller wins the claim: exactly once across callers and replicas."""
        now = self.clock()
        claimed = await asyncio.to_thread(self._claim, question_id, now, force)
        if claimed is None:
            return False
        row, channel, scores = claimed
        q = question(row.kind, row.seed)
        try:
            chat = self.chat_for(channel.platform)
            ref = await chat.post_math_reveal(
                MessageRef(channel, row.message_ref or ""), MathRevealPost(question_id, q, tuple(scores))
            )
        except Exception:
            await asyncio.to_thread(self._release, question_id)
            raise
        await asyncio.to_thread(self._set_ref, question_id, "reveal_ref", ref.message)
        return True

    def _claim(self, qid: int, now: datetime, force: bool) -> tuple[MathQuestion, ChannelRef, list[MathScore]] | None:
        with self.db.session() as s:
            stmt = update(MathQuestion).where(MathQuestion.id == qid, MathQuestion.revealed_at.is_(None))
            if not force:
                stmt = stmt.where(MathQuestion.deadline_at <= now)
            if s.execute(stmt.values(revealed_at=now).execution_options(synchronize_session=False)).rowcount != 1:  # type: ignore[attr-defined]
                return None
            row = s.get(MathQuestion, qid)
            assert row is not None
            ws, ch = s.get(Workspace, row.workspace_id), s.get(Channel, row.channel_id)
            assert ws is not None
            assert ch is not None
            answers = s.execute(
                select(MathAnswer, User)
                .join(User, User.id == MathAnswer.user_id)
                .where(MathAnswer.question_id == qid, MathAnswer.late.is_(False))
                .order_by(MathAnswer.points.desc(), MathAnswer.submitted_at)
            ).all()
            scores = [
                MathScore(u.display_name or u.external_id, a.value, a.correct, a.points, a.seconds) for a, u in answers
            ]
            s.expunge(row)
            return row, ChannelRef(ws.platform, ws.external_id, ch.external_id, ch.name), scores

    def _release(self, qid: int) -> None:
        with self.db.session() as s:
            s.execute(
                update(MathQuestion)
                .where(MathQuestion.id == qid)
                .values(revealed_at=None)
                .execution_options(synchronize_session=False)
            )

    async def reveal_due(self) -> list[int]:
        due = await asyncio.to_thread(self._overdue, self.clock())
        done = []
        for qid in due:
            try:
                if await self.reveal(qid):
                    done.append(qid)
            except Exception as exc:
                log.warning("math reveal %s failed: %s", qid, type(exc).__name__)
        return done

    def _overdue(self, now: datetime) -> list[int]:
        with self.db.session() as s:
            return list(
                s.scalars(
                    select(MathQuestion.id).where(MathQuestion.revealed_at.is_(None), MathQuestion.deadline_at <= now)
                )
            )

    def pending(self) -> list[tuple[int, datetime]]:
        with self.db.session() as s:
            rows = s.execute(
                select(MathQuestion.id, MathQuestion.deadline_at).where(MathQuestion.revealed_at.is_(None))
            ).all()
            return [(int(i), d) for i, d in rows]

    # -- the board ------------------------------------------------------------------------------------
    async def board_text(self, channel: ChannelRef, period: str = "week") -> str:
        if period not in PERIODS:
            raise DrillError(f"The period is one of: {', '.join(PERIODS)}.")
        return await asyncio.to_thread(self._board, channel, period)

    def _board(self, channel: ChannelRef, period: str) -> str:
        with self.db.session() as s:
            ws = repo.find_workspace(s, channel.platform, channel.workspace)
            ch = repo.find_channel(s, ws, channel.channel) if ws else None
            title = f"Math board — {'all time' if period == 'all' else 'this ' + period}"
            if ch is None:
                return f"{title}\nNo math answers here yet."
            start, end = period_bounds(period, self.clock(), ch.timezone)
            total = func.sum(MathAnswer.points).label("total")
            right = func.sum(func.cast(MathAnswer.correct, type_=MathAnswer.points.type)).label("right")
            rows = s.execute(
                select(User.display_name, User.external_id, total, func.count(), right)
                .join(User, User.id == MathAnswer.user_id)
                .where(
                    MathAnswer.channel_id == ch.id,
                    MathAnswer.late.is_(False),
                    MathAnswer.submitted_at >= start,
                    MathAnswer.submitted_at < end,
                )
                .group_by(User.id, User.display_name, User.external_id)
                .order_by(total.desc(), User.id)
                .limit(10)
            ).all()
            if not rows:
                return f"{title}\nNo math answers here yet."
            lines = [
                f"{i}. {name or ext} — {int(pts)} pts ({int(ok)}/{n} right)"
                for i, (name, ext, pts, n, ok) in enumerate(rows, start=1)
            ]
            return "\n".join([title, *lines])
