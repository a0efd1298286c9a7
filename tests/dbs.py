"""Database fixtures: a temporary SQLite file always, and the real PostgreSQL (each test on a schema no other
running test uses, so parallel workers and helpers never collide).

A test gets a copy of a migrated SQLite file and, on PostgreSQL, a migrated schema emptied after the last test
that used it (tests/pg_pool.py): migrating for every test cost more than half a second each.

PostgreSQL is TEST_DATABASE_URL when set — unreachable, its tests fail, never skip — else the local server at
LOCAL_POSTGRES when it answers. When neither is there, every PostgreSQL case is still collected and reported as
skipped with the reason, and the report header says so: they never vanish silently."""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from bot.store.db import Database, normalize_url
from bot.store.migrate import upgrade

from .pg_pool import SchemaPool, new_schema

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
        path = tmp_path / "test.sqlite3"
        if migrate:
            shutil.copyfile(_migrated_sqlite(), path)
        db = Database(f"sqlite:///{path}")
        yield db
        db.dispose()
        return
    given, _ = postgres_url()
    assert given is not None
    if not migrate:
        schema = new_schema(_pool().admin)
        try:
            yield from _on_schema(schema)
        finally:
            _pool().drop(schema)
        return
    with _pool().lease(_migrate_schema) as schema:
        yield from _on_schema(schema)


def _on_schema(schema: str) -> Iterator[Database]:
    """A Database on one schema; its connections carry the schema's name, so any left open can be found."""
    args = {"options": f"-csearch_path={schema}", "application_name": schema}
    db = Database(engine=create_engine(_pool().url, connect_args=args, pool_size=10, max_overflow=20))
    try:
        yield db
    finally:
        db.dispose()


def _migrate_schema(schema: str) -> None:
    for db in _on_schema(schema):
        upgrade(db)


@functools.cache
def _pool() -> SchemaPool:
    """This process's migrated PostgreSQL schemas (dropped at the end of the session: `close_databases`)."""
    return SchemaPool(normalize_url(pg_url()))


@functools.cache
def _migrated_sqlite() -> Path:
    """One migrated SQLite file per process, copied for each test (the copy is what `upgrade` would give)."""
    path = Path(tempfile.mkdtemp(prefix="tracedrill-template-")) / "migrated.sqlite3"
    db = Database(f"sqlite:///{path}")
    upgrade(db)
    db.dispose()  # the last connection's close checkpoints the WAL into the file
    assert not path.with_name(path.name + "-wal").exists(), "the template must be one self-contained file"
    return path


def close_databases() -> None:
    """At the end of the session: this process's free schemas dropped, its SQLite template removed."""
    if _pool.cache_info().currsize:
        _pool().close()
    if _migrated_sqlite.cache_info().currsize:
        shutil.rmtree(_migrated_sqlite().parent, ignore_errors=True)


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
