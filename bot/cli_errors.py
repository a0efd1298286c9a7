"""The one place where the CLI turns known failures into a line (and a hint), exit code 1, no traceback.

A person who mistyped DATABASE_URL needs the reason and what to change, not 120 lines of SQLAlchemy internals. Every
command runs inside FriendlyGroup.invoke, so no command maps errors itself; anything unknown is a bug and keeps its
traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

URL_HINT = "use sqlite:///path/to/file.sqlite3 or postgresql://USER@HOST:5432/DBNAME (DATABASE_URL or --database-url)"
CONNECT_HINT = "is the server running, and are the host and port in DATABASE_URL right?"
SCHEMA_HINT = "run `tracedrill db upgrade`"

# What the database driver said (lowercased; every word must appear) → our line ({said}: the driver's own words) and
# the hint. The first match wins; a driver error matching none is a plain "database error".
DRIVER_SAYS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        ("unable to open database file",),
        "cannot open the SQLite database file",
        "check that its folder exists and is writable, or point DATABASE_URL elsewhere",
    ),
    (("readonly database",), "the SQLite database is read-only", "make the file and its folder writable by this user"),
    (("read-only",), "the SQLite database is read-only", "make the file and its folder writable by this user"),
    (("does not exist", "role"), "PostgreSQL: {said}", "check the user name in DATABASE_URL"),
    (("does not exist", "database"), "PostgreSQL: {said}", "create it (createdb NAME) or fix the name in DATABASE_URL"),
    (("password authentication failed",), "PostgreSQL: {said}", "check the user and password in DATABASE_URL"),
    (("connection refused",), "cannot connect to the database: {said}", CONNECT_HINT),
    (("could not connect",), "cannot connect to the database: {said}", CONNECT_HINT),
    (("connection failed",), "cannot connect to the database: {said}", CONNECT_HINT),
    (("timeout",), "cannot connect to the database: {said}", CONNECT_HINT),
    (("name or service not known",), "cannot connect to the database: {said}", CONNECT_HINT),
    (("no such table",), "the database schema is missing or old: {said}", SCHEMA_HINT),
    (("undefinedtable",), "the database schema is missing or old: {said}", SCHEMA_HINT),
    (("relation", "does not exist"), "the database schema is missing or old: {said}", SCHEMA_HINT),
)


class FriendlyError(click.ClickException):
    """`Error: …` then `Hint: …`; exit code 1."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint

    def format_message(self) -> str:
        return f"{self.message}\nHint: {self.hint}"


def _one_line(text: str, limit: int = 200) -> str:
    return " ".join(text.split())[:limit]


def _driver_message(exc: BaseException) -> str:
    """The database's own words: psycopg's FATAL line, or sqlite3's message, without SQL or parameters."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig)
    fatal = re.search(r"FATAL:\s*(.+)", text)
    if fatal:
        return _one_line(fatal.group(1))
    return _one_line(text.splitlines()[0] if text else type(orig).__name__)


def _database_error(exc: BaseException) -> FriendlyError:
    said = _driver_message(exc)
    low = said.lower()
    for words, line, hint in DRIVER_SAYS:
        if all(word in low for word in words):
            return FriendlyError(line.format(said=said), hint)
    return FriendlyError(f"database error: {said}", "check DATABASE_URL and that the database is reachable")


def friendly(exc: BaseException) -> FriendlyError | None:
    """The line and hint for a database, URL, driver or text failure, or None."""
    # Imported on the error path only: this module loads with every command (even --help), SQLAlchemy is heavy.
    from sqlalchemy import exc as sa

    from .store.db import DatabaseUrlError

    if isinstance(exc, DatabaseUrlError):
        return FriendlyError(str(exc), URL_HINT)
    if isinstance(exc, sa.ArgumentError | sa.NoSuchModuleError):
        return FriendlyError(f"bad database URL: {_one_line(str(exc))}", URL_HINT)
    if isinstance(exc, sa.DBAPIError):
        return _database_error(exc)
    if isinstance(exc, UnicodeError):
        return FriendlyError(f"unreadable text: {_one_line(str(exc), 120)}", "send UTF-8 text")
    return None


def user_error(exc: BaseException) -> click.ClickException | None:
    """What a command's failure means for the person who ran it, or None when it is a bug."""
    # Imported on the error path only (start-up time): pydantic, the analyzer and numpy are not needed for --help.
    from pydantic import ValidationError

    from .analyze.service import AnalysisError
    from .drills.errors import DrillError
    from .settings import ConfigError, describe, is_settings_error

    if isinstance(exc, DrillError | AnalysisError | ConfigError):  # our own errors: the message is for a person
        return click.ClickException(str(exc))
    if isinstance(exc, ValidationError) and is_settings_error(exc):
        return click.ClickException(describe(exc))
    return friendly(exc)


@contextmanager
def writing(target: str) -> Iterator[None]:
    """Writing a command's output: `cannot write <target>: <reason>` when the file or folder refuses."""
    try:
        yield
    except OSError as exc:
        raise click.ClickException(f"cannot write {target}: {exc.strerror or exc}") from exc


class FriendlyGroup(click.Group):
    """The top-level group: every subcommand's known failures become one line (and a hint), exit code 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as exc:
            nice = user_error(exc)
            if nice is None:
                raise
            raise nice from exc
