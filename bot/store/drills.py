"""The drill aggregate: creating a drill (with its unique scheduled slot), its message references, the
exactly-once reveal claim, and the queries the scheduler sweeps with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from . import repo
from .addresses import ChannelAddress
from .channels import ChannelRow, row_of
from .db import Database
from .models import Attempt, Channel, Drill, TraceUpload, User, Workspace

ACCURACY_DAYS = 60  # the window of answers adaptive selection weighs
RECENT_DRILLS = 20


class SlotTaken(Exception):
    """A scheduled slot already has its drill (another replica, or an earlier run)."""


class TraceMissing(LookupError):
    """No stored trace with that id in this workspace."""


@dataclass(frozen=True, slots=True)
class DrillKey:
    """What makes a drill's scenario (and, once claimed, where its reveal threads)."""

    signature: str
    seed: int
    difficulty: str
    message_ref: str | None = None
    trace_id: int | None = None  # a drill made from a team's own trace
    workspace_id: int | None = None  # for the workspace's remembered wordings


@dataclass(frozen=True, slots=True)
class DrillSpec:
    """What the caller asked for; None leaves the choice to the channel's settings and adaptive selection."""

    signature: str | None = None
    seed: int | None = None
    difficulty: str | None = None
    duration_seconds: int | None = None
    scheduled: bool = False
    group_id: int | None = None
    trace_id: int | None = None
    slot_key: str | None = None
    solo: bool = False
    speed_bonus: bool = True


class Picker(Protocol):
    """Adaptive selection, called inside the creating transaction (it reads the channel's history)."""

    def signature(self, recent: list[str], accuracy: Mapping[str, tuple[float, int]], mix: list[str] | None) -> str: ...

    def seed(self, used: set[int], signature: str, difficulty: str, scheduled: bool, now: datetime) -> int: ...


@dataclass(frozen=True, slots=True)
class NewDrill:
    id: int
    channel: ChannelRow
    signature: str
    seed: int
    difficulty: str
    deadline: datetime


@dataclass(frozen=True, slots=True)
class Answer:
    user: str  # the platform's user id
    user_name: str
    text: str


@dataclass(frozen=True, slots=True)
class Score:
    user: str  # display name
    score: float
    points: int
    named: str | None
    hinted: bool


@dataclass(frozen=True, slots=True)
class ClaimedReveal:
    """A reveal this caller won: the drill, its channel, the on-time scores ranked, and every answer."""

    key: DrillKey
    channel: ChannelRow
    scores: tuple[Score, ...]
    answers: tuple[Answer, ...]


def create(
    db: Database, channel: ChannelAddress, spec: DrillSpec, now: datetime, default_seconds: int, pick: Picker
) -> NewDrill:
    """Insert the drill. Raises SlotTaken when its scheduled slot already has one, TraceMissing for a trace id
    that is not this workspace's."""
    try:
        with db.session() as s:
            return _insert(s, channel, spec, now, default_seconds, pick)
    except IntegrityError as exc:
        if spec.slot_key is not None and _slot_taken(db, channel, spec.slot_key):
            raise SlotTaken(spec.slot_key) from exc
        raise


def _slot_taken(db: Database, channel: ChannelAddress, slot_key: str) -> bool:
    with db.session() as s:
        ws = repo.find_workspace(s, channel.platform, channel.workspace)
        ch = repo.find_channel(s, ws, channel.channel) if ws else None
        return (
            ch is not None
            and s.scalar(select(Drill.id).where(Drill.channel_id == ch.id, Drill.slot_key == slot_key)) is not None
        )


def _insert(
    s: Session, channel: ChannelAddress, spec: DrillSpec, now: datetime, default_seconds: int, pick: Picker
) -> NewDrill:
    ws = repo.workspace(s, channel.platform, channel.workspace, "", now)
    ch = repo.channel(s, ws, channel.channel, channel.name)
    signature, seed, difficulty = spec.signature, spec.seed, spec.difficulty
    if spec.trace_id is not None:
        upload = s.get(TraceUpload, spec.trace_id)
        if upload is None or upload.workspace_id != ws.id:
            raise TraceMissing(spec.trace_id)
        # The answer is the analysis' top finding; the seed field keeps the trace's id (negative, so it never
        # collides with a generator seed).
        signature, seed, difficulty = upload.signature, -spec.trace_id, "real"
    if signature is None:
        recent = [d.signature for d in repo.recent_drills(s, ws.id, ch.id, RECENT_DRILLS)]
        scope = {"group_id": spec.group_id} if spec.group_id else {"channel_id": ch.id}
        accuracy = repo.accuracy_by_signature(s, ws.id, now - timedelta(days=ACCURACY_DAYS), **scope)
        signature = pick.signature(recent, accuracy, ch.signature_mix)
    difficulty = difficulty or ch.difficulty
    if seed is None:
        seed = pick.seed(repo.used_seeds(s, ws.id, ch.id), signature, difficulty, spec.scheduled, now)
    deadline = now + timedelta(seconds=spec.duration_seconds or ch.answer_seconds or default_seconds)
    d = Drill(
        workspace_id=ws.id,
        channel_id=ch.id,
        group_id=spec.group_id,
        signature=signature,
        seed=seed,
        difficulty=difficulty,
        scheduled=spec.scheduled,
        posted_at=now,
        deadline_at=deadline,
        trace_id=spec.trace_id,
        slot_key=spec.slot_key,
        solo=spec.solo,
        speed_bonus=spec.speed_bonus,
    )
    s.add(d)
    s.flush()
    return NewDrill(d.id, row_of(ws, ch), signature, seed, difficulty, deadline)


