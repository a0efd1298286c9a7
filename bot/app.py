"""The composition root: settings → database → engine → scheduler → adapters. Nothing else builds these."""

from __future__ import annotations

import asyncio
import logging

from .drills.engine import DrillEngine
from .drills.service import TeamService
from .local import open_database
from .render.cache import RenderCache
from .schedule.scheduler import DrillScheduler
from .settings import CoreSettings

log = logging.getLogger(__name__)
PLATFORMS = ("slack", "discord")


class ConfigError(Exception):
    pass


def build_core(settings: CoreSettings) -> tuple[DrillEngine, DrillScheduler, TeamService]:
    db = open_database(settings.database_url, settings)
    engine = DrillEngine(db, {}, answer_seconds=settings.answer_seconds, theme=settings.theme,
                         render_cache=RenderCache(directory=settings.render_dir))
    scheduler = DrillScheduler(engine)
    engine.on_started.append(scheduler.schedule_reveal)

    def resync() -> None:
        if scheduler.running:  # only the leader holds jobs; followers pick changes up when they lead
            scheduler.sync_schedules()

    service = TeamService(engine, on_schedule_change=resync)
    return engine, scheduler, service


async def serve(platforms: list[str], *, http: bool = False, host: str = "0.0.0.0", port: int = 3000) -> None:
    unknown = [p for p in platforms if p not in PLATFORMS]
    if unknown or not platforms:
        raise ConfigError(f"choose platforms from: {', '.join(PLATFORMS)}")
    if "slack" in platforms:
        _check_slack(http)
    if "discord" in platforms:
        _check_discord()
    settings = CoreSettings()
    engine, scheduler, service = build_core(settings)
    runners = []
    if "slack" in platforms:
        runners.append(await _start_slack(engine, service, http=http, host=host, port=port))
    if "discord" in platforms:
        runners.append(_start_discord(engine, service))
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
    except ValidationError as exc:  # e.g. SLACK_MAX_ANSWER_CHARS above Slack's 3,000-character input limit
        first = exc.errors()[0]
        name = "SLACK_" + str(first["loc"][0]).upper() if first.get("loc") else "a SLACK_ variable"
        raise ConfigError(f"{name}: {first['msg']}") from None
    if http:
        if settings.signing_secret is None or not (settings.bot_token or settings.oauth):
            raise ConfigError("HTTP mode needs SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN (or SLACK_CLIENT_ID and "
                              "SLACK_CLIENT_SECRET for OAuth)")
    elif settings.app_token is None or settings.bot_token is None:
        raise ConfigError("Socket Mode needs SLACK_APP_TOKEN and SLACK_BOT_TOKEN (or use --http)")


async def _start_slack(engine: DrillEngine, service: TeamService, *, http: bool, host: str, port: int):  # type: ignore[no-untyped-def]
    from aiohttp import web

    from .adapters.slack.app import PLATFORM, build_slack
    from .adapters.slack.redact import install
    from .adapters.slack.settings import SlackSettings

    settings = SlackSettings()
    install(settings.secrets())
    runtime = build_slack(engine, service, settings)
    engine.chats[PLATFORM] = runtime.chat
    if http:
        runner = web.AppRunner(runtime.app.web_app(path="/slack/events", port=port))
        await runner.setup()
        await web.TCPSite(runner, host, port).start()
        log.info("Slack app listening on http://%s:%s/slack/events", host, port)
        return asyncio.Event().wait()
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

    assert settings.app_token is not None
    handler = AsyncSocketModeHandler(runtime.app, settings.app_token.get_secret_value())
    return handler.start_async()


def _check_discord() -> None:
    from .adapters.discord.settings import DiscordSettings

    if DiscordSettings().token is None:
        raise ConfigError("Discord needs DISCORD_TOKEN (the bot token from the Developer Portal)")


def _start_discord(engine: DrillEngine, service: TeamService):  # type: ignore[no-untyped-def]
    from .adapters.discord.bot import PLATFORM, TraceBot
    from .adapters.discord.settings import DiscordSettings
    from .adapters.slack.redact import install

    settings = DiscordSettings()
    assert settings.token is not None
    install([settings.token.get_secret_value()])
    bot = TraceBot(engine, service, settings)
    engine.chats[PLATFORM] = bot.chat
    return bot.run(settings.token.get_secret_value())
