"""Workspace-scoped queries. Every function that reads team data takes the workspace id and filters by it,
so an id forged by a client can never reach another workspace's rows."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..cleantext import clean_name
from .db import begin_write
from .models import Attempt, Channel, Drill, User, Workspace

T = TypeVar("T")


def _get_or_create(s: Session, model: type[T], lookup: dict[str, Any], defaults: dict[str, Any]) -> T:
    found = s.scalars(select(model).filter_by(**lookup)).first()
    if found is not None:
        return found
    begin_write(s)  # the savepoint must not be the outermost transaction (SQLite)
    try:
        with s.begin_nested():  # a concurrent insert of the same key loses here, not the whole transaction
            obj = model(**lookup, **defaults)
            s.add(obj)
        return obj
    except IntegrityError:
        return s.scalars(select(model).filter_by(**lookup)).one()


def workspace(s: Session, platform: str, external_id: str, name: str, now: datetime) -> Workspace:
    return _get_or_create(
        s, Workspace, {"platform": platform, "external_id": external_id}, {"name": clean_name(name), "created_at": now}
    )


def channel(s: Session, ws: Workspace, external_id: str, name: str = "") -> Channel:
    return _get_or_create(s, Channel, {"workspace_id": ws.id, "external_id": external_id}, {"name": clean_name(name)})


def user(s: Session, ws: Workspace, external_id: str, name: str = "") -> User:
    name = clean_name(name)  # chat display names are free text: cleaned and cut to the column, never refused
    u = _get_or_create(s, User, {"workspace_id": ws.id, "external_id": external_id}, {"display_name": name})
    if name and u.display_name != name:
        u.display_name = name
    return u


def find_workspace(s: Session, platform: str, external_id: str) -> Workspace | None:
    return s.scalars(select(Workspace).filter_by(platform=platform, external_id=external_id)).first()


def find_channel(s: Session, ws: Workspace, external_id: str) -> Channel | None:
    return s.scalars(select(Channel).filter_by(workspace_id=ws.id, external_id=external_id)).first()


def find_user(s: Session, ws: Workspace, external_id: str) -> User | None:
    return s.scalars(select(User).filter_by(workspace_id=ws.id, external_id=external_id)).first()


def drill(s: Session, workspace_id: int, drill_id: int, *, for_update: bool = False) -> Drill | None:
    """`for_update` locks the row until the transaction ends (PostgreSQL; SQLite sessions use BEGIN IMMEDIATE)."""
    q = select(Drill).where(Drill.id == drill_id, Drill.workspace_id == workspace_id)
    return s.scalars(q.with_for_update() if for_update else q).first()


def recent_drills(s: Session, workspace_id: int, channel_id: int, limit: int = 20) -> list[Drill]:
    q = (
        select(Drill)
        .where(Drill.workspace_id == workspace_id, Drill.channel_id == channel_id)
        .order_by(Drill.posted_at.desc(), Drill.id.desc())
        .limit(limit)
    )
    return list(s.scalars(q))


def used_seeds(s: Session, workspace_id: int, channel_id: int) -> set[int]:
    q = select(Drill.seed).where(Drill.workspace_id == workspace_id, Drill.channel_id == channel_id)
    return set(s.scalars(q))


def accuracy_by_signature(
    s: Session,
    workspace_id: int,
    since: datetime,
    *,
    channel_id: int | None = None,
    group_id: int | None = None,
    user_id: int | None = None,
) -> dict[str, tuple[float, int]]:
    q = (
        select(Attempt.signature, func.avg(Attempt.score), func.count())
        .where(Attempt.workspace_id == workspace_id, Attempt.late.is_(False), Attempt.submitted_at >= since)
        .group_by(Attempt.signature)
    )
    if channel_id is not None:
        q = q.where(Attempt.channel_id == channel_id)
    if group_id is not None:
        q = q.where(Attempt.group_id == group_id)
    if user_id is not None:
        q = q.where(Attempt.user_id == user_id)
    return {sig: (float(mean), int(n)) for sig, mean, n in s.execute(q)}


def _revealable() -> tuple[Any, ...]:
    """Only a drill the channel saw gets a reveal: not one whose post failed or never finished."""
    return (Drill.failed_at.is_(None), Drill.message_ref.is_not(None))


def claim_reveal(s: Session, workspace_id: int, drill_id: int, now: datetime, *, force: bool) -> bool:
    """Atomically mark a drill revealed; True for exactly one caller, however many race."""
    q = update(Drill).where(
        Drill.id == drill_id, Drill.workspace_id == workspace_id, Drill.revealed_at.is_(None), *_revealable()
    )
    if not force:
        q = q.where(Drill.deadline_at <= now)
    result = s.execute(q.values(revealed_at=now).execution_options(synchronize_session=False))
    return bool(result.rowcount == 1)  # type: ignore[attr-defined]


def release_reveal(s: Session, drill_id: int) -> None:
    """Undo a claim whose post failed, so a later sweep reveals the drill."""
    s.execute(
        update(Drill).where(Drill.id == drill_id).values(revealed_at=None).execution_options(synchronize_session=False)
    )


def overdue_drills(s: Session, now: datetime) -> list[tuple[int, int]]:
    """(workspace id, drill id) of every drill past its deadline and not yet revealed, across workspaces:
    the scheduler's sweep is the one caller that works for all of them."""
    q = select(Drill.workspace_id, Drill.id).where(
        Drill.revealed_at.is_(None), Drill.deadline_at <= now, *_revealable()
    )
    return [(int(w), int(d)) for w, d in s.execute(q)]


def pending_drills(s: Session, now: datetime) -> list[tuple[int, datetime]]:
    q = select(Drill.id, Drill.deadline_at).where(Drill.revealed_at.is_(None), Drill.deadline_at > now, *_revealable())
    return [(int(i), d) for i, d in s.execute(q)]
