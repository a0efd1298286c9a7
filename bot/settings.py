"""Typed settings, read from the environment once, in the composition root (never at import).

Every settings class derives from EnvSettings and is configured by env_config(PREFIX): each field's alias is its
variable's name, so a validation error says which variable to fix, and describe() prints it as one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Self

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, SettingsConfigDict

PLATFORMS = ("slack", "discord")
Port = Annotated[int, Field(ge=1, le=65535)]

# The error type of our own checks: their message is written whole for a person, variable names included.
CONFIG_ERROR = "tracedrill_config"


class ConfigError(Exception):
    """The configuration cannot work (a missing token for the chosen mode, …); the message says what to set."""


def env_config(prefix: str) -> SettingsConfigDict:
    """Fields read from PREFIX_FIELD variables, settable by field name in code; other variables ignored."""
    return SettingsConfigDict(
        env_prefix=prefix,
        alias_generator=lambda field: f"{prefix}{field}".upper(),
        validate_by_name=True,
        extra="ignore",
    )


def config_error(message: str) -> PydanticCustomError:
    """A validation error whose message is shown as it is (describe() adds no variable name)."""
    return PydanticCustomError(CONFIG_ERROR, "{message}", {"message": message})


class EnvSettings(BaseSettings):
    """The base of every settings class: blank secrets are refused, and the CLI recognises its errors by it."""

    @model_validator(mode="after")
    def _no_blank_secrets(self) -> Self:
        """A blank secret is a mistake, not "no secret" (a blank signing secret would verify forged requests)."""
        blank = [
            str(info.alias)
            for name, info in type(self).model_fields.items()
            if isinstance(value := getattr(self, name), SecretStr) and not value.get_secret_value().strip()
        ]
        if blank:
            raise config_error(f"{', '.join(blank)} is set but empty; give the real value or unset it")
        return self


def is_settings_error(exc: ValidationError) -> bool:
    return exc.title in {cls.__name__ for cls in _subclasses(EnvSettings)}


def _subclasses(cls: type) -> set[type]:
    direct: set[type] = set(cls.__subclasses__())
    return direct.union(*(_subclasses(sub) for sub in direct))


def describe(exc: ValidationError) -> str:
    """The first problem in one line: our own message whole, or the variable's name and pydantic's message."""
    first = exc.errors()[0]
    if first["type"] == CONFIG_ERROR or not first["loc"]:
        return first["msg"]
    return f"{first['loc'][0]}: {first['msg']}"


class CoreSettings(EnvSettings):
    model_config = env_config("TRACEDRILL_")

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


class ServeSettings(EnvSettings):
    """How `tracedrill serve` runs, from TRACEDRILL_* variables; its command-line flags override them."""

    model_config = env_config("TRACEDRILL_")

    platform: str = "slack"  # slack, discord, or slack,discord
    http_port: Port | None = None  # set: Slack runs in HTTP mode on this port
    health_port: Port | None = None  # /healthz and /readyz when no HTTP app runs
    host: str = "0.0.0.0"

    @field_validator("platform")
    @classmethod
    def _known_platforms(cls, value: str) -> str:
        chosen = _split_platforms(value)
        if not chosen or any(p not in PLATFORMS for p in chosen):
            raise config_error(f"choose platforms from: {', '.join(PLATFORMS)} (TRACEDRILL_PLATFORM or --platform)")
        return value

    @property
    def platforms(self) -> list[str]:
        return _split_platforms(self.platform)


def _split_platforms(value: str) -> list[str]:
    return [p.strip().lower() for p in value.split(",") if p.strip()]
