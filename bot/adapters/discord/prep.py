"""Interview prep on Discord: `/trace-math`, `/trace-math-board`, `/trace-interview`, `/trace-prep-schedule`,
their persistent buttons (dynamic items keyed by id) and modals, and the posts. Nothing pings."""

from __future__ import annotations

import io
import re
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from ...drills.ports import ChannelRef, MessageRef, UserRef
from ...interview.ports import InterviewInvite, RoundPost
from ...interview.session import MAX_ROUNDS
from ...mathdrill.answers import MAX_ANSWER_CHARS, UnreadableAnswer, parse_answer
from ...mathdrill.ports import MathPost, MathRevealPost
from ...mathdrill.questions import KINDS
from ...prep.commands import PrepCommand, parse_prep
from ...prep.root import PrepServices
from ...prep.schedules import schedule_off, set_schedule
from ..common.runner import ErrorTable
from .codes import NO_PINGS, THREAD_ALREADY_CREATED
from .host import BotHost
from .interactions import followup, may_manage, refs, submit_errors
from .pages import pages
from .routes import routes

KIND_CHOICES = [app_commands.Choice(name=k, value=k) for k in KINDS]
WHAT_CHOICES = [app_commands.Choice(name=w, value=w) for w in ("math", "interview")]
PERIOD_CHOICES = [app_commands.Choice(name=p, value=p) for p in ("week", "month", "all")]
MAX_ROUND_CHARS = 4000


class MathButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"tracedrill:math:(?P<id>[0-9]{1,12})"):
    def __init__(self, question_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Answer", style=discord.ButtonStyle.primary, custom_id=f"tracedrill:math:{question_id}"
            )
        )
        self.key = question_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> MathButton:
        return cls(int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        press = routes(interaction.client).math
        if press is not None:
            await press(interaction, self.key)


class RoundButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"tracedrill:round:(?P<id>[0-9]{1,12})"):
    def __init__(self, session_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Answer this round", style=discord.ButtonStyle.primary, custom_id=f"tracedrill:round:{session_id}"
            )
        )
        self.key = session_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RoundButton:
        return cls(int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        press = routes(interaction.client).round
        if press is not None:
            await press(interaction, self.key)


class StartButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tracedrill:istart:(?P<rounds>[0-9]{1,2}):(?P<group>[0-9]{0,12})",
):
    def __init__(self, rounds: int, group_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Start my interview",
                style=discord.ButtonStyle.success,
                custom_id=f"tracedrill:istart:{rounds}:{group_id or ''}",
            )
        )
        self.rounds, self.group_id = rounds, group_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> StartButton:
        return cls(int(match["rounds"]), int(match["group"] or 0))

    async def callback(self, interaction: discord.Interaction) -> None:
        press = routes(interaction.client).start
        if press is not None:
            await press(interaction, self.rounds, self.group_id)


class AnswerModal(discord.ui.Modal):
    def __init__(
        self,
        title: str,
        custom_id: str,
        label: str,
        max_chars: int,
        paragraph: bool,
        on_answer: Callable[[discord.Interaction, str], Awaitable[None]],
    ) -> None:
        super().__init__(title=title[:45], custom_id=custom_id, timeout=None)
        self.on_answer = on_answer
        self.answer: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label=label[:45],
            style=discord.TextStyle.paragraph if paragraph else discord.TextStyle.short,
            min_length=1,
            max_length=max_chars,
            required=True,
            custom_id="tracedrill:prep-answer",
        )
        self.add_item(self.answer)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await self.on_answer(interaction, self.answer.value or "")


