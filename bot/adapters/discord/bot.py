"""The Discord bot: the discord.py client, its command tree (commands.py), the persistent Submit button and the
answer modal. Every interaction is answered or deferred at once; the work runs afterwards, in the bot's Runner."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands

from ...drills.engine import Drills
from ...drills.errors import NotRecorded
from ...drills.home import HomeService
from ...drills.kept_values import KeptValues
from ...drills.service import TeamService
from ..common.replies import answer_receipt, prefill
from ..common.runner import Runner
from .appeals import DiscordAppeals
from .chat import DiscordChat
from .codes import NO_PINGS
from .commands import register_commands
from .interactions import DISCORD_ERRORS, PLATFORM, followup, refs, submit_errors
from .routes import routes
from .settings import DiscordSettings
from .views import DiagnosisModal, SubmitButton, modal_drill, submitted_answer

__all__ = ["INVITE_PERMISSIONS", "PLATFORM", "TraceBot"]
log = logging.getLogger(__name__)
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
SUBMIT_ERRORS = submit_errors(str(NotRecorded()))  # any grading or storage failure is told, never dropped


def _discord_quote(echo: str) -> str:
    return "\nYou wrote:\n> " + discord.utils.escape_markdown(echo).replace("\n", "\n> ")


class TraceBot:
    """Holds the discord.py client, its command tree and the chat port; knows the core only through
    Drills and TeamService."""

    def __init__(self, engine: Drills, service: TeamService, settings: DiscordSettings) -> None:
        self.engine, self.service, self.settings = engine, service, settings
        intents = discord.Intents.none()
        intents.guilds = True
        cls = discord.AutoShardedClient if settings.sharded else discord.Client
        self.client: discord.Client = cls(intents=intents, allowed_mentions=NO_PINGS)
        self.tree = app_commands.CommandTree(self.client)
        self.chat = DiscordChat(self.client)
        self.homes = HomeService(engine)
        self.kept = KeptValues(engine)  # the hash of the command tree last synced, per scope
        self.runner = Runner(DISCORD_ERRORS, log)
        self.client.setup_hook = self.setup_hook  # type: ignore[method-assign]
        routes(self.client).submit = self.open_modal
        register_commands(self)
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
            if not force and await self.kept.get(key) == digest:
                continue
            await self.tree.sync(guild=guild)
            await self.kept.put(key, digest)
            synced.append(key)
        return synced

    async def open_modal(self, interaction: discord.Interaction, drill_id: int) -> None:
        _, user = refs(interaction)
        previous = await prefill(self.service.last_answer(drill_id, user))
        await interaction.response.send_modal(DiagnosisModal(drill_id, self.settings.max_answer_chars, previous))

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

        async def receipt() -> str:
            outcome = await self.engine.submit(drill_id, user, text, idempotency_key=f"interaction:{interaction.id}")
            return answer_receipt(outcome, text, _discord_quote)

        await self.runner.reply_after(f"submit for drill {drill_id}", receipt(), followup(interaction), SUBMIT_ERRORS)

    async def run(self, token: str) -> None:
        async with self.client:
            try:
                await self.client.start(token)
            finally:
                await self.runner.close()  # while the client's HTTP session can still send the follow-ups
