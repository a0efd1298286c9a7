"""Discord's JSON error codes the adapter acts on, what it tells people about them, and mentions switched off."""

from __future__ import annotations

import discord

NO_PINGS = discord.AllowedMentions.none()
THREAD_ALREADY_CREATED = 160004
MISSING_ACCESS, MISSING_PERMISSIONS, CANNOT_DM = 50001, 50013, 50007
WRONG_CHANNEL_TYPE = 50024  # e.g. starting a thread inside a thread or a forum post
UNKNOWN_CHANNEL, UNKNOWN_MESSAGE = 10003, 10008
PERMANENT = {MISSING_ACCESS, MISSING_PERMISSIONS, UNKNOWN_CHANNEL}
PERMISSION_HELP = (
    "I'm missing a permission in this channel (Discord error 50013). tracedrill needs View Channel, Send "
    "Messages, Send Messages in Threads, Create Public Threads, Embed Links, Attach Files and Read Message "
    "History here: ask someone with Manage Server to grant them to the tracedrill role (or re-invite it with "
    "the link in the README). Nothing was posted."
)
