"""Building the core for local (terminal) use: the database, migrations, the engine with TerminalChat."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from platformdirs import user_cache_dir

from .adapters.terminal.chat import PLATFORM, TerminalChat
from .drills.engine import Drills
from .settings import CoreSettings
from .store.db import Database
from .store.migrate import upgrade


def pictures_dir() -> Path:
    if os.environ.get("TRACEDRILL_OUT"):
        return Path(os.environ["TRACEDRILL_OUT"])
    return Path(user_cache_dir("tracedrill", appauthor=False)) / "pictures"


def open_database(url: str | None, settings: CoreSettings | None = None) -> Database:
    settings = settings or CoreSettings()
    db = Database(url or settings.database_url)
    if not settings.no_upgrade:
        upgrade(db)
    return db


def local_engine(url: str | None, echo: Callable[[str], None] = print) -> tuple[Drills, TerminalChat]:
    settings = CoreSettings()
    db = open_database(url, settings)
    chat = TerminalChat(pictures_dir(), echo)
    engine = Drills(db, {PLATFORM: chat}, answer_seconds=settings.answer_seconds, theme=settings.theme)
    return engine, chat