def _view(*items: discord.ui.Item[Any]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


class DiscordPrepChat:
    """MathChat and InterviewChat on Discord."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    def _channel(self, channel: ChannelRef) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(int(channel.channel))

    async def _thread(self, ref: MessageRef, name: str) -> discord.abc.Messageable:
        if not ref.message:
            return self._channel(ref.channel)
        try:
            data = await self.client.http.start_thread_with_message(
                int(ref.channel.channel), int(ref.message), name=name[:100], auto_archive_duration=1440
            )
            thread_id = int(data["id"])
        except discord.HTTPException as exc:
            if exc.code != THREAD_ALREADY_CREATED:
                raise
            thread_id = int(ref.message)  # a thread made from a message shares its id
        guild = int(ref.channel.workspace) if ref.channel.workspace.isdigit() else None
        return self.client.get_partial_messageable(thread_id, guild_id=guild, type=discord.ChannelType.public_thread)

    async def post_math(self, channel: ChannelRef, post: MathPost) -> MessageRef:
        q, ts = post.question, int(post.deadline.timestamp())
        embed = discord.Embed(
            title=f"Mental math #{post.question_id}", description=q.question[:4000], colour=discord.Colour.gold()
        )
        embed.add_field(
            name="Answer", value=f"in {q.unit}, ±{q.tolerance:.0%} counts · closes <t:{ts}:R>", inline=False
        )
        message = await self._channel(channel).send(
            embed=embed, view=_view(MathButton(post.question_id)), allowed_mentions=NO_PINGS
        )
        return MessageRef(channel, str(message.id))

    async def post_math_reveal(self, ref: MessageRef, post: MathRevealPost) -> MessageRef:
        thread = await self._thread(ref, f"Math #{post.question_id} · reveal")
        last = None
        for part in pages(post.text()):
            last = await thread.send(f"```\n{part}\n```", allowed_mentions=NO_PINGS)
        return MessageRef(ref.channel, str(last.id) if last else "")

    async def send_private(self, channel: ChannelRef, user: UserRef, text: str) -> None:
        person = await self.client.fetch_user(int(user.user))
        for part in pages(text):
            await person.send(part, allowed_mentions=NO_PINGS)

    async def post_round(self, channel: ChannelRef, post: RoundPost) -> MessageRef:
        ts = int(post.deadline.timestamp())
        embed = discord.Embed(
            title=f"Mock interview · round {post.number}/{post.rounds} · {post.difficulty}",
            description=f"<@{post.user.user}>'s interview. **{post.title}**\n" + "\n".join(post.context_lines)[:3500],
            colour=discord.Colour.teal(),
        )
        embed.add_field(
            name="Clock",
            value=f"5 minutes: <t:{ts}:R>. Narrate it: step → gaps → overlap → top "
            "kernels, quote this trace's numbers, name the lookalike and say why it is not that.",
            inline=False,
        )
        embed.set_image(url="attachment://trace.png")
        message = await self._channel(channel).send(
            embed=embed,
            file=discord.File(io.BytesIO(post.image_png), "trace.png"),
            view=_view(RoundButton(post.session_id)),
            allowed_mentions=NO_PINGS,
        )
        return MessageRef(channel, str(message.id))

    async def post_text(self, ref: MessageRef, text: str) -> MessageRef:
        thread = await self._thread(ref, "Interview feedback")
        last = None
        for part in pages(text):
            last = await thread.send(part, allowed_mentions=NO_PINGS)
        return MessageRef(ref.channel, str(last.id) if last else "")

    async def post_invite(self, channel: ChannelRef, invite: InterviewInvite) -> MessageRef:
        who = f" for study group **{discord.utils.escape_markdown(invite.group)}**" if invite.group else ""
        message = await self._channel(channel).send(
            f"**Mock interview session**{who}: {invite.rounds} rounds, 5 minutes each, rising difficulty.",
            view=_view(StartButton(invite.rounds, invite.group_id or 0)),
            allowed_mentions=NO_PINGS,
        )
        return MessageRef(channel, str(message.id))


ROUND_ERRORS: ErrorTable = submit_errors("Something went wrong; `/trace-interview resume:True` continues.")


def register_prep(bot: BotHost, prep: PrepServices) -> None:
    """Commands on the bot's tree, persistent buttons on its client, and the chat ports for both services."""
    chat = DiscordPrepChat(bot.client)
    prep.math.chats["discord"] = chat
    prep.interview.chats["discord"] = chat
    bot.client.add_dynamic_items(MathButton, RoundButton, StartButton)
    buttons = PrepButtons(bot, prep)
    bound = routes(bot.client)
    bound.math, bound.round, bound.start = buttons.open_math, buttons.open_round, buttons.start_invited
    _register_math(bot, prep)
    _register_interview(bot, prep)
    _register_schedule(bot, prep)


def _register_math(bot: BotHost, prep: PrepServices) -> None:
    @bot.tree.command(name="trace-math", description="A 30-second mental-math question (busbw, bubble, ridge, MFU…)")
    @app_commands.guild_only()
    @app_commands.choices(kind=KIND_CHOICES)
    async def trace_math(interaction: discord.Interaction, kind: str | None = None) -> None:
        if kind is not None and kind not in KINDS:  # choices are only a client hint
            await interaction.response.send_message(f"Unknown kind. Choose: {', '.join(KINDS)}", ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        channel, _ = refs(interaction)

        async def start() -> str:
            started = await prep.math.start(channel, kind=kind)
            return f"Math #{started.id} posted: 30 seconds."

        bot.runner.later("/trace-math", start(), followup(interaction))

    @bot.tree.command(name="trace-math-board", description="This channel's mental-math leaderboard")
    @app_commands.guild_only()
    @app_commands.choices(period=PERIOD_CHOICES)
    async def math_board(interaction: discord.Interaction, period: str = "week") -> None:
        if period not in ("week", "month", "all"):
            await interaction.response.send_message("Period is week, month or all.", ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True)
        channel, _ = refs(interaction)
        bot.runner.later("/trace-math-board", prep.math.board_text(channel, period), followup(interaction))


def _register_interview(bot: BotHost, prep: PrepServices) -> None:
    @bot.tree.command(name="trace-interview", description="A mock interview: rounds of rising difficulty, 5 min each")
    @app_commands.guild_only()
    async def trace_interview(interaction: discord.Interaction, rounds: int = 3, resume: bool = False) -> None:
        if not resume and not 1 <= rounds <= MAX_ROUNDS:
            await interaction.response.send_message(f"An interview has 1 to {MAX_ROUNDS} rounds.", ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        channel, user = refs(interaction)

        async def again() -> str:
            s = await prep.interview.resume(user)
            return f"Interview #{s.session_id}: the current round is posted again."

        async def start() -> str:
            s = await prep.interview.start(channel, user, rounds=rounds)
            return f"Interview #{s.session_id} started: {s.rounds} rounds."

        bot.runner.later("/trace-interview", again() if resume else start(), followup(interaction))


def _register_schedule(bot: BotHost, prep: PrepServices) -> None:
    @bot.tree.command(
        name="trace-prep-schedule",
        description="Schedule math questions or (study-group) interview "
        "sessions here: days=weekdays time=09:30, or days=off",
    )
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.choices(what=WHAT_CHOICES)
    async def prep_schedule(
        interaction: discord.Interaction,
        what: str,
        days: str,
        time: str = "09:30",
        timezone: str = "UTC",
        group: str = "",
    ) -> None:
        if not may_manage(interaction):
            await interaction.response.send_message("You need Manage Server to change the schedule.", ephemeral=True)
            return
        if what not in ("math", "interview"):
            await interaction.response.send_message("Schedule math or interview.", ephemeral=True)
            return
        cmd = parse_prep(_schedule_text(what, days, time, timezone, group))
        if cmd.name == "usage":
            await interaction.response.send_message(cmd.error, ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True)
        channel, _ = refs(interaction)
        bot.runner.later("/trace-prep-schedule", _schedule(prep, channel, cmd), followup(interaction))


def _schedule_text(what: str, days: str, time: str, timezone: str, group: str) -> str:
    """The options as the `/trace math|interview schedule …` text the shared parser reads."""
    if days.strip().lower() == "off":
        return f"{what} schedule off"
    return (
        f"{what} schedule " + (f"group {group} " if group and what == "interview" else "") + f"{days} {time} {timezone}"
    )


async def _schedule(prep: PrepServices, channel: ChannelRef, cmd: PrepCommand) -> str:
    if cmd.name == "schedule_off":
        out = (await schedule_off(prep.math.db, channel, cmd.target)).text()
    else:
        out = (
            await set_schedule(
                prep.math.db, channel, cmd.target, cmd.weekdays, cmd.hour, cmd.minute, cmd.timezone, group=cmd.group
            )
        ).text()
    prep.schedules_changed()
    return out


class PrepButtons:
    """What the persistent Answer and Start buttons do: open a form, or start an interview."""

    def __init__(self, bot: BotHost, prep: PrepServices) -> None:
        self.bot, self.prep = bot, prep

    async def open_math(self, interaction: discord.Interaction, qid: int) -> None:
        modal = AnswerModal(
            f"Math #{qid}",
            f"tracedrill:mathmodal:{qid}",
            "Your answer (e.g. 1,200 or 45%)",
            MAX_ANSWER_CHARS,
            False,
            lambda inner, text: self.math_answered(inner, qid, text),
        )
        await interaction.response.send_modal(modal)

    async def math_answered(self, inner: discord.Interaction, qid: int, text: str) -> None:
        await inner.response.defer(ephemeral=True, thinking=True)
        _, user = refs(inner)
        prep = self.prep

        async def reply() -> str:
            try:
                parse_answer(text)
            except UnreadableAnswer as exc:
                return f"{exc} — nothing was recorded; press Answer again."
            return (await prep.math.answer(qid, user, text)).text

        await self.bot.runner.reply_after(f"math answer {qid}", reply(), followup(inner))

    async def open_round(self, interaction: discord.Interaction, sid: int) -> None:
        message = str(interaction.message.id) if interaction.message else ""
        modal = AnswerModal(
            f"Interview #{sid}",
            f"tracedrill:roundmodal:{sid}",
            "Your read, as you would say it",
            MAX_ROUND_CHARS,
            True,
            lambda inner, text: self.round_answered(inner, sid, message, text),
        )
        await interaction.response.send_modal(modal)

    async def round_answered(self, inner: discord.Interaction, sid: int, message: str, text: str) -> None:
        await inner.response.defer(ephemeral=True, thinking=True)
        channel, user = refs(inner)
        prep = self.prep

        async def reply() -> str:
            done = await prep.interview.answer(sid, user, text, MessageRef(channel, message) if message else None)
            return "Summary posted in the thread." if done.finished else "Recorded; the next round is up."

        await self.bot.runner.reply_after(f"interview answer {sid}", reply(), followup(inner), ROUND_ERRORS)

    async def start_invited(self, interaction: discord.Interaction, rounds: int, group_id: int) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        channel, user = refs(interaction)
        prep = self.prep

        async def start() -> str:
            s = await prep.interview.start(channel, user, rounds=rounds, group_id=group_id or None)
            return f"Interview #{s.session_id} started: {s.rounds} rounds."

        self.bot.runner.later("interview from an invite", start(), followup(interaction))
