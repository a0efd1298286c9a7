"""Running Alembic from code: `tracedrill db upgrade` and the app's upgrade on start."""

from __future__ import annotations

import os
from pathlib import Path

from alembic import command
from alembic.config import Config

from .db import Database


def migrations_dir() -> Path:
    candidates = [
        Path(os.environ["TRACEDRILL_MIGRATIONS"]) if os.environ.get("TRACEDRILL_MIGRATIONS") else None,
        Path(__file__).resolve().parents[2] / "migrations",  # a source checkout or editable install
        Path.cwd() / "migrations",
    ]
    for c in candidates:
        if c is not None and (c / "env.py").exists():
            return c
    raise FileNotFoundError("cannot find the migrations folder; set TRACEDRILL_MIGRATIONS")


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
