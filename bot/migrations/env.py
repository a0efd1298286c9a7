"""Alembic environment: the models' metadata, and the URL (or an open connection) from the caller."""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import engine_from_config, pool

from bot.store.db import default_database_url, normalize_url
from bot.store.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_offline() -> None:
    url = normalize_url(
        config.get_main_option("sqlalchemy.url") or os.environ.get("DATABASE_URL") or default_database_url()
    )
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:  # handed over by bot.store.migrate
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = normalize_url(
        config.get_main_option("sqlalchemy.url") or os.environ.get("DATABASE_URL") or default_database_url()
    )
    engine = engine_from_config({"sqlalchemy.url": url}, prefix="sqlalchemy.", poolclass=pool.NullPool)
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
