"""The composition root: settings → database → engine → scheduler → adapters. Nothing else builds these."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from .drills.engine import DrillEngine
from .drills.service import TeamService
from .health import Health, serve_health
from .local import open_database
from .prep.root import PrepServices
from .render.cache import RenderCache
from .schedule.scheduler import DrillScheduler
from .settings import PLATFORMS, ConfigError, CoreSettings, ServeSettings, describe

log = logging.getLogger(__name__)


def build_core(settings: CoreSettings) -> tuple[DrillEngine, DrillScheduler, TeamService]:
    db = open_database(settings.database_url, settings)
    engine = DrillEngine(
        db,
        {},
        answer_seconds=settings.answer_seconds,
        theme=settings.theme,
        render_cache=RenderCache(directory=settings.render_dir),
    )
    scheduler = DrillScheduler(
        engine,
        poll_seconds=settings.leader_poll_seconds,
        sweep_seconds=settings.sweep_seconds,
        deployment=settings.deployment,
        stale_seconds=settings.leader_stale_seconds,
    )
    engine.on_started.append(scheduler.schedule_reveal)

    def resync() -> None:
        if scheduler.running:  # on a follower, the leader's next re-sync (≤ sweep_seconds) picks it up
            scheduler.sync_schedules()

    service = TeamService(engine, on_schedule_change=resync)
    return engine, scheduler, service


@dataclass(frozen=True)
class ServePlan:
    """What `serve` runs, resolved from flags over TRACEDRILL_* variables."""

    platforms: list[str]
    http: bool = False
    host: str = "0.0.0.0"
    port: int = 3000
    health_port: int | None = None


def plan_serve(
    settings: ServeSettings,
    *,
    platforms: str | None = None,
    http: bool | None = None,
    host: str | None = None,
    port: int | None = None,
    health_port: int | None = None,
) -> ServePlan:
    """Flags win over the environment; TRACEDRILL_HTTP_PORT alone selects Slack's HTTP mode."""
    chosen = [p.strip().lower() for p in platforms.split(",") if p.strip()] if platforms else settings.platforms
    http_mode = bool(http) or (http is None and settings.http_port is not None) or port is not None
    return ServePlan(
        platforms=chosen,
        http=http_mode,
        host=host or settings.host,
        port=port or settings.http_port or 3000,
        health_port=health_port if health_port is not None else settings.health_port,
    )


async def serve(plan: ServePlan) -> None:
    unknown = [p for p in plan.platforms if p not in PLATFORMS]
    if unknown or not plan.platforms:
        raise ConfigError(f"choose platforms from: {', '.join(PLATFORMS)} (TRACEDRILL_PLATFORM or --platform)")
    if "slack" in plan.platforms:
        _check_slack(plan.http)
    if "discord" in plan.platforms:
        _check_discord()
    settings = CoreSettings()
    engine, scheduler, service = build_core(settings)
    from .prep.root import build_prep
    from .schedule.prep_jobs import attach

    prep = build_prep(engine)
    attach(prep, scheduler)
    health = Health(engine.db.engine, is_leader=lambda: scheduler.running)
    runners = []
    if "slack" in plan.platforms:
        runners.append(await _start_slack(engine, service, scheduler, health, plan, prep))
    if "discord" in plan.platforms:
        runners.append(_start_discord(engine, service, health, prep))
    if plan.health_port is not None and not (plan.http and plan.health_port == plan.port):
        await serve_health(health, plan.host, plan.health_port)
    scheduler.start_background()
    try:
        await asyncio.gather(*runners)
    finally:
        await scheduler.stop()
        engine.db.dispose()


def _check_slack(http: bool) -> None:
    from pydantic import ValidationError

    from .adapters.slack.settings import SlackSettings

    try:
        settings = SlackSettings()
    except ValidationError as exc:  # e.g. a blank SLACK_SIGNING_SECRET, or SLACK_MAX_ANSWER_CHARS above 3,000
        raise ConfigError(describe(exc)) from None
    if http:
        if settings.signing_secret is None or not (settings.bot_token or settings.oauth):
            raise ConfigError(
                "HTTP mode needs SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN (or SLACK_CLIENT_ID and "
                "SLACK_CLIENT_SECRET for OAuth)"
            )
    elif settings.app_token is None or settings.bot_token is None:
        raise ConfigError("Socket Mode needs SLACK_APP_TOKEN and SLACK_BOT_TOKEN (or use --http)")


async def _start_slack(
    engine: DrillEngine,
    service: TeamService,
    scheduler: DrillScheduler,
    health: Health,
    plan: ServePlan,
    prep: PrepServices | None = None,
) -> Coroutine[Any, Any, Any]:
    from aiohttp import web

    from .adapters.slack.app import PLATFORM, build_slack
    from .adapters.slack.redact import install
    from .adapters.slack.settings import SlackSettings

    settings = SlackSettings()
    install(settings.secrets())
    runtime = build_slack(engine, service, settings, prep)
    engine.chats[PLATFORM] = runtime.chat
    if runtime.states is not None:
        scheduler.maintenance.append(runtime.states.purge_expired)
    if plan.http:
        web_app = runtime.app.web_app(path="/slack/events", port=plan.port)
        health.add_routes(web_app)
        runner = web.AppRunner(web_app)
        await runner.setup()
        await web.TCPSite(runner, plan.host, plan.port).start()
        health.platforms["slack"] = lambda: True  # HTTP mode: connected once the events endpoint listens
        log.info("Slack app listening on http://%s:%s/slack/events", plan.host, plan.port)
        return asyncio.Event().wait()
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

    assert settings.app_token is not None
    handler = AsyncSocketModeHandler(runtime.app, settings.app_token.get_secret_value())
    # The Socket Mode client keeps its websocket in `current_session`; connected while that is open.
    health.platforms["slack"] = lambda: _socket_open(handler)
    return handler.start_async()


def _socket_open(handler: object) -> bool:
    session = getattr(getattr(handler, "client", None), "current_session", None)
    return session is not None and not getattr(session, "closed", True)


def _check_discord() -> None:
    from .adapters.discord.settings import DiscordSettings

    if DiscordSettings().token is None:
        raise ConfigError("Discord needs DISCORD_TOKEN (the bot token from the Developer Portal)")


def _start_discord(
    engine: DrillEngine,
    service: TeamService,
    health: Health,
    prep: PrepServices | None = None,
) -> Coroutine[Any, Any, Any]:
    from .adapters.discord.bot import PLATFORM, TraceBot
    from .adapters.discord.settings import DiscordSettings
    from .adapters.slack.redact import install

    settings = DiscordSettings()
    assert settings.token is not None
    install([settings.token.get_secret_value()])
    bot = TraceBot(engine, service, settings)
    if prep is not None:
        from .adapters.discord.prep import register_prep

        register_prep(bot, prep)
    engine.chats[PLATFORM] = bot.chat
    health.platforms["discord"] = lambda: bot.client.is_ready() and not bot.client.is_closed()
    return bot.run(settings.token.get_secret_value())
