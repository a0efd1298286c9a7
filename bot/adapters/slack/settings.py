"""Slack settings, from SLACK_* environment variables."""

from __future__ import annotations

from pydantic import Field, SecretStr

from ...settings import EnvSettings, env_config


class SlackSettings(EnvSettings):
    model_config = env_config("SLACK_")

    bot_token: SecretStr | None = None  # single workspace (Socket Mode or HTTP)
    signing_secret: SecretStr | None = None  # HTTP mode: verifies every request
    app_token: SecretStr | None = None  # Socket Mode
    client_id: str | None = None  # OAuth multi-workspace install
    client_secret: SecretStr | None = None
    api_url: str = "https://slack.com/api/"  # Web API base URL (GovSlack, proxies, tests)
    # Slack's plain_text_input takes at most 3,000 characters: a larger limit would make views.open fail.
    max_answer_chars: int = Field(default=3000, ge=1, le=3000)
    update_every_seconds: float = 30.0  # cadence of the remaining-time line
    # Where shared files may be downloaded from (with the bot token): Slack's and GovSlack's file hosts.
    file_hosts: list[str] = Field(default_factory=lambda: ["https://files.slack.com", "https://files.slack-gov.com"])

    @property
    def oauth(self) -> bool:
        return bool(self.client_id and self.client_secret)

    def secrets(self) -> list[str]:
        return [
            s.get_secret_value()
            for s in (self.bot_token, self.signing_secret, self.app_token, self.client_secret)
            if s is not None
        ]
