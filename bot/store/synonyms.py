"""Workspace synonyms in the database: wordings a reviewer accepted on appeal and chose to remember. Session-level
helpers, composed into the transactions that grade a reply (drills) and rule on an appeal (appeals)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import WorkspaceSynonym


def extra_phrases(s: Session, workspace_id: int, signature: str) -> dict[str, tuple[str, ...]]:
    """{part: phrases}, oldest first."""
    rows = s.execute(
        select(WorkspaceSynonym.part, WorkspaceSynonym.phrase)
        .where(WorkspaceSynonym.workspace_id == workspace_id, WorkspaceSynonym.signature == signature)
        .order_by(WorkspaceSynonym.id)
    ).all()
    found: dict[str, list[str]] = {}
    for part, phrase in rows:
        found.setdefault(part, []).append(phrase)
    return {k: tuple(v) for k, v in found.items()}


def remember_phrase(
    s: Session, workspace_id: int, signature: str, part: str, phrase: str, appeal_id: int, by: str, now: datetime
) -> None:
    """Add the phrase unless the workspace already has it for this signature and part."""
    exists = s.scalars(
        select(WorkspaceSynonym).where(
            WorkspaceSynonym.workspace_id == workspace_id,
            WorkspaceSynonym.signature == signature,
            WorkspaceSynonym.part == part,
            WorkspaceSynonym.phrase == phrase,
        )
    ).first()
    if exists is None:
        s.add(
            WorkspaceSynonym(
                workspace_id=workspace_id,
                signature=signature,
                part=part,
                phrase=phrase,
                appeal_id=appeal_id,
                created_by=by,
                created_at=now,
            )
        )
