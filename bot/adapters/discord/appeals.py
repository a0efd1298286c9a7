"""Discord side of hints and appeals: a persistent Hint button on the drill, "Appeal this grade" on the private
feedback → modal, `/trace-appeals` and `/trace-rule` for reviewers (Manage Server, or a reviewer person or role),
and the appellant told by DM. Kept apart from bot.py so the adapter rework (issue 16) merges cleanly."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from ...drills.appeals import STATUSES, AppealService
from ...drills.errors import DrillError
from ...drills.hint_service import HintService
from ...drills.ports import UserRef
from ...drills.synonyms import PARTS

if TYPE_CHECKING:
    from .bot import TraceBot

log = logging.getLogger(__name__)
PLATFORM = "discord"
HINT_TEMPLATE = r"tracedrill:hint:(?P<drill>[0-9]{1,12})"
APPEAL_TEMPLATE = r"tracedrill:appeal:(?P<drill>[0-9]{1,12})"
NO_PINGS = discord.AllowedMentions.none()
Press = Callable[[discord.Interaction, int], Awaitable[None]]


class HintButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=HINT_TEMPLATE):
    on_press: Press | None = None  # bound by DiscordAppeals

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
        if HintButton.on_press is not None:
            await HintButton.on_press(interaction, self.drill_id)


class AppealButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=APPEAL_TEMPLATE):
    on_press: Press | None = None

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
        if AppealButton.on_press is not None:
            await AppealButton.on_press(interaction, self.drill_id)


OnAppeal = Callable[[discord.Interaction, int, str, str], Awaitable[None]]


class AppealModal(discord.ui.Modal):
    def __init__(self, drill_id: int, on_appeal: OnAppeal) -> None:
        super().__init__(
            title=f"Appeal drill #{drill_id}", custom_id=f"tracedrill:appealmodal:{drill_id}", timeout=None
        )
        self.drill_id, self.on_appeal = drill_id, on_appeal
        self.part: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label="Which part: all, signature, measurement or fix",
            default="all",
            max_length=11,
            required=True,
            custom_id="tracedrill:appeal:part",
        )
        self.reason: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label="Why is the grade wrong?",
            style=discord.TextStyle.paragraph,
            min_length=1,
            max_length=1000,
            required=True,
            custom_id="tracedrill:appeal:reason",
        )
        self.add_item(self.part)
        self.add_item(self.reason)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await self.on_appeal(interaction, self.drill_id, self.part.value or "", self.reason.value or "")


def feedback_view(drill_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(AppealButton(drill_id))
    return view


def _user(interaction: discord.Interaction) -> UserRef:
    return UserRef(PLATFORM, str(interaction.guild_id or ""), str(interaction.user.id), interaction.user.display_name)


class DiscordAppeals:
    def __init__(self, bot: TraceBot) -> None:
        self.bot = bot
        self.hints = HintService(bot.engine)
        self.appeals = AppealService(bot.engine)
        HintButton.on_press = self.hint
        AppealButton.on_press = self.open_appeal
        self._register(bot.tree)

    @staticmethod
    def dynamic_items() -> tuple[type[Any], ...]:
        return (HintButton, AppealButton)

    async def hint(self, interaction: discord.Interaction, drill_id: int) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            text = (await self.hints.hint(drill_id, _user(interaction))).private_text()
        except DrillError as exc:
            text = str(exc)
        await interaction.followup.send(text[:2000], ephemeral=True, allowed_mentions=NO_PINGS)

    async def open_appeal(self, interaction: discord.Interaction, drill_id: int) -> None:
        await interaction.response.send_modal(AppealModal(drill_id, self.appealed))

    async def appealed(self, interaction: discord.Interaction, drill_id: int, part: str, reason: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        part = part.strip().lower() or "all"
        try:
            info = await self.appeals.file(drill_id, _user(interaction), reason, part)
            text = f"Appeal #{info.appeal_id} on drill #{drill_id} is open; you will hear the ruling by DM."
        except DrillError as exc:
            text = str(exc)
        await interaction.followup.send(text[:2000], ephemeral=True, allowed_mentions=NO_PINGS)

    async def may_review(self, interaction: discord.Interaction) -> bool:
        perms = interaction.permissions
        roles = [str(r.id) for r in getattr(interaction.user, "roles", [])]
        return await self.appeals.may_review(
            _user(interaction), is_admin=perms.manage_guild or perms.administrator, groups=roles
        )

    def _register(self, tree: app_commands.CommandTree[Any]) -> None:
        @tree.command(name="trace-appeals", description="Reviewers: appeals in this server (open by default)")
        @app_commands.guild_only()
        @app_commands.choices(status=[app_commands.Choice(name=s, value=s) for s in STATUSES])
        async def appeals_list(interaction: discord.Interaction, status: str = "open") -> None:
            if status not in STATUSES:
                await interaction.response.send_message("Status is open, accepted or rejected.", ephemeral=True)
                return
            await interaction.response.defer(ephemeral=True)
            if not await self.may_review(interaction):
                text = "Only reviewers see appeals (Manage Server, or a person or role set as reviewer)."
            else:
                rows = await self.appeals.list_appeals(PLATFORM, str(interaction.guild_id or ""), status)
                text = (
                    "\n".join(
                        f"#{a.appeal_id} · drill #{a.drill_id} · {discord.utils.escape_markdown(a.user)} · {a.part}: "
                        f"{discord.utils.escape_markdown(a.reason)[:200]}"
                        for a in rows
                    )
                    or f"No {status} appeals."
                )
            await interaction.followup.send(text[:2000], ephemeral=True, allowed_mentions=NO_PINGS)

        @tree.command(name="trace-rule", description="Reviewers: rule on one part of an appeal")
        @app_commands.guild_only()
        @app_commands.choices(
            part=[app_commands.Choice(name=p, value=p) for p in PARTS],
            decision=[app_commands.Choice(name=d, value=d) for d in ("accept", "reject")],
            credit=[app_commands.Choice(name=c, value=c) for c in ("1", "0.5", "0")],
        )
        async def rule(
            interaction: discord.Interaction,
            appeal: int,
            part: str,
            decision: str,
            credit: str | None = None,
            note: str = "",
            remember: str | None = None,
        ) -> None:
            if part not in PARTS or decision not in ("accept", "reject") or credit not in (None, "0", "0.5", "1"):
                await interaction.response.send_message(
                    "Choose a part, accept or reject, and a credit of 0, 0.5 or 1.", ephemeral=True
                )
                return
            await interaction.response.defer(ephemeral=True)
            if not await self.may_review(interaction):
                await interaction.followup.send("Only reviewers rule on appeals.", ephemeral=True)
                return
            try:
                ruling = await self.appeals.resolve(
                    PLATFORM,
                    str(interaction.guild_id or ""),
                    appeal,
                    accept=decision == "accept",
                    part=part,
                    reviewer=str(interaction.user.id),
                    credit=None if credit is None else float(credit),
                    note=note,
                    remember=remember,
                    told=True,
                )
            except DrillError as exc:
                await interaction.followup.send(str(exc)[:2000], ephemeral=True, allowed_mentions=NO_PINGS)
                return
            await interaction.followup.send(
                f"Appeal #{appeal}: {part} {ruling.status}; points {ruling.points_before} → {ruling.points}."
                + (f" Remembered “{ruling.remembered}” for this server." if ruling.remembered else ""),
                ephemeral=True,
                allowed_mentions=NO_PINGS,
            )
            try:
                person = await self.bot.client.fetch_user(int(ruling.appellant.user))
                await person.send(ruling.appellant_text(note)[:2000], allowed_mentions=NO_PINGS)
            except Exception as exc:  # the ruling stands; the notice sweep tells them later
                log.warning("appeal notification failed: %s", type(exc).__name__)
                await self.appeals.untold(ruling.appeal_id)
