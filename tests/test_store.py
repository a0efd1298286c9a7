"""Persistence on SQLite and PostgreSQL: migrations match the models, downgrade works, isolation holds."""

from __future__ import annotations

import os

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from bot.store.db import Database, normalize_url, session_name
from bot.store.migrate import downgrade, upgrade
from bot.store.models import Base


def _diff(db: Database) -> list[object]:
    with db.engine.connect() as conn:
        ctx = MigrationContext.configure(
            conn,
            opts={
                "compare_type": True,
                "compare_server_default": True,
                "include_name": lambda name, kind, _p: name != "apscheduler_jobs",
            },
        )
        return list(compare_metadata(ctx, Base.metadata))


def test_upgrade_head_is_exactly_the_models_schema(empty_database: Database) -> None:
    upgrade(empty_database)
    assert _diff(empty_database) == []
    tables = set(inspect(empty_database.engine).get_table_names())
    assert set(Base.metadata.tables) <= tables


def test_downgrade_removes_everything_and_upgrade_again_works(empty_database: Database) -> None:
    upgrade(empty_database)
    downgrade(empty_database, "base")
    left = set(inspect(empty_database.engine).get_table_names()) - {"alembic_version"}
    assert not left & set(Base.metadata.tables)
    upgrade(empty_database)
    assert _diff(empty_database) == []


def test_database_urls_people_paste_are_understood() -> None:
    assert normalize_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("sqlite:///x.db") == "sqlite:///x.db"


def test_each_engine_names_its_sessions_uniquely_and_keeps_the_url_s_name() -> None:
    plain = session_name("postgresql+psycopg://u@h/db")
    assert plain.startswith(f"tracedrill/{os.getpid()}-") and plain != session_name("postgresql+psycopg://u@h/db")
    named = session_name("postgresql+psycopg://u@h/db?application_name=" + "x" * 80)
    assert len(named) == 63 and named.startswith("xxx")  # PostgreSQL keeps 63 bytes: the tag survives
    assert named.rsplit("/", 1)[1].startswith(f"{os.getpid()}-")
    accented = session_name("postgresql+psycopg://u@h/db?application_name=" + "é" * 70)
    assert accented.isascii() and len(accented.encode()) <= 63 and accented.startswith("/")
