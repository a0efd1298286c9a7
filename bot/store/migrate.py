"""Running Alembic from code: `tracedrill db upgrade` and the app's upgrade on start."""

from __future__ import annotations

import os
from pathlib import Path

from alembic import command
from alembic.config import Config

from .db import Database


def migrations_dir() -> Path:
    """The Alembic scripts ship inside the package (package data), so any install can upgrade its database."""
    override = os.environ.get("TRACEDRILL_MIGRATIONS")
    folder = Path(override) if override else Path(__file__).resolve().parents[1] / "migrations"
    if not (folder / "env.py").exists():
        raise FileNotFoundError(f"no Alembic environment in {folder}; reinstall or set TRACEDRILL_MIGRATIONS")
    return folder


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    return cfg


def upgrade(db: Database, revision: str = "head") -> None:
    cfg = alembic_config()
    with db.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def downgrade(db: Database, revision: str = "base") -> None:
    cfg = alembic_config()
    with db.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)
