"""Small named values kept across restarts (the bot_state table)."""

from __future__ import annotations

from datetime import datetime

from .db import Database
from .models import BotState


def get(db: Database, key: str) -> str | None:
    with db.session() as s:
        row = s.get(BotState, key)
        return row.value if row is not None else None


def put(db: Database, key: str, value: str, now: datetime) -> None:
    with db.session() as s:
        row = s.get(BotState, key)
        if row is None:
            s.add(BotState(key=key, value=value, updated_at=now))
        else:
            row.value, row.updated_at = value, now
