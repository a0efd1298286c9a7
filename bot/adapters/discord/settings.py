"""Discord settings, from DISCORD_* environment variables."""

from __future__ import annotations

from typing import Annotated

from pydantic import SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class DiscordSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DISCORD_", extra="ignore")

    token: SecretStr | None = None
    guild_ids: Annotated[list[int], NoDecode] = []  # sync commands to these guilds at once (development)
    sharded: bool = False  # AutoShardedClient for large deployments
    max_answer_chars: int = 4000  # Discord's TextInput limit

    @field_validator("guild_ids", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return [int(v) for v in value.replace(" ", "").split(",") if v]
        return value
