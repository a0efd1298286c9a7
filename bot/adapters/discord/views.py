"""The Submit-diagnosis button (a persistent dynamic item keyed by drill id) and the answer modal."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import discord

SUBMIT_TEMPLATE = r"tracedrill:submit:(?P<drill>[0-9]{1,12})"
OnAnswer = Callable[[discord.Interaction, int, str], Awaitable[None]]


class DiagnosisModal(discord.ui.Modal):
    def __init__(self, drill_id: int, max_chars: int, on_answer: OnAnswer) -> None:
        super().__init__(title=f"Drill #{drill_id}", custom_id=f"tracedrill:modal:{drill_id}", timeout=None)
        self.drill_id = drill_id
        self.on_answer = on_answer
        self.answer: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label="Signature, confirming measurement, fix", style=discord.TextStyle.paragraph,
            placeholder="Step is … the gap … so it's … confirm by … fix …", min_length=1, max_length=max_chars,
            required=True, custom_id="tracedrill:answer")
        self.add_item(self.answer)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await self.on_answer(interaction, self.drill_id, self.answer.value or "")


class SubmitButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=SUBMIT_TEMPLATE):
    """Survives restarts: the drill id lives in the custom_id, and the item is registered in setup_hook."""

    open_modal: Callable[[discord.Interaction, int], Awaitable[None]] | None = None  # bound by the bot

    def __init__(self, drill_id: int) -> None:
        super().__init__(discord.ui.Button(label="Submit diagnosis", style=discord.ButtonStyle.primary,
                                           custom_id=f"tracedrill:submit:{drill_id}"))
        self.drill_id = drill_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> SubmitButton:
        return cls(int(match["drill"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        if SubmitButton.open_modal is not None:
            await SubmitButton.open_modal(interaction, self.drill_id)


def drill_view(drill_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(SubmitButton(drill_id))
    from .appeals import HintButton

    view.add_item(HintButton(drill_id))
    return view
