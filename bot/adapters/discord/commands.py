"""The drill's `/trace…` app commands: guild-only, their options validated server-side (choices are only a
client hint). Each command answers or defers at once and hands the rest to the bot's Runner."""

from __future__ import annotations

import io

import discord
from discord import app_commands

from ...analyze.service import AnalysisError, check_upload
from ...cleantext import in_code_block
from ...drills.channel_config import ConfigChange, parse_signatures, validate
from ...drills.commands import parse
from ...drills.errors import DrillError
from ...scenarios.ids import DIFFICULTIES, SIGNATURE_IDS
from ..common.replies import analyze_download
from .codes import NO_PINGS
from .host import BotHost
from .interactions import ANALYSIS_ERRORS, PLATFORM, followup, may_manage, refs

SIGNATURE_CHOICES = [app_commands.Choice(name=s, value=s) for s in SIGNATURE_IDS]
PERIOD_CHOICES = [app_commands.Choice(name=p, value=p) for p in ("week", "month", "all")]
DIFFICULTY_CHOICES = [app_commands.Choice(name=d, value=d) for d in DIFFICULTIES]
GROUP_ACTIONS = [app_commands.Choice(name=a, value=a) for a in ("create", "join", "leave", "list", "leaderboard")]
HELP = (
    "**tracedrill** — `/trace` (a drill now; `signature:` to drill one) · `/trace-leaderboard [period]` · "
    "`/trace-stats` · `/trace-schedule days:weekdays time:09:30 timezone:Europe/Berlin` (Manage Server; "
    "`days:off` stops it) · `/trace-group action:create|join|leave|list|leaderboard name:<group>` · "
    "`/trace-analyze trace:<your .json/.json.gz>` · `/trace-me` (your home: stats, feedback, chart) · "
    "`/trace-config` (Manage Server: answer time, difficulty, signatures, schedule) · `/trace-help`. "
    "Press **Submit diagnosis** under a drill "
    "to answer; the reveal arrives in its thread."
)
CONFIG_NOTE = "\nOn Discord people answer with the **Submit diagnosis** form; answers stay hidden until the reveal."


def register_commands(bot: BotHost) -> None:
    _register_events(bot)
    _register_drill(bot)
    _register_team(bot)
    _register_schedule(bot)
    _register_config(bot)


def _register_events(bot: BotHost) -> None:
    service = bot.service

    @bot.client.event
    async def on_interaction(interaction: discord.Interaction) -> None:
        await bot.on_interaction(interaction)

    @bot.client.event
    async def on_guild_remove(guild: discord.Guild) -> None:
        """Kicked or the server was deleted: its scheduled drills stop."""
        await service.disable_workspace(PLATFORM, str(guild.id))

    @bot.client.event
    async def on_guild_join(guild: discord.Guild) -> None:
        """Invited back: the schedules it had run again."""
        await service.enable_workspace(PLATFORM, str(guild.id))


