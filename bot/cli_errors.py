"""One place where the CLI turns database, connection, URL and driver errors into a line and a hint (exit code 1).

A person who mistyped DATABASE_URL needs the reason and what to change, not 120 lines of SQLAlchemy internals.
"""

from __future__ import annotations

import re
from typing import Any

import click

URL_HINT = "use sqlite:///path/to/file.sqlite3 or postgresql://USER@HOST:5432/DBNAME (DATABASE_URL or --database-url)"


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


def friendly(exc: BaseException) -> FriendlyError | None:
    """The line and hint for a known kind of failure, or None (then it is a bug: let the traceback show)."""
    from sqlalchemy import exc as sa

    from .store.db import DatabaseUrlError

    if isinstance(exc, DatabaseUrlError):
        return FriendlyError(str(exc), URL_HINT)
    if isinstance(exc, sa.ArgumentError | sa.NoSuchModuleError):
        return FriendlyError(f"bad database URL: {_one_line(str(exc))}", URL_HINT)
    if isinstance(exc, sa.DBAPIError | sa.OperationalError):
        said = _driver_message(exc)
        low = said.lower()
        if "unable to open database file" in low:
            return FriendlyError(
                "cannot open the SQLite database file",
                "check that its folder exists and is writable, or point DATABASE_URL elsewhere",
            )
        if "readonly database" in low or "read-only" in low:
            return FriendlyError(
                "the SQLite database is read-only", "make the file and its folder writable by this user"
            )
        if "does not exist" in low and "role" in low:
            return FriendlyError(f"PostgreSQL: {said}", "check the user name in DATABASE_URL")
        if "does not exist" in low and "database" in low:
            return FriendlyError(f"PostgreSQL: {said}", "create it (createdb NAME) or fix the name in DATABASE_URL")
        if "password authentication failed" in low:
            return FriendlyError(f"PostgreSQL: {said}", "check the user and password in DATABASE_URL")
        if (
            "connection refused" in low
            or "could not connect" in low
            or "connection failed" in low
            or "timeout" in low
            or "name or service not known" in low
        ):
            return FriendlyError(
                f"cannot connect to the database: {said}",
                "is the server running, and are the host and port in DATABASE_URL right?",
            )
        if "no such table" in low or "undefinedtable" in low or ("relation" in low and "does not exist" in low):
            return FriendlyError(f"the database schema is missing or old: {said}", "run `tracedrill db upgrade`")
        return FriendlyError(f"database error: {said}", "check DATABASE_URL and that the database is reachable")
    if isinstance(exc, UnicodeError):
        return FriendlyError(f"unreadable text: {_one_line(str(exc), 120)}", "send UTF-8 text")
    return None


class FriendlyGroup(click.Group):
    """The top-level group: every subcommand's known failures become FriendlyError."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort, KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:
            nice = friendly(exc)
            if nice is None:
                raise
            raise nice from exc