def mark_failed(db: Database, drill_id: int, now: datetime) -> None:
    """Nobody saw this drill (its post failed): it must never be revealed."""
    with db.session() as s:
        d = s.get(Drill, drill_id)
        if d is not None and d.message_ref is None:
            d.failed_at = now


def set_message_ref(db: Database, drill_id: int, message: str) -> None:
    with db.session() as s:
        d = s.get(Drill, drill_id)
        if d is not None:
            d.message_ref = message


def set_reveal_ref(db: Database, drill_id: int, message: str) -> None:
    with db.session() as s:
        d = s.get(Drill, drill_id)
        if d is not None:
            d.reveal_ref = message


def key_of(d: Drill) -> DrillKey:
    return DrillKey(d.signature, d.seed, d.difficulty, d.message_ref, d.trace_id, d.workspace_id)


def find_key(db: Database, platform: str, workspace: str, drill_id: int) -> DrillKey | None:
    """The drill's key, if it exists in this workspace (a forged id from another one finds nothing)."""
    with db.session() as s:
        ws = repo.find_workspace(s, platform, workspace)
        d = repo.drill(s, ws.id, drill_id) if ws else None
        return key_of(d) if d is not None else None


def claim_reveal(
    db: Database, drill_id: int, workspace_id: int | None, now: datetime, force: bool
) -> ClaimedReveal | None:
    """Claim the reveal (atomically: one caller wins, however many race) and read what it shows."""
    with db.session(immediate=True) as s:
        d = s.get(Drill, drill_id)
        if d is None or (workspace_id is not None and d.workspace_id != workspace_id):
            return None
        if not repo.claim_reveal(s, d.workspace_id, drill_id, now, force=force):
            return None
        ws, ch = s.get(Workspace, d.workspace_id), s.get(Channel, d.channel_id)
        assert ws is not None
        assert ch is not None
        rows = s.execute(
            select(Attempt, User)
            .join(User, User.id == Attempt.user_id)
            .where(Attempt.drill_id == drill_id)
            .order_by(Attempt.late, Attempt.points.desc(), Attempt.submitted_at)
        ).all()
        scores = tuple(
            Score(u.display_name or u.external_id, a.score, a.points, a.named, a.hint_cost > 0)
            for a, u in rows
            if not a.late
        )
        answers = tuple(Answer(u.external_id, u.display_name, a.answer_text) for a, u in rows)
        return ClaimedReveal(key_of(d), row_of(ws, ch), scores, answers)


def release_reveal(db: Database, drill_id: int) -> None:
    """Undo a claim whose post failed, so a later sweep reveals the drill."""
    with db.session() as s:
        repo.release_reveal(s, drill_id)


def abandon(db: Database, channel: ChannelAddress, drill_id: int) -> bool:
    """Delete a drill nobody answered and nobody saw revealed; False if it has answers or a reveal."""
    with db.session() as s:
        ws = repo.find_workspace(s, channel.platform, channel.workspace)
        d = repo.drill(s, ws.id, drill_id) if ws else None
        if d is None or d.revealed_at is not None:
            return False
        if s.scalar(select(Attempt.id).where(Attempt.drill_id == drill_id).limit(1)) is not None:
            return False
        s.delete(d)
        return True


def overdue(db: Database, now: datetime) -> list[tuple[int, int]]:
    """(workspace id, drill id) of every drill past its deadline and not revealed, across workspaces."""
    with db.session() as s:
        return repo.overdue_drills(s, now)


def pending(db: Database, now: datetime) -> list[tuple[int, datetime]]:
    """(drill id, deadline) of every drill still open."""
    with db.session() as s:
        return repo.pending_drills(s, now)


def for_thread(db: Database, channel: ChannelAddress, thread_message: str, modes: tuple[str, ...]) -> int | None:
    """The drill whose message anchors this thread, if the channel's answer mode is one of `modes`."""
    with db.session() as s:
        ws = repo.find_workspace(s, channel.platform, channel.workspace)
        ch = repo.find_channel(s, ws, channel.channel) if ws else None
        if ws is None or ch is None or ch.answer_mode not in modes:
            return None
        q = select(Drill.id).where(
            Drill.workspace_id == ws.id, Drill.channel_id == ch.id, Drill.message_ref == thread_message
        )
        return s.scalar(q)


def listing(db: Database, platform: str, workspace: str, limit: int = 50) -> list[dict[str, Any]]:
    """The workspace's latest drills with their on-time answer counts (`tracedrill drill list`)."""
    with db.session() as s:
        ws = repo.find_workspace(s, platform, workspace)
        if ws is None:
            return []
        answers = (
            select(Attempt.drill_id, func.count().label("n"))
            .where(Attempt.late.is_(False))
            .group_by(Attempt.drill_id)
            .subquery()
        )
        q = (
            select(Drill, Channel.external_id, answers.c.n)
            .join(Channel, Channel.id == Drill.channel_id)
            .outerjoin(answers, answers.c.drill_id == Drill.id)
            .where(Drill.workspace_id == ws.id)
            .order_by(Drill.id.desc())
            .limit(limit)
        )
        return [
            {
                "drill_id": d.id,
                "channel": f"{platform}:{ch}",
                "posted_at": d.posted_at.isoformat(),
                "deadline": d.deadline_at.isoformat(),
                "revealed": d.revealed_at is not None,
                "signature": d.signature if d.revealed_at is not None else None,
                "difficulty": d.difficulty,
                "answers": int(n or 0),
            }
            for d, ch, n in s.execute(q)
        ]