def _register_drill(bot: BotHost) -> None:
    tree, engine = bot.tree, bot.engine

    @tree.command(name="trace", description="A trace-reading drill now (optionally one signature)")
    @app_commands.guild_only()
    @app_commands.choices(signature=SIGNATURE_CHOICES)
    async def trace(interaction: discord.Interaction, signature: str | None = None) -> None:
        if signature is not None and signature not in SIGNATURE_IDS:  # choices are only a client hint
            await interaction.response.send_message(f"Unknown signature. {HELP}", ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        channel, _ = refs(interaction)

        async def start() -> str:
            d = await engine.start(channel, signature=signature)
            return f"Drill #{d.id} posted."

        bot.runner.later("/trace", start(), followup(interaction))

    @tree.command(name="trace-analyze", description="Run the reading order on your own torch.profiler trace")
    @app_commands.guild_only()
    async def analyze(interaction: discord.Interaction, trace: discord.Attachment) -> None:
        try:
            check_upload(trace.filename, trace.size)
        except AnalysisError as exc:
            await interaction.response.send_message(str(exc), ephemeral=True)
            return
        await interaction.response.defer(thinking=True)
        bot.runner.later(
            "/trace-analyze", _analyze(interaction, trace), followup(interaction, ephemeral=False), ANALYSIS_ERRORS
        )

    @tree.command(name="trace-me", description="Your home: stats, streak, last answers with feedback, chart")
    @app_commands.guild_only()
    async def me(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        bot.runner.later("/trace-me", _home(bot, interaction), followup(interaction))

    @tree.command(name="trace-help", description="How tracedrill works")
    async def help_(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(HELP, ephemeral=True)


def _register_team(bot: BotHost) -> None:
    tree, service = bot.tree, bot.service

    @tree.command(name="trace-leaderboard", description="This channel's leaderboard")
    @app_commands.guild_only()
    @app_commands.choices(period=PERIOD_CHOICES)
    async def leaderboard(interaction: discord.Interaction, period: str = "week") -> None:
        if period not in ("week", "month", "all"):
            await interaction.response.send_message("Period is week, month or all.", ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True)
        channel, _ = refs(interaction)
        bot.runner.later("/trace-leaderboard", service.leaderboard_text(channel, period), followup(interaction))

    @tree.command(name="trace-stats", description="Your per-signature accuracy, streak and weak spots")
    @app_commands.guild_only()
    async def stats(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True)
        _, user = refs(interaction)
        bot.runner.later("/trace-stats", service.stats_text(user), followup(interaction))

    @tree.command(name="trace-group", description="Study groups: create, join, leave, list, leaderboard")
    @app_commands.guild_only()
    @app_commands.choices(action=GROUP_ACTIONS)
    async def group(interaction: discord.Interaction, action: str, name: str = "") -> None:
        if action not in ("create", "join", "leave", "list", "leaderboard") or (action != "list" and not name):
            await interaction.response.send_message("Use an action and a group name (list needs none).", ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True)
        channel, user = refs(interaction)
        bot.runner.later("/trace-group", service.group_text(action, name, user, channel), followup(interaction))


def _register_schedule(bot: BotHost) -> None:
    service = bot.service

    @bot.tree.command(
        name="trace-schedule",
        description="Daily drill: e.g. days=weekdays time=09:30 timezone=Europe/Berlin, or days=off",
    )
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    async def schedule(interaction: discord.Interaction, days: str, time: str = "09:30", timezone: str = "UTC") -> None:
        if not may_manage(interaction):
            await interaction.response.send_message("You need Manage Server to change the schedule.", ephemeral=True)
            return
        cmd = parse("schedule off" if days.strip().lower() == "off" else f"schedule {days} {time} {timezone}")
        if cmd.name == "usage":
            await interaction.response.send_message(cmd.error, ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True)
        channel, _ = refs(interaction)
        work = (
            service.schedule_off(channel)
            if cmd.name == "schedule_off"
            else service.set_schedule(channel, cmd.weekdays, cmd.hour, cmd.minute, cmd.timezone)
        )
        bot.runner.later("/trace-schedule", work, followup(interaction))


def _register_config(bot: BotHost) -> None:
    @bot.tree.command(name="trace-config", description="This channel's drill settings (Manage Server)")
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES)
    @app_commands.describe(
        answer_seconds="Answer time in seconds (30 to 86400)",
        signatures="Signature mix, comma separated, or 'all'",
        schedule="Daily drill, e.g. 'weekdays 09:30 Europe/Berlin', or 'off'",
    )
    async def config(
        interaction: discord.Interaction,
        answer_seconds: int | None = None,
        difficulty: str | None = None,
        signatures: str | None = None,
        schedule: str | None = None,
    ) -> None:
        if not may_manage(interaction):
            await interaction.response.send_message(
                "You need Manage Server to change this channel's settings.", ephemeral=True
            )
            return
        asked = any(v is not None for v in (answer_seconds, difficulty, signatures, schedule))
        try:
            change = _config_change(answer_seconds, difficulty, signatures, schedule)
        except DrillError as exc:
            await interaction.response.send_message(str(exc)[:2000], ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True)
        bot.runner.later(
            "/trace-config", _configure(bot, interaction, change if asked else None), followup(interaction)
        )


def _config_change(
    answer_seconds: int | None, difficulty: str | None, signatures: str | None, schedule: str | None
) -> ConfigChange:
    mix = parse_signatures(signatures) if signatures is not None else ()
    return validate(
        ConfigChange(
            answer_seconds=answer_seconds,
            difficulty=difficulty,
            signature_mix=mix or None,
            all_signatures=signatures is not None and not mix,
            schedule=schedule,
        )
    )


async def _configure(bot: BotHost, interaction: discord.Interaction, change: ConfigChange | None) -> str:
    service = bot.service
    channel, _ = refs(interaction)
    if change is None:
        current = await service.config.get(channel)
    else:
        current = await service.config.apply(channel, change)
    return ("Saved. " if change else "") + current.summary(bot.engine.answer_seconds) + CONFIG_NOTE


async def _home(bot: BotHost, interaction: discord.Interaction) -> None:
    """`/trace-me`: the person's home as an embed, with the accuracy chart when there is one."""
    _, user = refs(interaction)
    home = await bot.homes.home(user)
    text = home.text(bot.engine.answer_seconds)
    embed = discord.Embed(
        title=f"{interaction.user.display_name} — tracedrill"[:256],
        description=text[:4000],
        colour=discord.Colour.blurple(),
    )
    files = []
    if home.stats is not None:
        png = await bot.homes.chart(home)
        files.append(discord.File(io.BytesIO(png), "accuracy.png"))
        embed.set_image(url="attachment://accuracy.png")
    await interaction.followup.send(embed=embed, files=files, ephemeral=True, allowed_mentions=NO_PINGS)


async def _analyze(interaction: discord.Interaction, trace: discord.Attachment) -> None:
    result = await analyze_download(trace.filename, trace.read)
    files = [discord.File(io.BytesIO(result.png), "analysis.png")] if result.png else []
    await interaction.followup.send(in_code_block(result.text[:1900]), files=files, allowed_mentions=NO_PINGS)
