"""Database fixtures: a temporary SQLite file always, and the real PostgreSQL when TEST_DATABASE_URL is set
(each test in its own schema). If TEST_DATABASE_URL is set but unreachable, tests fail — never skip."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from bot.store.db import Database, normalize_url
from bot.store.migrate import upgrade


def backends() -> list[str]:
    return ["sqlite", "postgresql"] if os.environ.get("TEST_DATABASE_URL") else ["sqlite"]


def make_database(kind: str, tmp_path: Path, *, migrate: bool = True) -> Iterator[Database]:
    if kind == "sqlite":
        db = Database(f"sqlite:///{tmp_path / 'test.sqlite3'}")
        if migrate:
            upgrade(db)
        yield db
        db.dispose()
        return
    url = normalize_url(os.environ["TEST_DATABASE_URL"])
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine = create_engine(url, connect_args={"options": f"-csearch_path={schema}"}, pool_size=10,
                           max_overflow=20)
    db = Database(engine=engine)
    try:
        if migrate:
            upgrade(db)
        yield db
    finally:
        db.dispose()
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=backends())
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    yield from make_database(str(request.param), tmp_path)


@pytest.fixture(params=backends())
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    yield from make_database(str(request.param), tmp_path, migrate=False)


class WriteLock:
    """Another writer holding a table (SQLite: the whole database) until released: real lock contention."""

    def __init__(self, db: Database, table: str) -> None:
        url = db.engine.url
        if db.is_sqlite:
            self._engine = create_engine(url)
            self.conn = self._engine.raw_connection()
            self.conn.execute("BEGIN EXCLUSIVE")
        else:
            with db.engine.connect() as c:
                schema = str(c.execute(text("SELECT current_schema()")).scalar())
            self._engine = create_engine(url, connect_args={"options": f"-csearch_path={schema}"})
            self.conn = self._engine.raw_connection()
            self.conn.cursor().execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
        self.schema = None if db.is_sqlite else schema

    def release(self) -> None:
        self.conn.rollback()
        self.conn.close()
        self._engine.dispose()
