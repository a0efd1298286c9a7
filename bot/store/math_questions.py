"""Mental-math questions in the database: one row per posted question, one answer per person (the first counts),
a reveal claimed atomically, and the channel's math board. One function = one transaction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from . import repo
from .addresses import ChannelAddress, ChannelPlace, UserAddress, place_of
from .db import Database, begin_write
from .models import Channel, User, Workspace
from .prep_models import MathAnswer, MathQuestion


@dataclass(frozen=True, slots=True)
class NewQuestion:
    kind: str
    seed: int
    scheduled: bool
    group_id: int | None
    posted_at: datetime
    deadline_at: datetime


@dataclass(frozen=True, slots=True)
class QuestionRow:
    id: int
    kind: str
    seed: int
    posted_at: datetime
    deadline_at: datetime
    revealed_at: datetime | None


@dataclass(frozen=True, slots=True)
class Judged:
    """A readable reply, judged: what to store for the person."""

    text: str
    value: float | None
    correct: bool
    points: int
    seconds: float
    late: bool


class Stored(StrEnum):
    STORED = "stored"
    DUPLICATE = "duplicate"  # the person answered already; the first answer counts
    NO_QUESTION = "no_question"


@dataclass(frozen=True, slots=True)
class AnswerRow:
    user: str  # display name, or the platform id
    value: float | None
    correct: bool
    points: int
    seconds: float


@dataclass(frozen=True, slots=True)
class ClaimedReveal:
    question: QuestionRow
    message_ref: str
    channel: ChannelPlace
    answers: tuple[AnswerRow, ...]  # on-time answers, best first


@dataclass(frozen=True, slots=True)
class PendingReveal:
    question_id: int
    deadline_at: datetime


@dataclass(frozen=True, slots=True)
class BoardRow:
    user: str
    points: int
    answered: int
    right: int


def _row(q: MathQuestion) -> QuestionRow:
    return QuestionRow(q.id, q.kind, q.seed, q.posted_at, q.deadline_at, q.revealed_at)


# -- posting --------------------------------------------------------------------------------------------------
def create_question(db: Database, channel: ChannelAddress, new: NewQuestion) -> int:
    with db.session() as s:
        ws = repo.workspace(s, channel.platform, channel.workspace, "", new.posted_at)
        ch = repo.channel(s, ws, channel.channel, channel.name)
        row = MathQuestion(
            workspace_id=ws.id,
            channel_id=ch.id,
            group_id=new.group_id,
            kind=new.kind,
            seed=new.seed,
            scheduled=new.scheduled,
            posted_at=new.posted_at,
            deadline_at=new.deadline_at,
        )
        s.add(row)
        s.flush()
        return row.id


def delete_question(db: Database, question_id: int) -> None:
    with db.session() as s:
        row = s.get(MathQuestion, question_id)
        if row is not None:
            s.delete(row)


def set_message_ref(db: Database, question_id: int, ref: str) -> None:
    with db.session() as s:
        row = s.get(MathQuestion, question_id)
        if row is not None:
            row.message_ref = ref[:200]


def set_reveal_ref(db: Database, question_id: int, ref: str) -> None:
    with db.session() as s:
        row = s.get(MathQuestion, question_id)
        if row is not None:
            row.reveal_ref = ref[:200]


# -- answers --------------------------------------------------------------------------------------------------
def find_question(db: Database, platform: str, workspace: str, question_id: int) -> QuestionRow | None:
    """The question, only within that workspace."""
    with db.session() as s:
        ws = repo.find_workspace(s, platform, workspace)
        if ws is None:
            return None
        q = select(MathQuestion).where(MathQuestion.id == question_id, MathQuestion.workspace_id == ws.id)
        row = s.scalars(q).first()
        return _row(row) if row is not None else None


def store_answer(db: Database, question_id: int, user: UserAddress, judged: Judged, now: datetime) -> Stored:
    with db.session() as s:
        row = s.get(MathQuestion, question_id)
        ws = s.get(Workspace, row.workspace_id) if row else None
        if row is None or ws is None:
            return Stored.NO_QUESTION
        u = repo.user(s, ws, user.user, user.name)
        answer = MathAnswer(
            question_id=question_id,
            user_id=u.id,
            workspace_id=ws.id,
            channel_id=row.channel_id,
            group_id=row.group_id,
            answer_text=judged.text,
            value=judged.value,
            correct=judged.correct,
            points=judged.points,
            seconds=judged.seconds,
            late=judged.late,
            submitted_at=now,
        )
        begin_write(s)  # SQLite: the savepoint must not be the outermost transaction
        try:
            with s.begin_nested():  # the unique (question, user) makes a double answer impossible
                s.add(answer)
        except IntegrityError:
            return Stored.DUPLICATE
        return Stored.STORED


# -- reveal ---------------------------------------------------------------------------------------------------
def claim_reveal(db: Database, question_id: int, now: datetime, *, force: bool) -> ClaimedReveal | None:
    """Mark the question revealed if nobody has (and its deadline passed, unless forced): exactly one caller
    gets the claim, with the on-time answers."""
    with db.session() as s:
        stmt = update(MathQuestion).where(MathQuestion.id == question_id, MathQuestion.revealed_at.is_(None))
        if not force:
            stmt = stmt.where(MathQuestion.deadline_at <= now)
        claimed = s.execute(stmt.values(revealed_at=now).execution_options(synchronize_session=False))
        if claimed.rowcount != 1:  # type: ignore[attr-defined]
            return None
        row = s.get_one(MathQuestion, question_id)
        ws, ch = s.get_one(Workspace, row.workspace_id), s.get_one(Channel, row.channel_id)
        answers = s.execute(
            select(MathAnswer, User)
            .join(User, User.id == MathAnswer.user_id)
            .where(MathAnswer.question_id == question_id, MathAnswer.late.is_(False))
            .order_by(MathAnswer.points.desc(), MathAnswer.submitted_at)
        ).all()
        return ClaimedReveal(
            _row(row),
            row.message_ref or "",
            place_of(ws, ch),
            tuple(
                AnswerRow(u.display_name or u.external_id, a.value, a.correct, a.points, a.seconds) for a, u in answers
            ),
        )


def release_reveal(db: Database, question_id: int) -> None:
    """Undo a claim whose post failed, so a later sweep reveals the question."""
    with db.session() as s:
        s.execute(
            update(MathQuestion)
            .where(MathQuestion.id == question_id)
            .values(revealed_at=None)
            .execution_options(synchronize_session=False)
        )


def overdue_questions(db: Database, now: datetime) -> list[int]:
    with db.session() as s:
        q = select(MathQuestion.id).where(MathQuestion.revealed_at.is_(None), MathQuestion.deadline_at <= now)
        return list(s.scalars(q))


def pending_reveals(db: Database) -> list[PendingReveal]:
    with db.session() as s:
        q = select(MathQuestion.id, MathQuestion.deadline_at).where(MathQuestion.revealed_at.is_(None))
        return [PendingReveal(int(i), d) for i, d in s.execute(q).all()]


# -- the board ------------------------------------------------------------------------------------------------
def board(
    db: Database, channel: ChannelAddress, window: Callable[[str], tuple[datetime, datetime]], limit: int = 10
) -> list[BoardRow]:
    """The channel's top math scorers over window(the channel's timezone) = [start, end); on-time answers only."""
    with db.session() as s:
        ws = repo.find_workspace(s, channel.platform, channel.workspace)
        ch = repo.find_channel(s, ws, channel.channel) if ws else None
        if ch is None:
            return []
        start, end = window(ch.timezone)
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
            .limit(limit)
        ).all()
        return [BoardRow(name or ext, int(pts), int(n), int(ok)) for name, ext, pts, n, ok in rows]
