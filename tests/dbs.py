"""Database fixtures: a temporary SQLite file always, and the real PostgreSQL (each test in its own schema, so
parallel workers and helpers never collide).

PostgreSQL is TEST_DATABASE_URL when set — unreachable, its tests fail, never skip — else the local server at
LOCAL_POSTGRES when it answers. When neither is there, every PostgreSQL case is still collected and reported as
skipped with the reason, and the report header says so: they never vanish silently."""

from __future__ import annotations

import functools
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from bot.store.db import Database, normalize_url
from bot.store.migrate import upgrade

LOCAL_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@functools.cache
def postgres_url() -> tuple[str | None, str]:
    """(URL to test on or None, one line saying which and why)."""
    given = os.environ.get("TEST_DATABASE_URL")
    if given:
        return given, f"PostgreSQL tests on TEST_DATABASE_URL={_shown(given)}"
    try:
        import psycopg

        with psycopg.connect(LOCAL_POSTGRES.replace("+psycopg", ""), connect_timeout=2):
            pass
    except Exception as exc:
        reason = " ".join(str(exc).split())[:120]
        return None, (
            f"PostgreSQL tests SKIPPED: no TEST_DATABASE_URL and the local server {LOCAL_POSTGRES} "
            f"does not answer ({reason})"
        )
    return LOCAL_POSTGRES, f"PostgreSQL tests on the local server {LOCAL_POSTGRES} (set TEST_DATABASE_URL to change)"


def pg_url() -> str:
    """The PostgreSQL URL the suite runs on (a test that needs its own engine; the fixture already skipped if none)."""
    url, why = postgres_url()
    assert url is not None, why
    return url


def _shown(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def backends() -> list[Any]:
    url, why = postgres_url()
    if url is None:
        return ["sqlite", pytest.param("postgresql", marks=pytest.mark.skip(reason=why))]
    return ["sqlite", "postgresql"]


def make_database(kind: str, tmp_path: Path, *, migrate: bool = True) -> Iterator[Database]:
    if kind == "sqlite":
        db = Database(f"sqlite:///{tmp_path / 'test.sqlite3'}")
        if migrate:
            upgrade(db)
        yield db
        db.dispose()
        return
    given, _ = postgres_url()
    assert given is not None
    url = normalize_url(given)
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine = create_engine(url, connect_args={"options": f"-csearch_path={schema}"}, pool_size=10, max_overflow=20)
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
