"""The Discord bot: `/trace …` app commands (guild-only, validated server-side), the persistent Submit
button, the answer modal. Every interaction is answered or deferred at once; the work runs afterwards."""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any

import discord
from discord import app_commands

from ...cleantext import in_code_block
from ...drills.commands import parse
from ...drills.engine import DrillEngine
from ...drills.errors import DrillError
from ...drills.ports import ChannelRef, UserRef
from ...drills.service import TeamService
from ...scenarios.ids import SIGNATURE_IDS
from .chat import NO_PINGS, DiscordChat
from .settings import DiscordSettings
from .views import DiagnosisModal, SubmitButton

log = logging.getLogger(__name__)
PLATFORM = "discord"
SIGNATURE_CHOICES = [app_commands.Choice(name=s, value=s) for s in SIGNATURE_IDS]
PERIOD_CHOICES = [app_commands.Choice(name=p, value=p) for p in ("week", "month", "all")]
GROUP_ACTIONS = [app_commands.Choice(name=a, value=a) for a in ("create", "join", "leave", "list", "leaderboard")]
HELP = ("**tracedrill** — `/trace` (a drill now; `signature:` to drill one) · `/trace-leaderboard [period]` · "
        "`/trace-stats` · `/trace-schedule days:weekdays time:09:30 timezone:Europe/Berlin` (Manage Server; "
        "`days:off` stops it) · `/trace-group action:create|join|leave|list|leaderboard name:<group>` · "
        "`/trace-analyze trace:<your .json/.json.gz>` · `/trace-help`. Press **Submit diagnosis** under a drill "
        "to answer; the reveal arrives in its thread.")


def refs(interaction: discord.Interaction) -> tuple[ChannelRef, UserRef]:
    guild = str(interaction.guild_id or "")
    channel = ChannelRef(PLATFORM, guild, str(interaction.channel_id or ""), getattr(interaction.channel, "name", ""))
    user = UserRef(PLATFORM, guild, str(interaction.user.id), interaction.user.display_name)
    return channel, user


