"""Discord side of hints and appeals: the Hint button on the drill, "Appeal this grade" on the private feedback
(both buttons live in views.py) → modal, `/trace-appeals` and `/trace-rule` for reviewers (Manage Server, or a
reviewer person or role), and the appellant told by DM. Kept apart from bot.py so the adapter rework (issue 16)
merges cleanly."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

import discord
from discord import app_commands

from ...drills.appeals import STATUSES, AppealService, Ruling
from ...drills.errors import DrillError
from ...drills.hint_service import HintService
from ...drills.synonyms import PARTS
from .codes import NO_PINGS
from .host import BotHost
from .interactions import PLATFORM, followup, may_manage, user_of
from .routes import routes
from .views import AppealButton, HintButton

log = logging.getLogger(__name__)
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


class DiscordAppeals:
    def __init__(self, bot: BotHost) -> None:
        self.bot = bot
        self.hints = HintService(bot.engine)
        self.appeals = AppealService(bot.engine)
        bound = routes(bot.client)
        bound.hint, bound.appeal = self.hint, self.open_appeal
        self._register(bot.tree)

    @staticmethod
    def dynamic_items() -> tuple[type[Any], ...]:
        return (HintButton, AppealButton)

    async def hint(self, interaction: discord.Interaction, drill_id: int) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        hints = self.hints

        async def hint_text() -> str:
            return (await hints.hint(drill_id, user_of(interaction))).private_text()

        await self.bot.runner.reply_after(f"hint for drill {drill_id}", hint_text(), followup(interaction))

    async def open_appeal(self, interaction: discord.Interaction, drill_id: int) -> None:
        await interaction.response.send_modal(AppealModal(drill_id, self.appealed))

    async def appealed(self, interaction: discord.Interaction, drill_id: int, part: str, reason: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        part = part.strip().lower() or "all"

        async def receipt() -> str:
            info = await self.appeals.file(drill_id, user_of(interaction), reason, part)
            return f"Appeal #{info.appeal_id} on drill #{drill_id} is open; you will hear the ruling by DM."

        await self.bot.runner.reply_after(f"appeal on drill {drill_id}", receipt(), followup(interaction))

    async def may_review(self, interaction: discord.Interaction) -> bool:
        roles = [str(r.id) for r in getattr(interaction.user, "roles", [])]
        return await self.appeals.may_review(user_of(interaction), is_admin=may_manage(interaction), groups=roles)

    async def list_text(self, interaction: discord.Interaction, status: str) -> str:
        if not await self.may_review(interaction):
            return "Only reviewers see appeals (Manage Server, or a person or role set as reviewer)."
        rows = await self.appeals.list_appeals(PLATFORM, str(interaction.guild_id or ""), status)
        md = discord.utils.escape_markdown
        lines = [f"#{a.appeal_id} · drill #{a.drill_id} · {md(a.user)} · {a.part}: {md(a.reason)[:200]}" for a in rows]
        return "\n".join(lines) or f"No {status} appeals."

    async def rule(self, interaction: discord.Interaction, asked: RuleAsked) -> None:
        reply = followup(interaction)
        if not await self.may_review(interaction):
            await interaction.followup.send("Only reviewers rule on appeals.", ephemeral=True)
            return
        appeal, part, decision, credit, note, remember = asked
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
            await reply(str(exc))
            return
        await reply(
            f"Appeal #{appeal}: {part} {ruling.status}; points {ruling.points_before} → {ruling.points}."
            + (f" Remembered “{ruling.remembered}” for this server." if ruling.remembered else "")
        )
        await self._tell(ruling, note)

    async def _tell(self, ruling: Ruling, note: str) -> None:
        try:
            person = await self.bot.client.fetch_user(int(ruling.appellant.user))
            await person.send(ruling.appellant_text(note)[:2000], allowed_mentions=NO_PINGS)
        except Exception as exc:  # the ruling stands; the notice sweep tells them later
            log.warning("appeal notification failed: %s", type(exc).__name__)
            await self.appeals.untold(ruling.appeal_id)

    def _register(self, tree: app_commands.CommandTree[Any]) -> None:
        @tree.command(name="trace-appeals", description="Reviewers: appeals in this server (open by default)")
        @app_commands.guild_only()
        @app_commands.choices(status=[app_commands.Choice(name=s, value=s) for s in STATUSES])
        async def appeals_list(interaction: discord.Interaction, status: str = "open") -> None:
            if status not in STATUSES:
                await interaction.response.send_message("Status is open, accepted or rejected.", ephemeral=True)
                return
            await interaction.response.defer(ephemeral=True)
            await followup(interaction)(await self.list_text(interaction, status))

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
            await self.rule(interaction, RuleAsked(appeal, part, decision, credit, note, remember))


class RuleAsked(NamedTuple):
    """`/trace-rule`'s options, checked."""

    appeal: int
    part: str
    decision: str
    credit: str | None
    note: str
    remember: str | None
