"""Study groups: create, join, leave, list — scoped to one workspace."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from . import repo
from .db import Database, begin_write
from .models import GroupMembership, StudyGroup, Workspace

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{1,31}$")


class GroupError(ValueError):
    """A refused group action; the message is fit to show a person."""


@dataclass(frozen=True, slots=True)
class GroupInfo:
    id: int
    name: str
    members: int


def clean_name(name: str) -> str:
    n = name.strip().lower()
    if not _NAME.match(n):
        raise GroupError("Group names are 2–32 characters: letters, digits, '-' and '_' (e.g. interview-prep).")
    return n


def create(
    s: Session,
    ws: Workspace,
    name: str,
    creator_external: str,
    creator_name: str,
    now: datetime,
    channel_id: int | None = None,
) -> GroupInfo:
    n = clean_name(name)
    u = repo.user(s, ws, creator_external, creator_name)
    begin_write(s)  # the savepoint must not be the outermost transaction (SQLite)
    try:
        with s.begin_nested():
            g = StudyGroup(workspace_id=ws.id, name=n, channel_id=channel_id, created_by=u.id, created_at=now)
            s.add(g)
            s.flush()
            s.add(GroupMembership(group_id=g.id, user_id=u.id, joined_at=now))
    except IntegrityError as exc:
        raise GroupError(f"A group called {n!r} already exists here; join it instead.") from exc
    return GroupInfo(g.id, g.name, 1)


def find(s: Session, ws: Workspace, name: str) -> StudyGroup:
    n = clean_name(name)
    g = s.scalars(select(StudyGroup).where(StudyGroup.workspace_id == ws.id, StudyGroup.name == n)).first()
    if g is None:
        raise GroupError(f"No group called {n!r} in this workspace.")
    return g


def join(s: Session, ws: Workspace, name: str, user_external: str, user_name: str, now: datetime) -> GroupInfo:
    g = find(s, ws, name)
    u = repo.user(s, ws, user_external, user_name)
    if s.get(GroupMembership, (g.id, u.id)) is None:
        s.add(GroupMembership(group_id=g.id, user_id=u.id, joined_at=now))
        s.flush()
    return GroupInfo(g.id, g.name, _count(s, g.id))


def leave(s: Session, ws: Workspace, name: str, user_external: str) -> GroupInfo:
    g = find(s, ws, name)
    u = repo.find_user(s, ws, user_external)
    m = s.get(GroupMembership, (g.id, u.id)) if u else None
    if m is None:
        raise GroupError(f"You are not in {g.name!r}.")
    s.delete(m)
    s.flush()
    return GroupInfo(g.id, g.name, _count(s, g.id))


def list_groups(s: Session, ws: Workspace) -> list[GroupInfo]:
    q = (
        select(StudyGroup.id, StudyGroup.name, func.count(GroupMembership.user_id))
        .outerjoin(GroupMembership, GroupMembership.group_id == StudyGroup.id)
        .where(StudyGroup.workspace_id == ws.id)
        .group_by(StudyGroup.id, StudyGroup.name)
        .order_by(StudyGroup.name)
    )
    return [GroupInfo(i, n, int(c)) for i, n, c in s.execute(q)]


def _count(s: Session, group_id: int) -> int:
    return int(
        s.scalar(select(func.count()).select_from(GroupMembership).where(GroupMembership.group_id == group_id)) or 0
    )


@dataclass(frozen=True, slots=True)
class GroupAction:
    """One person's group request, in plain platform ids."""

    action: str  # list | create | join | leave | find
    name: str
    platform: str
    workspace: str
    user: str
    user_name: str
    channel: str | None = None  # create: the channel its drills post in
    channel_name: str = ""
    workspace_name: str = ""  # a workspace created by this action is named so


def act(db: Database, req: GroupAction, now: datetime) -> tuple[int, list[GroupInfo]]:
    """Run a group action in one transaction: (workspace id, the groups it concerns: all of them for `list`,
    else the one acted on). Raises GroupError."""
    with db.session() as s:
        ws = repo.workspace(s, req.platform, req.workspace, req.workspace_name, now)
        if req.action == "list":
            return ws.id, list_groups(s, ws)
        if req.action == "create":
            ch = repo.channel(s, ws, req.channel, req.channel_name) if req.channel else None
            info = create(s, ws, req.name, req.user, req.user_name, now, channel_id=ch.id if ch else None)
        elif req.action == "join":
            info = join(s, ws, req.name, req.user, req.user_name, now)
        elif req.action == "leave":
            info = leave(s, ws, req.name, req.user)
        else:
            g = find(s, ws, req.name)
            info = GroupInfo(g.id, g.name, _count(s, g.id))
        return ws.id, [info]
