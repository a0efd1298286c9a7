"""Engines and sessions: the embedded SQLite default and PostgreSQL (psycopg 3) at scale."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

SUPPORTED_BACKENDS = ("sqlite", "postgresql")
StoreError = SQLAlchemyError  # what a failed store call raises (the layers above never name SQLAlchemy)


class DatabaseUrlError(ValueError):
    """DATABASE_URL is not a URL we can use; the message is one line."""


def default_database_url() -> str:
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("tracedrill", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'tracedrill.sqlite3'}"


def normalize_url(url: str) -> str:
    """Accept the URLs people paste: postgres:// and postgresql:// mean psycopg 3."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


PG_KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 30_000,
}


def session_name(url: str) -> str:
    """The application_name every connection of one engine carries: the URL's own name (or "tracedrill") plus
    this process and a random tag. It marks one replica's sessions, so a follower replacing a hung leader can end
    all of them — a leader stopped mid-write holds row locks on its pool connections too."""
    wanted = make_url(url).query.get("application_name") or "tracedrill"
    base = "".join(c for c in str(wanted) if " " <= c <= "~")  # PostgreSQL escapes the rest, lengthening the name
    tag = f"/{os.getpid()}-{secrets.token_hex(8)}"  # containers often run every replica as pid 1
    return base[: 63 - len(tag)] + tag  # PostgreSQL keeps 63 bytes of it


def check_url(url: str) -> None:
    """Refuse a malformed URL or another database (mysql://…) before any driver is imported."""
    try:
        backend = make_url(url).get_backend_name()
    except ArgumentError as exc:
        raise DatabaseUrlError("the database URL is malformed (expected scheme://…)") from exc
    if backend not in SUPPORTED_BACKENDS:
        raise DatabaseUrlError(f"{backend} databases are not supported; tracedrill runs on SQLite or PostgreSQL")


def make_engine(url: str | None = None) -> Engine:
    url = normalize_url(url or default_database_url())
    check_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, hide_parameters=True)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        return engine
    # hide_parameters: SQL errors never carry bound values (tokens, answers) into logs or tracebacks.
    # Keepalives: a dead server or network shows up as an error within ~30 s instead of a hang, which is
    # what lets the scheduler's leader notice it lost its lock connection.
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=10,
        hide_parameters=True,
        connect_args={**PG_KEEPALIVES, "application_name": session_name(url)},
    )


def begin_write(s: Session) -> None:
    """Before a SAVEPOINT: make sure the session's transaction has really begun. pysqlite sends BEGIN only before
    the first INSERT/UPDATE, so a SAVEPOINT opened first is the outermost one and its RELEASE commits at once —
    half an operation stays when the rest fails. IMMEDIATE: this transaction is about to write; it waits its turn
    instead of failing when another writer commits between its reads and its writes."""
    conn = s.connection()
    if conn.dialect.name == "sqlite":
        raw = conn.connection.dbapi_connection
        if raw is not None and not raw.in_transaction:
            conn.exec_driver_sql("BEGIN IMMEDIATE")


class Database:
    """An engine plus a session factory; `session()` commits on success and rolls back on error."""

    def __init__(self, url: str | None = None, engine: Engine | None = None) -> None:
        self.engine = engine or make_engine(url)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @contextmanager
    def session(self, *, immediate: bool = False) -> Iterator[Session]:
        """`immediate=True` takes SQLite's write lock before the first read (BEGIN IMMEDIATE), so a
        read-then-write transaction can't act on a row another writer changes meanwhile. PostgreSQL callers
        lock the rows they decide on with SELECT … FOR UPDATE instead."""
        s = self._sessions()
        try:
            if immediate and self.is_sqlite:
                s.connection().exec_driver_sql("BEGIN IMMEDIATE")
            yield s
            s.commit()
        except BaseException:
            s.rollback()
            raise
        finally:
            s.close()

    def dispose(self) -> None:
        self.engine.dispose()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await asyncio.to_thread(self.dispose)
