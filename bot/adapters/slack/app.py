"""The Slack app: builds Bolt's AsyncApp (OAuth or single-workspace) and registers the listeners.

Every handler acks first and works afterwards (Bolt lazy listeners, or the adapter's Runner), so Slack gets its
response within 3 seconds even when the database or the drawing is slow.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_sdk.errors import SlackApiError

from ...drills.engine import Drills
from ...drills.service import TeamService
from ...prep.root import PrepServices
from ..common.runner import Runner
from .appeals import AppealListeners
from .chat import SlackChat, TokenLookup, make_client
from .drill_listeners import DrillListeners
from .grid import Enterprises
from .home_listeners import HomeListeners
from .installation import ThreadedInstallationStore, ThreadedStateStore
from .lazy import track_lazy_listeners
from .prep import PrepListeners, SlackPrepChat
from .replay import ReplayGuard
from .replies import SLACK_ERRORS
from .settings import SlackSettings

log = logging.getLogger(__name__)
PLATFORM = "slack"
# im:write opens the DM that carries private feedback; users:read gives display names and admin flags.
BOT_SCOPES = [
    "commands",
    "chat:write",
    "files:write",
    "files:read",
    "channels:history",
    "groups:history",
    "users:read",
    "im:write",
]


@dataclass
class SlackRuntime:
    app: AsyncApp
    chat: SlackChat
    installations: ThreadedInstallationStore | None
    states: ThreadedStateStore | None = None
    runner: Runner | None = None

    async def close(self) -> None:
        """Stop the work still running after its ack, then the chat client's own tasks."""
        if self.runner is not None:
            await self.runner.close()
        await self.chat.close()


def build_slack(
    engine: Drills, service: TeamService, settings: SlackSettings, prep: PrepServices | None = None
) -> SlackRuntime:
    installations = None
    states = None
    if settings.oauth:
        assert settings.client_id is not None
        installations = ThreadedInstallationStore(
            settings.client_id, engine.db.engine, on_install=service.enable_workspace_for_install
        )
        states = ThreadedStateStore(engine.db.engine)
        app, token_for = _oauth_app(settings, service, installations, states)
    else:
        app, token_for = _single_workspace_app(settings)
    chat = SlackChat(token_for, settings.api_url, update_every=settings.update_every_seconds)
    runner = Runner(SLACK_ERRORS, log)
    _register(app, engine, service, settings, chat, runner, installations, prep)
    return SlackRuntime(app, chat, installations, states, runner)


def _oauth_app(
    settings: SlackSettings,
    service: TeamService,
    store: ThreadedInstallationStore,
    states: ThreadedStateStore,
) -> tuple[AsyncApp, TokenLookup]:
    assert settings.client_id is not None
    assert settings.client_secret is not None
    oauth = AsyncOAuthSettings(
        client_id=settings.client_id,
        client_secret=settings.client_secret.get_secret_value(),
        scopes=BOT_SCOPES,
        installation_store=store,
        state_store=states,
    )
    app = AsyncApp(
        signing_secret=_secret(settings.signing_secret),
        oauth_settings=oauth,
        client=make_client(None, settings.api_url),
        process_before_response=False,
    )

    async def token_for(team: str) -> str | None:
        # Enterprise Grid: the install is keyed by (enterprise, team), or by the enterprise alone when
        # the app was installed org-wide (is_enterprise_install).
        enterprise = await service.enterprise_of(PLATFORM, team)
        bot = await store.async_find_bot(enterprise_id=enterprise, team_id=team)
        if bot is None and enterprise:
            bot = await store.async_find_bot(enterprise_id=enterprise, team_id=None, is_enterprise_install=True)
        return bot.bot_token if bot else None

    return app, token_for


def _single_workspace_app(settings: SlackSettings) -> tuple[AsyncApp, TokenLookup]:
    token = _secret(settings.bot_token)
    # Socket Mode needs no signing secret; without one, a random secret makes sure no HTTP request can
    # ever verify (a constant would be a shared password).
    app = AsyncApp(
        signing_secret=_secret(settings.signing_secret) or secrets.token_hex(32),
        client=make_client(token, settings.api_url),
        process_before_response=False,
    )

    async def token_for(team: str) -> str | None:
        return token

    return app, token_for


def _register(
    app: AsyncApp,
    engine: Drills,
    service: TeamService,
    settings: SlackSettings,
    chat: SlackChat,
    runner: Runner,
    installations: ThreadedInstallationStore | None,
    prep: PrepServices | None,
) -> None:
    app.use(ReplayGuard().middleware)
    app.error(_log_error)
    track_lazy_listeners(app, runner)
    if prep is not None:  # first: its `/trace math|interview` listener must match before the drill one
        PrepListeners(prep, runner).register(app)
        prep.math.chats[PLATFORM] = prep.interview.chats[PLATFORM] = SlackPrepChat(chat)
    enterprises = Enterprises(service, runner)
    home = HomeListeners(engine, service, chat, enterprises)
    home.register(app)
    DrillListeners(engine, service, settings, chat, runner, enterprises, home, installations).register(app)
    home.appeal_section = AppealListeners(engine, runner, home.publish_for).register(app)


async def _log_error(error: Exception, body: dict[str, Any]) -> None:
    """Whatever a listener did not handle: logged (a Slack API refusal in one line), never shown to anyone."""
    what = body.get("type") or body.get("command") or "request"
    if isinstance(error, SlackApiError):
        log.warning("%s: Slack refused a call: %s", what, error.response.get("error"))
    else:
        log.error("%s: a listener failed", what, exc_info=error)


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None
