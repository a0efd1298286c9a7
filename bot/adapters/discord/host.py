"""What the command modules (commands.py, appeals.py, prep.py) need of the Discord bot: its client, command tree
and Runner, and the core services. A Protocol, so they are handed the bot without importing bot.py, which imports
them to build it."""

from __future__ import annotations

from typing import Any, Protocol

import discord
from discord import app_commands

from ...drills.engine import Drills
from ...drills.home import HomeService
from ...drills.service import TeamService
from ..common.runner import Runner


class BotHost(Protocol):
    client: discord.Client
    tree: app_commands.CommandTree[Any]
    runner: Runner
    engine: Drills
    service: TeamService
    homes: HomeService

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Answer-form submissions (the client's on_interaction event)."""
