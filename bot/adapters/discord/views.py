"""The persistent buttons (dynamic items keyed by drill id: Submit diagnosis and Hint under a drill, "Appeal this
grade" under the private feedback; each finds its handler through routes.py) and the answer modal.

Each opening of the form gets its own custom_id (`tracedrill:modal:{drill}:{nonce}`): discord.py keys open modals
by custom_id, so a shared id let a second person's form replace the first and lose an answer. The modal is
sent already stopped, so discord.py never stores it; submissions are read in the client's on_interaction,
which also keeps a form opened before a restart working."""

from __future__ import annotations

import re
import secrets
from typing import Any

import discord

from .routes import routes

SUBMIT_TEMPLATE = r"tracedrill:submit:(?P<drill>[0-9]{1,12})"
HINT_TEMPLATE = r"tracedrill:hint:(?P<drill>[0-9]{1,12})"
APPEAL_TEMPLATE = r"tracedrill:appeal:(?P<drill>[0-9]{1,12})"
MODAL_PATTERN = re.compile(r"^tracedrill:modal:(?P<drill>[0-9]{1,12})(?::[0-9a-f]{1,32})?$")
ANSWER_ID = "tracedrill:answer"


class DiagnosisModal(discord.ui.Modal):
    def __init__(self, drill_id: int, max_chars: int, previous: str = "") -> None:
        super().__init__(
            title=f"Drill #{drill_id}", custom_id=f"tracedrill:modal:{drill_id}:{secrets.token_hex(6)}", timeout=None
        )
        self.drill_id = drill_id
        self.answer: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label="Signature, confirming measurement, fix",
            style=discord.TextStyle.paragraph,
            placeholder="Step is … the gap … so it's … confirm by … fix …",
            min_length=1,
            max_length=max_chars,
            required=True,
            custom_id=ANSWER_ID,
            default=previous[:max_chars] or None,
        )
        self.add_item(self.answer)
        self.stop()  # never stored by discord.py: the submission is handled in on_interaction


def modal_drill(custom_id: str) -> int | None:
    m = MODAL_PATTERN.match(custom_id)
    return int(m["drill"]) if m else None


def submitted_answer(data: Any) -> str:
    """The answer field's value from a modal submission payload (action rows or labels, at any depth)."""
    if isinstance(data, dict):
        if data.get("custom_id") == ANSWER_ID and isinstance(data.get("value"), str):
            return str(data["value"])
        for key in ("components", "component"):
            found = submitted_answer(data.get(key))
            if found:
                return found
    elif isinstance(data, list):
        for item in data:
            found = submitted_answer(item)
            if found:
                return found
    return ""


class SubmitButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=SUBMIT_TEMPLATE):
    """Survives restarts: the drill id lives in the custom_id, and the item is registered in setup_hook."""

    def __init__(self, drill_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Submit diagnosis", style=discord.ButtonStyle.primary, custom_id=f"tracedrill:submit:{drill_id}"
            )
        )
        self.drill_id = drill_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SubmitButton:
        return cls(int(match["drill"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        open_modal = routes(interaction.client).submit
        if open_modal is not None:
            await open_modal(interaction, self.drill_id)


class HintButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=HINT_TEMPLATE):
    def __init__(self, drill_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Hint (costs points)",
                style=discord.ButtonStyle.secondary,
                custom_id=f"tracedrill:hint:{drill_id}",
            )
        )
        self.drill_id = drill_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> HintButton:
        return cls(int(match["drill"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        press = routes(interaction.client).hint
        if press is not None:
            await press(interaction, self.drill_id)


class AppealButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=APPEAL_TEMPLATE):
    def __init__(self, drill_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Appeal this grade",
                style=discord.ButtonStyle.secondary,
                custom_id=f"tracedrill:appeal:{drill_id}",
            )
        )
        self.drill_id = drill_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> AppealButton:
        return cls(int(match["drill"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        press = routes(interaction.client).appeal
        if press is not None:
            await press(interaction, self.drill_id)


def drill_view(drill_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(SubmitButton(drill_id))
    view.add_item(HintButton(drill_id))
    return view


def feedback_view(drill_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(AppealButton(drill_id))
    return view
