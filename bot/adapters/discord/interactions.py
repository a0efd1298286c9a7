"""Discord interactions → neutral values, and the way the bot answers them: the error table (exception → the
line the person reads) and follow-up replies, which never ping anyone."""

from __future__ import annotations

import discord

from ...analyze.service import AnalysisError
from ...drills.ports import ChannelRef, UserRef
from ..common.runner import ErrorRow, ErrorTable, Reply, drill_errors
from .codes import MISSING_PERMISSIONS, NO_PINGS, PERMISSION_HELP

PLATFORM = "discord"
MAX_CHARS = 2000


def refs(interaction: discord.Interaction) -> tuple[ChannelRef, UserRef]:
    guild = str(interaction.guild_id or "")
    channel = ChannelRef(PLATFORM, guild, str(interaction.channel_id or ""), getattr(interaction.channel, "name", ""))
    return channel, user_of(interaction)


def user_of(interaction: discord.Interaction) -> UserRef:
    guild = str(interaction.guild_id or "")
    return UserRef(PLATFORM, guild, str(interaction.user.id), interaction.user.display_name)


def may_manage(interaction: discord.Interaction) -> bool:
    """Manage Server or Administrator: the command's default_permissions are only a default a server can change."""
    perms = interaction.permissions
    return bool(perms.manage_guild or perms.administrator)


def _forbidden(exc: discord.Forbidden) -> str:
    return PERMISSION_HELP if exc.code == MISSING_PERMISSIONS else f"Discord refused that ({exc.code})."


DISCORD_ERRORS = drill_errors().with_rows(ErrorRow(discord.Forbidden, _forbidden))
ANALYSIS_ERRORS = DISCORD_ERRORS.with_rows(
    ErrorRow(AnalysisError, str),
    ErrorRow(discord.HTTPException, lambda exc: "Could not download that attachment; please try again."),
)


def followup(interaction: discord.Interaction, *, ephemeral: bool = True) -> Reply:
    """Reply through the interaction's follow-up webhook (it was deferred), clipped to one message."""

    async def reply(text: str) -> None:
        await interaction.followup.send(text[:MAX_CHARS], ephemeral=ephemeral, allowed_mentions=NO_PINGS)

    return reply


def submit_errors(fallback: str) -> ErrorTable:
    """The table for an answer: a failure nobody foresaw is told as `fallback`, never dropped."""
    return DISCORD_ERRORS.with_rows(fallback=fallback)
