"""Typed settings, read from the environment once, in the composition root (never at import)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class CoreSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TRACEDRILL_", extra="ignore")

    database_url: str | None = Field(default=None, validation_alias="DATABASE_URL")
    answer_seconds: int = Field(default=120, ge=10, le=24 * 3600)
    theme: str = Field(default="light", pattern="^(light|dark)$")
    render_dir: Path | None = None  # shared on-disk render cache; None: memory only
    no_upgrade: bool = False  # skip `alembic upgrade head` on start
    # Replicas: the leader lock is per deployment (default: the database schema's name).
    deployment: str | None = None
    leader_poll_seconds: float = Field(default=5.0, gt=0)  # how often the leader proves its lock
    sweep_seconds: float = Field(default=15.0, gt=0)  # re-sync schedules, reveal overdue, add reveal jobs
    leader_stale_seconds: float = Field(default=30.0, gt=0)  # a leader silent this long is replaced


class ServeSettings(BaseSettings):
    """How `tracedrill serve` runs, from TRACEDRILL_* variables; its command-line flags override them."""

    model_config = SettingsConfigDict(env_prefix="TRACEDRILL_", extra="ignore")

    platform: str = "slack"  # slack, discord, or slack,discord
    http_port: int | None = Field(default=None, ge=1, le=65535)  # set: Slack runs in HTTP mode on this port
    health_port: int | None = Field(default=None, ge=1, le=65535)  # /healthz and /readyz when no HTTP app runs
    host: str = "0.0.0.0"

    @property
    def platforms(self) -> list[str]:
        return [p.strip().lower() for p in self.platform.split(",") if p.strip()]