class TraceBot:
    """Holds the discord.py client, its command tree and the chat port; knows the core only through
    DrillEngine and TeamService."""

    def __init__(self, engine: DrillEngine, service: TeamService, settings: DiscordSettings) -> None:
        self.engine, self.service, self.settings = engine, service, settings
        intents = discord.Intents.none()
        intents.guilds = True
        cls = discord.AutoShardedClient if settings.sharded else discord.Client
        self.client: discord.Client = cls(intents=intents, allowed_mentions=NO_PINGS)
        self.tree = app_commands.CommandTree(self.client)
        self.chat = DiscordChat(self.client)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.client.setup_hook = self.setup_hook  # type: ignore[method-assign]
        SubmitButton.open_modal = self.open_modal
        self._register()

    async def setup_hook(self) -> None:
        self.client.add_dynamic_items(SubmitButton)  # buttons on old drill messages keep working after restarts
        for gid in self.settings.guild_ids:
            guild = discord.Object(id=gid)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        if not self.settings.guild_ids:
            await self.tree.sync()

    def background(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def open_modal(self, interaction: discord.Interaction, drill_id: int) -> None:
        await interaction.response.send_modal(DiagnosisModal(drill_id, self.settings.max_answer_chars, self.answered))

    async def answered(self, interaction: discord.Interaction, drill_id: int, text: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        self.chat.remember(interaction)  # its follow-up token carries the feedback at the reveal
        _, user = refs(interaction)
        if len(text) > self.settings.max_answer_chars:
            await interaction.followup.send(f"Keep it under {self.settings.max_answer_chars:,} characters.",
                                            ephemeral=True)
            return
        try:
            outcome = await self.engine.submit(drill_id, user, text, idempotency_key=f"interaction:{interaction.id}")
            reply = outcome.private_text() + (f"\n{outcome.grade.feedback()}" if outcome.late else "")
        except DrillError as exc:
            reply = str(exc)
        await interaction.followup.send(reply[:2000], ephemeral=True, allowed_mentions=NO_PINGS)

    async def _reply_later(self, interaction: discord.Interaction, work: Any) -> None:
        try:
            text = await work
        except DrillError as exc:
            text = str(exc)
        except Exception:
            log.exception("command failed")
            text = "Something went wrong; please try again."
        await interaction.followup.send(text[:2000], ephemeral=True, allowed_mentions=NO_PINGS)

    async def _analyze(self, interaction: discord.Interaction, trace: discord.Attachment) -> None:
        from ...analyze.service import AnalysisError, analyze_bytes

        try:
            data = await trace.read()
            result = await asyncio.to_thread(analyze_bytes, trace.filename, data)
        except AnalysisError as exc:
            await interaction.followup.send(str(exc)[:2000], allowed_mentions=NO_PINGS)
            return
        except discord.HTTPException:
            await interaction.followup.send("Could not download that attachment; please try again.")
            return
        files = [discord.File(io.BytesIO(result.png), "analysis.png")] if result.png else []
        await interaction.followup.send(in_code_block(result.text[:1900]), files=files, allowed_mentions=NO_PINGS)

    def _register(self) -> None:
        tree, service, engine = self.tree, self.service, self.engine

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

            self.background(self._reply_later(interaction, start()))

        @tree.command(name="trace-leaderboard", description="This channel's leaderboard")
        @app_commands.guild_only()
        @app_commands.choices(period=PERIOD_CHOICES)
        async def leaderboard(interaction: discord.Interaction, period: str = "week") -> None:
            if period not in ("week", "month", "all"):
                await interaction.response.send_message("Period is week, month or all.", ephemeral=True)
                return
            await interaction.response.defer(ephemeral=True)
            channel, _ = refs(interaction)
            self.background(self._reply_later(interaction, service.leaderboard_text(channel, period)))

        @tree.command(name="trace-stats", description="Your per-signature accuracy, streak and weak spots")
        @app_commands.guild_only()
        async def stats(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True)
            _, user = refs(interaction)
            self.background(self._reply_later(interaction, service.stats_text(user)))

        @tree.command(name="trace-schedule", description="Daily drill: e.g. days=weekdays time=09:30 "
                                                          "timezone=Europe/Berlin, or days=off")
        @app_commands.guild_only()
        @app_commands.default_permissions(manage_guild=True)
        async def schedule(interaction: discord.Interaction, days: str, time: str = "09:30",
                           timezone: str = "UTC") -> None:
            perms = interaction.permissions
            if not (perms.manage_guild or perms.administrator):  # default_permissions is only a default
                await interaction.response.send_message("You need Manage Server to change the schedule.",
                                                        ephemeral=True)
                return
            cmd = parse("schedule off" if days.strip().lower() == "off" else f"schedule {days} {time} {timezone}")
            if cmd.name == "usage":
                await interaction.response.send_message(cmd.error, ephemeral=True)
                return
            await interaction.response.defer(ephemeral=True)
            channel, _ = refs(interaction)
            work = (service.schedule_off(channel) if cmd.name == "schedule_off" else
                    service.set_schedule(channel, cmd.weekdays, cmd.hour, cmd.minute, cmd.timezone))
            self.background(self._reply_later(interaction, work))

        @tree.command(name="trace-group", description="Study groups: create, join, leave, list, leaderboard")
        @app_commands.guild_only()
        @app_commands.choices(action=GROUP_ACTIONS)
        async def group(interaction: discord.Interaction, action: str, name: str = "") -> None:
            if action not in ("create", "join", "leave", "list", "leaderboard") or (action != "list" and not name):
                await interaction.response.send_message("Use an action and a group name (list needs none).",
                                                        ephemeral=True)
                return
            await interaction.response.defer(ephemeral=True)
            channel, user = refs(interaction)
            self.background(self._reply_later(interaction, service.group_text(action, name, user, channel)))

        @tree.command(name="trace-analyze", description="Run the reading order on your own torch.profiler trace")
        @app_commands.guild_only()
        async def analyze(interaction: discord.Interaction, trace: discord.Attachment) -> None:
            from ...analyze.service import AnalysisError, check_upload

            try:
                check_upload(trace.filename, trace.size)
            except AnalysisError as exc:
                await interaction.response.send_message(str(exc), ephemeral=True)
                return
            await interaction.response.defer(thinking=True)
            self.background(self._analyze(interaction, trace))

        @tree.command(name="trace-help", description="How tracedrill works")
        async def help_(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(HELP, ephemeral=True)

    async def run(self, token: str) -> None:
        async with self.client:
            await self.client.start(token)
