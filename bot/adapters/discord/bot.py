"""The Discord bot: `/trace …` app commands (guild-only, validated server-side), the persistent Submit
button, the answer modal. Every interaction is answered or deferred at once; the work runs afterwards."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import logging
from typing import Any

import discord
from discord import app_commands

from ...cleantext import in_code_block
from ...drills.channel_config import ConfigChange, parse_signatures, validate
from ...drills.commands import parse
from ...drills.engine import DrillEngine
from ...drills.errors import DrillError, NotRecorded
from ...drills.home import HomeService
from ...drills.ports import ChannelRef, UserRef
from ...drills.service import TeamService
from ...scenarios.ids import DIFFICULTIES, SIGNATURE_IDS
from ...store import state
from .chat import MISSING_PERMISSIONS, NO_PINGS, PERMISSION_HELP, DiscordChat
from .settings import DiscordSettings
from .views import DiagnosisModal, SubmitButton, modal_drill, submitted_answer

log = logging.getLogger(__name__)
PLATFORM = "discord"
SIGNATURE_CHOICES = [app_commands.Choice(name=s, value=s) for s in SIGNATURE_IDS]
PERIOD_CHOICES = [app_commands.Choice(name=p, value=p) for p in ("week", "month", "all")]
DIFFICULTY_CHOICES = [app_commands.Choice(name=d, value=d) for d in DIFFICULTIES]
GROUP_ACTIONS = [app_commands.Choice(name=a, value=a) for a in ("create", "join", "leave", "list", "leaderboard")]
PREFILL_SECONDS = 1.0  # Discord wants the modal within 3 s: a slow lookup skips the pre-fill
ECHO_CHARS = 500
# The invite link's permissions: View Channel, Send Messages, Send Messages in Threads, Create Public Threads,
# Embed Links, Attach Files, Read Message History. Not Manage Threads. The README quotes this value.
INVITE_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
)
HELP = (
    "**tracedrill** — `/trace` (a drill now; `signature:` to drill one) · `/trace-leaderboard [period]` · "
    "`/trace-stats` · `/trace-schedule days:weekdays time:09:30 timezone:Europe/Berlin` (Manage Server; "
    "`days:off` stops it) · `/trace-group action:create|join|leave|list|leaderboard name:<group>` · "
    "`/trace-analyze trace:<your .json/.json.gz>` · `/trace-me` (your home: stats, feedback, chart) · "
    "`/trace-config` (Manage Server: answer time, difficulty, signatures, schedule) · `/trace-help`. "
    "Press **Submit diagnosis** under a drill "
    "to answer; the reveal arrives in its thread."
)


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
        self.homes = HomeService(engine)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.client.setup_hook = self.setup_hook  # type: ignore[method-assign]
        SubmitButton.open_modal = self.open_modal
        self._register()
        from .appeals import DiscordAppeals

        self.appeals = DiscordAppeals(self)  # hints, appeals and rulings (issue 17)

    async def setup_hook(self) -> None:
        # Buttons on old drill and feedback messages keep working after restarts.
        self.client.add_dynamic_items(SubmitButton, *self.appeals.dynamic_items())
        await self.sync_commands()

    def commands_hash(self, guild: discord.abc.Snowflake | None = None) -> str:
        spec = [c.to_dict(self.tree) for c in self.tree.get_commands(guild=guild)]
        return hashlib.sha256(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()

    async def sync_commands(self, *, force: bool = False) -> list[str]:
        """Sync the command tree only when it changed since the last sync (Discord rate-limits syncs); returns
        the scopes synced. `force` syncs regardless (a stale registration after a manual change)."""
        synced = []
        scopes: list[discord.Object | None] = [discord.Object(id=g) for g in self.settings.guild_ids] or [None]
        for guild in scopes:
            if guild is not None:
                self.tree.copy_global_to(guild=guild)
            key = f"discord:commands:{guild.id if guild else 'global'}"
            digest = self.commands_hash(guild)
            if not force and await asyncio.to_thread(state.get, self.engine.db, key) == digest:
                continue
            await self.tree.sync(guild=guild)
            await asyncio.to_thread(state.put, self.engine.db, key, digest, self.engine.clock())
            synced.append(key)
        return synced

    def background(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def open_modal(self, interaction: discord.Interaction, drill_id: int) -> None:
        _, user = refs(interaction)
        previous: str | None = None
        with contextlib.suppress(TimeoutError, DrillError):  # reopening shows your last answer, to revise
            previous = await asyncio.wait_for(self.service.last_answer(drill_id, user), PREFILL_SECONDS)
        await interaction.response.send_modal(DiagnosisModal(drill_id, self.settings.max_answer_chars, previous or ""))

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Answer-form submissions, whichever opening of the form they come from (see views.py)."""
        if interaction.type != discord.InteractionType.modal_submit or interaction.response.is_done():
            return
        data: dict[str, Any] = dict(interaction.data or {})
        drill_id = modal_drill(str(data.get("custom_id", "")))
        if drill_id is None:
            return
        await self.answered(interaction, drill_id, submitted_answer(data))

    async def answered(self, interaction: discord.Interaction, drill_id: int, text: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        self.chat.remember(interaction)  # its follow-up token carries the feedback at the reveal
        _, user = refs(interaction)
        if not text.strip():
            await interaction.followup.send("Write a diagnosis first.", ephemeral=True)
            return
        if len(text) > self.settings.max_answer_chars:
            await interaction.followup.send(
                f"Keep it under {self.settings.max_answer_chars:,} characters.", ephemeral=True
            )
            return
        try:
            outcome = await self.engine.submit(drill_id, user, text, idempotency_key=f"interaction:{interaction.id}")
            reply = outcome.private_text()
            if outcome.status != "duplicate":  # echo what was recorded, so nobody wonders what got through
                echo = text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "…"
                reply += "\nYou wrote:\n> " + discord.utils.escape_markdown(echo).replace("\n", "\n> ")
            reply += f"\n{outcome.grade.feedback()}" if outcome.late else ""
        except DrillError as exc:
            reply = str(exc)
        except Exception:  # any grading or storage failure: tell the person, never drop the answer silently
            log.exception("submit failed for drill %s", drill_id)
            reply = str(NotRecorded())
        await interaction.followup.send(reply[:2000], ephemeral=True, allowed_mentions=NO_PINGS)

    async def _reply_later(self, interaction: discord.Interaction, work: Any) -> None:
        try:
            text = await work
        except DrillError as exc:
            text = str(exc)
        except discord.Forbidden as exc:
            text = PERMISSION_HELP if exc.code == MISSING_PERMISSIONS else f"Discord refused that ({exc.code})."
        except Exception:
            log.exception("command failed")
            text = "Something went wrong; please try again."
        await interaction.followup.send(text[:2000], ephemeral=True, allowed_mentions=NO_PINGS)

    async def _home(self, interaction: discord.Interaction) -> None:
        _, user = refs(interaction)
        try:
            home = await self.homes.home(user)
            text = home.text(self.engine.answer_seconds)
            embed = discord.Embed(
                title=f"{interaction.user.display_name} — tracedrill"[:256],
                description=text[:4000],
                colour=discord.Colour.blurple(),
            )
            files = []
            if home.stats is not None:
                png = await self.homes.chart(home)
                files.append(discord.File(io.BytesIO(png), "accuracy.png"))
                embed.set_image(url="attachment://accuracy.png")
            await interaction.followup.send(embed=embed, files=files, ephemeral=True, allowed_mentions=NO_PINGS)
        except Exception:
            log.exception("/trace-me failed")
            await interaction.followup.send("Something went wrong; please try again.", ephemeral=True)

    async def _configure(self, interaction: discord.Interaction, change: ConfigChange | None) -> str:
        channel, _ = refs(interaction)
        if change is None:
            current = await self.service.config.get(channel)
        else:
            current = await self.service.config.apply(channel, change)
        return (
            ("Saved. " if change else "")
            + current.summary(self.engine.answer_seconds)
            + ("\nOn Discord people answer with the **Submit diagnosis** form; answers stay hidden until the reveal.")
        )

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

        @self.client.event
        async def on_interaction(interaction: discord.Interaction) -> None:
            await self.on_interaction(interaction)

        @self.client.event
        async def on_guild_remove(guild: discord.Guild) -> None:
            """Kicked or the server was deleted: its scheduled drills stop."""
            await service.disable_workspace(PLATFORM, str(guild.id))

        @self.client.event
        async def on_guild_join(guild: discord.Guild) -> None:
            """Invited back: the schedules it had run again."""
            await service.enable_workspace(PLATFORM, str(guild.id))

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

        @tree.command(
            name="trace-schedule",
            description="Daily drill: e.g. days=weekdays time=09:30 timezone=Europe/Berlin, or days=off",
        )
        @app_commands.guild_only()
        @app_commands.default_permissions(manage_guild=True)
        async def schedule(
            interaction: discord.Interaction, days: str, time: str = "09:30", timezone: str = "UTC"
        ) -> None:
            perms = interaction.permissions
            if not (perms.manage_guild or perms.administrator):  # default_permissions is only a default
                await interaction.response.send_message(
                    "You need Manage Server to change the schedule.", ephemeral=True
                )
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
            self.background(self._reply_later(interaction, work))

        @tree.command(name="trace-group", description="Study groups: create, join, leave, list, leaderboard")
        @app_commands.guild_only()
        @app_commands.choices(action=GROUP_ACTIONS)
        async def group(interaction: discord.Interaction, action: str, name: str = "") -> None:
            if action not in ("create", "join", "leave", "list", "leaderboard") or (action != "list" and not name):
                await interaction.response.send_message(
                    "Use an action and a group name (list needs none).", ephemeral=True
                )
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

        @tree.command(name="trace-me", description="Your home: stats, streak, last answers with feedback, chart")
        @app_commands.guild_only()
        async def me(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            self.background(self._home(interaction))

        @tree.command(name="trace-config", description="This channel's drill settings (Manage Server)")
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
            perms = interaction.permissions
            if not (perms.manage_guild or perms.administrator):  # default_permissions is only a default
                await interaction.response.send_message(
                    "You need Manage Server to change this channel's settings.", ephemeral=True
                )
                return
            asked = any(v is not None for v in (answer_seconds, difficulty, signatures, schedule))
            try:
                mix = parse_signatures(signatures) if signatures is not None else ()
                change = validate(
                    ConfigChange(
                        answer_seconds=answer_seconds,
                        difficulty=difficulty,
                        signature_mix=mix or None,
                        all_signatures=signatures is not None and not mix,
                        schedule=schedule,
                    )
                )
            except DrillError as exc:
                await interaction.response.send_message(str(exc)[:2000], ephemeral=True)
                return
            await interaction.response.defer(ephemeral=True)
            self.background(self._reply_later(interaction, self._configure(interaction, change if asked else None)))

        @tree.command(name="trace-help", description="How tracedrill works")
        async def help_(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(HELP, ephemeral=True)

    async def run(self, token: str) -> None:
        async with self.client:
            await self.client.start(token)
