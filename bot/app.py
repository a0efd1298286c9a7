"""The composition root: settings → database → engine → scheduler → adapters. Nothing else builds these."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import threading
from collections.abc import Coroutine
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

from .drills.engine import Drills
from .drills.service import TeamService
from .health import Health, serve_health
from .local import open_database
from .prep.root import PrepServices, build_prep
from .render.cache import RenderCache
from .schedule.prep_jobs import attach
from .schedule.scheduler import DrillScheduler
from .settings import PLATFORMS, ConfigError, CoreSettings, ServeSettings, describe

log = logging.getLogger(__name__)


def build_core(settings: CoreSettings) -> tuple[Drills, DrillScheduler, TeamService]:
    db = open_database(settings.database_url, settings)
    drills = Drills(
        db,
        {},
        answer_seconds=settings.answer_seconds,
        theme=settings.theme,
        render_cache=RenderCache(directory=settings.render_dir),
    )
    scheduler = DrillScheduler(
        drills,
        db.engine,  # the job store and the leader lock live on the app's own connections
        poll_seconds=settings.leader_poll_seconds,
        sweep_seconds=settings.sweep_seconds,
        deployment=settings.deployment,
        stale_seconds=settings.leader_stale_seconds,
    )
    drills.on_started.append(scheduler.schedule_reveal)
    service = TeamService(drills, on_schedule_change=scheduler.resync)
    return drills, scheduler, service


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
    """Run until a platform's runner ends, or SIGTERM (the container's stop); either way the scheduler, the
    adapters, the drill core and the database are closed, in that order: the scheduler first, so no job fires into
    an adapter that is closing (and a follower can lead sooner)."""
    unknown = [p for p in plan.platforms if p not in PLATFORMS]
    if unknown or not plan.platforms:
        raise ConfigError(f"choose platforms from: {', '.join(PLATFORMS)} (TRACEDRILL_PLATFORM or --platform)")
    if "slack" in plan.platforms:
        _check_slack(plan.http)
    if "discord" in plan.platforms:
        _check_discord()
    drills, scheduler, service = build_core(CoreSettings())
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(drills.db)
        await stack.enter_async_context(drills)
        runners = await _start_platforms(plan, drills, service, scheduler, stack)
        await stack.enter_async_context(scheduler)  # entered last, closed first
        scheduler.start_background()
        await _run_until_sigterm(runners)


async def _start_platforms(
    plan: ServePlan, drills: Drills, service: TeamService, scheduler: DrillScheduler, stack: AsyncExitStack
) -> list[Coroutine[Any, Any, Any]]:
    """Start each platform's adapter (its closing registered on `stack`); the coroutines that run them."""
    prep = build_prep(drills)
    attach(prep, scheduler)
    health = Health(drills.db.engine, is_leader=lambda: scheduler.running)
    runners = []
    if "slack" in plan.platforms:
        runners.append(await _start_slack(drills, service, scheduler, health, plan, prep, stack))
    if "discord" in plan.platforms:
        runners.append(_start_discord(drills, service, health, prep, stack))
    if plan.health_port is not None and not (plan.http and plan.health_port == plan.port):
        await serve_health(health, plan.host, plan.health_port)
    return runners


def _watch_sigterm(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> bool:
    """Let SIGTERM set `stop`; False where that cannot be: only the main thread may own signal handlers (tests run
    serve in other threads), and loops without POSIX signals (Windows) refuse them — cancelling serve still works."""
    if threading.current_thread() is not threading.main_thread() or sys.platform == "win32":
        return False
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    return True


async def _run_until_sigterm(runners: list[Coroutine[Any, Any, Any]]) -> None:
    """Run the platforms until one ends (its error raised) or SIGTERM arrives (a clean stop)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    watching = _watch_sigterm(loop, stop)
    running = asyncio.ensure_future(asyncio.gather(*runners))
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if running.done():
            running.result()
        else:
            log.info("SIGTERM: shutting down")
    finally:
        if watching:
            loop.remove_signal_handler(signal.SIGTERM)
        for task in (running, stopping):
            task.cancel()
        await asyncio.gather(running, stopping, return_exceptions=True)


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
    engine: Drills,
    service: TeamService,
    scheduler: DrillScheduler,
    health: Health,
    plan: ServePlan,
    prep: PrepServices,
    stack: AsyncExitStack,
) -> Coroutine[Any, Any, Any]:
    # The platform SDKs load only for the platforms served (start-up time, and one may be absent).
    from aiohttp import web

    from .adapters.slack.app import PLATFORM, build_slack
    from .adapters.slack.redact import install
    from .adapters.slack.settings import SlackSettings

    settings = SlackSettings()
    install(settings.secrets())
    runtime = build_slack(engine, service, settings, prep)
    stack.push_async_callback(runtime.close)  # pending work after acks, then the chat client
    engine.chats[PLATFORM] = runtime.chat
    if runtime.states is not None:
        scheduler.maintenance.append(runtime.states.purge_expired)
    if plan.http:
        web_app = runtime.app.web_app(path="/slack/events", port=plan.port)
        health.add_routes(web_app)
        runner = web.AppRunner(web_app)
        await runner.setup()
        stack.push_async_callback(runner.cleanup)
        await web.TCPSite(runner, plan.host, plan.port).start()
        health.platforms["slack"] = lambda: True  # HTTP mode: connected once the events endpoint listens
        log.info("Slack app listening on http://%s:%s/slack/events", plan.host, plan.port)
        return asyncio.Event().wait()
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

    assert settings.app_token is not None
    handler = AsyncSocketModeHandler(runtime.app, settings.app_token.get_secret_value())
    stack.push_async_callback(handler.close_async)
    # The Socket Mode client keeps its websocket in `current_session`; connected while that is open.
    health.platforms["slack"] = lambda: _socket_open(handler)
    return handler.start_async()  # type: ignore[no-untyped-call]  # slack_bolt leaves this one unannotated


def _socket_open(handler: object) -> bool:
    session = getattr(getattr(handler, "client", None), "current_session", None)
    return session is not None and not getattr(session, "closed", True)


def _check_discord() -> None:
    from .adapters.discord.settings import DiscordSettings

    if DiscordSettings().token is None:
        raise ConfigError("Discord needs DISCORD_TOKEN (the bot token from the Developer Portal)")


def _start_discord(
    engine: Drills, service: TeamService, health: Health, prep: PrepServices, stack: AsyncExitStack
) -> Coroutine[Any, Any, Any]:
    # The platform SDKs load only for the platforms served (start-up time, and one may be absent).
    from .adapters.discord.bot import PLATFORM, TraceBot
    from .adapters.discord.prep import register_prep
    from .adapters.discord.settings import DiscordSettings
    from .adapters.slack.redact import install

    settings = DiscordSettings()
    assert settings.token is not None
    install([settings.token.get_secret_value()])
    bot = TraceBot(engine, service, settings)
    register_prep(bot, prep)
    stack.push_async_callback(bot.client.close)
    engine.chats[PLATFORM] = bot.chat
    health.platforms["discord"] = lambda: bot.client.is_ready() and not bot.client.is_closed()
    return bot.run(settings.token.get_secret_value())
