"""Mock interviews in the database: one open session per person, one stored answer per round (a double click
cannot answer a round twice). One function = one transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from . import repo
from .addresses import ChannelAddress, ChannelPlace, UserAddress, place_of
from .db import Database, begin_write
from .models import Channel, Workspace
from .prep_models import InterviewRound, InterviewSession


@dataclass(frozen=True, slots=True)
class NewSession:
    rounds: int
    seed: int
    group_id: int | None
    now: datetime


@dataclass(frozen=True, slots=True)
class SessionRow:
    id: int
    rounds: int
    seed: int  # fixes the rounds (bot.interview.plan)
    current: int  # the round being answered, 1-based
    round_started_at: datetime
    channel: ChannelPlace


class SessionRefusal(StrEnum):
    NOT_HERE = "not_here"  # no such session in the person's workspace
    NOT_YOURS = "not_yours"
    OVER = "over"


class SessionRefused(Exception):
    def __init__(self, refusal: SessionRefusal) -> None:
        super().__init__(refusal.value)
        self.refusal = refusal


@dataclass(frozen=True, slots=True)
class RoundAnswer:
    """A judged round, as stored."""

    number: int
    signature: str
    seed: int
    difficulty: str
    answer: str
    score: float
    narration: float
    combined: float
    seconds: float


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    number: int
    answer: str
    seconds: float


def create_session(db: Database, channel: ChannelAddress, user: UserAddress, new: NewSession) -> int:
    """A new session for the person; any unfinished one of theirs ends now."""
    with db.session() as s:
        ws = repo.workspace(s, channel.platform, channel.workspace, "", new.now)
        ch = repo.channel(s, ws, channel.channel, channel.name)
        u = repo.user(s, ws, user.user, user.name)
        unfinished = s.scalars(
            select(InterviewSession).where(
                InterviewSession.workspace_id == ws.id,
                InterviewSession.user_id == u.id,
                InterviewSession.finished_at.is_(None),
            )
        ).all()
        for old in unfinished:
            old.finished_at = new.now
        row = InterviewSession(
            workspace_id=ws.id,
            channel_id=ch.id,
            user_id=u.id,
            group_id=new.group_id,
            rounds=new.rounds,
            seed=new.seed,
            current=1,
            started_at=new.now,
            round_started_at=new.now,
        )
        s.add(row)
        s.flush()
        return row.id


def restart_open_session(db: Database, user: UserAddress, now: datetime) -> int | None:
    """The person's latest unfinished session, its round clock restarted; None when there is none."""
    with db.session() as s:
        ws = repo.find_workspace(s, user.platform, user.workspace)
        u = repo.find_user(s, ws, user.user) if ws else None
        if u is None:
            return None
        row = s.scalars(
            select(InterviewSession)
            .where(InterviewSession.user_id == u.id, InterviewSession.finished_at.is_(None))
            .order_by(InterviewSession.id.desc())
        ).first()
        if row is None:
            return None
        row.round_started_at = now
        return row.id


def open_session(db: Database, session_id: int, user: UserAddress) -> SessionRow:
    """The person's own unfinished session in their workspace; raises SessionRefused."""
    with db.session() as s:
        ws = repo.find_workspace(s, user.platform, user.workspace)
        u = repo.find_user(s, ws, user.user) if ws else None
        row = s.get(InterviewSession, session_id)
        if row is None or ws is None or row.workspace_id != ws.id:
            raise SessionRefused(SessionRefusal.NOT_HERE)
        if u is None or row.user_id != u.id:
            raise SessionRefused(SessionRefusal.NOT_YOURS)
        if row.finished_at is not None:
            raise SessionRefused(SessionRefusal.OVER)
        place = place_of(s.get_one(Workspace, row.workspace_id), s.get_one(Channel, row.channel_id))
        return SessionRow(row.id, row.rounds, row.seed, row.current, row.round_started_at, place)


def store_round(db: Database, session_id: int, answer: RoundAnswer, now: datetime) -> bool:
    """Store the round and move the session on (or finish it after its last round); False when that round was
    already answered."""
    with db.session() as s:
        begin_write(s)  # SQLite: the savepoint must not be the outermost transaction
        try:
            with s.begin_nested():
                s.add(
                    InterviewRound(
                        session_id=session_id,
                        number=answer.number,
                        signature=answer.signature,
                        seed=answer.seed,
                        difficulty=answer.difficulty,
                        answer_text=answer.answer,
                        score=answer.score,
                        narration=answer.narration,
                        combined=answer.combined,
                        seconds=answer.seconds,
                        submitted_at=now,
                    )
                )
        except IntegrityError:
            return False
        row = s.get_one(InterviewSession, session_id)
        if answer.number >= row.rounds:
            row.finished_at = now
        else:
            row.current = answer.number + 1
            row.round_started_at = now
        return True


def stored_answers(db: Database, session_id: int) -> list[StoredAnswer]:
    with db.session() as s:
        q = select(InterviewRound).where(InterviewRound.session_id == session_id).order_by(InterviewRound.number)
        return [StoredAnswer(r.number, r.answer_text, r.seconds) for r in s.scalars(q)]
