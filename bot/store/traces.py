"""Teams' own traces, kept so drills can be made from them (content-addressed per workspace)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from . import repo
from .addresses import ChannelAddress
from .db import Database
from .models import TraceUpload


@dataclass(frozen=True, slots=True)
class StoredTrace:
    id: int
    signature: str  # the analysis' top finding: the drill's answer


@dataclass(frozen=True, slots=True)
class TraceFile:
    filename: str
    data: bytes


def store(
    db: Database, where: ChannelAddress, filename: str, data: bytes, signature: str, now: datetime
) -> StoredTrace:
    """Keep the trace in the channel's workspace; the same bytes there keep their first id and signature."""
    digest = hashlib.sha256(data).hexdigest()
    with db.session() as s:
        ws = repo.workspace(s, where.platform, where.workspace, "", now)
        found = s.scalars(
            select(TraceUpload).where(TraceUpload.workspace_id == ws.id, TraceUpload.sha256 == digest)
        ).first()
        if found is not None:
            return StoredTrace(found.id, found.signature)
        upload = TraceUpload(
            workspace_id=ws.id, sha256=digest, filename=filename[:200], signature=signature, data=data, created_at=now
        )
        s.add(upload)
        s.flush()
        return StoredTrace(upload.id, signature)


def load(db: Database, trace_id: int) -> TraceFile | None:
    with db.session() as s:
        upload = s.get(TraceUpload, trace_id)
        return TraceFile(upload.filename, upload.data) if upload is not None else None
