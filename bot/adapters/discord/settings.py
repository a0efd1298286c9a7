"""Discord settings, from DISCORD_* environment variables."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import NoDecode

from ...settings import EnvSettings, env_config


class DiscordSettings(EnvSettings):
    model_config = env_config("DISCORD_")

    token: SecretStr | None = None
    # Sync the commands to these guilds at once (development); DISCORD_GUILD_IDS=1,22,333.
    guild_ids: Annotated[list[int], NoDecode] = Field(default_factory=list)
    sharded: bool = False  # AutoShardedClient for large deployments
    max_answer_chars: int = Field(default=4000, ge=1, le=4000)  # Discord's TextInput takes at most 4,000

    @field_validator("guild_ids", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return [int(v) for v in value.replace(" ", "").split(",") if v]
        return value
