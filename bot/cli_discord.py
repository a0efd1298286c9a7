"""`tracedrill discord sync`: register the slash commands with Discord now (after a manual change in the
Developer Portal, or to force a stale registration); `serve` syncs by itself only when the tree changed."""

from __future__ import annotations

import asyncio

import click

from .adapters.discord.settings import DiscordSettings


@click.group(name="discord")
def discord_group() -> None:
    """Discord operator commands."""


@discord_group.command(name="sync")
@click.option("--force", is_flag=True, help="Sync even when the command tree is unchanged since the last sync.")
def sync_command(force: bool) -> None:
    """Register the slash commands (globally, or in DISCORD_GUILD_IDS)."""
    settings = DiscordSettings()
    if settings.token is None:
        raise click.ClickException("Discord needs DISCORD_TOKEN (the bot token from the Developer Portal)")
    try:
        synced = asyncio.run(sync_once(settings, force=force))
    except Exception as exc:  # login refused, network down: one line, no traceback
        raise click.ClickException(f"sync failed: {type(exc).__name__}: {exc}") from exc
    click.echo("synced: " + ", ".join(synced) if synced else "commands unchanged; nothing to sync (use --force)")


async def sync_once(settings: DiscordSettings, *, force: bool) -> list[str]:
    # Here, not at the top: `tracedrill --help` builds this command group, and should not load discord.py,
    # the database layer and the drill engine to print its help.
    from .adapters.discord.bot import TraceBot
    from .app import build_core
    from .settings import CoreSettings

    if settings.token is None:
        raise ValueError("DISCORD_TOKEN is not set")
    engine, _, service = build_core(CoreSettings())
    bot = TraceBot(engine, service, settings)

    async def no_hook() -> None:  # login must not sync on its own: this command decides
        return None

    bot.client.setup_hook = no_hook  # type: ignore[method-assign]
    try:
        await bot.client.login(settings.token.get_secret_value())
        return await bot.sync_commands(force=force)
    finally:
        await bot.client.close()
        engine.db.dispose()


def register(main: click.Group) -> None:
    main.add_command(discord_group)
