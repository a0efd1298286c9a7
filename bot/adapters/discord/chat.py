"""ChatPort for Discord: embeds with the picture attached, threads for reveals (or the drill's own thread when it
was posted in a thread or forum post), private feedback through the interaction's follow-up webhook while its
15-minute token lives, a DM afterwards, and a note in the reveal thread for people whose DMs are closed.
Nothing pings, except that note (it mentions only the person it is for)."""

from __future__ import annotations

import io
import logging
import time
from dataclasses import dataclass

import discord

from ...cleantext import in_code_block
from ...drills.errors import ChatUnreachable
from ...drills.ports import ChannelRef, DrillPost, MessageRef, RevealPost, UserRef
from .codes import (
    CANNOT_DM,
    MISSING_PERMISSIONS,
    NO_PINGS,
    PERMANENT,
    THREAD_ALREADY_CREATED,
    WRONG_CHANNEL_TYPE,
)
from .pages import pages
from .views import drill_view, feedback_view

log = logging.getLogger(__name__)
TOKEN_LIFETIME = 15 * 60 - 30  # seconds a follow-up webhook token may still be used


@dataclass(frozen=True, slots=True)
class FollowUp:
    webhook: discord.Webhook  # the interaction's follow-up webhook (an application webhook: ephemeral allowed)
    expires: float


def drill_embed(post: DrillPost) -> discord.Embed:
    ts = int(post.deadline.timestamp())
    md = discord.utils.escape_markdown  # a drill from an uploaded trace quotes its file and device names
    embed = discord.Embed(
        title=f"Trace drill #{post.drill_id} — {md(post.title)}"[:256],
        description="\n".join(md(line) for line in post.context_lines)[:4000],
        colour=discord.Colour.blurple(),
    )
    embed.add_field(name="Deadline", value=f"<t:{ts}:R> (at <t:{ts}:T>)", inline=False)
    embed.add_field(
        name="How to answer",
        value="Read it in order: step → gaps → overlap → top kernels. Press "
        "**Submit diagnosis**; answers stay hidden until the reveal.",
        inline=False,
    )
    embed.set_image(url="attachment://trace.png")
    return embed


def _guild(channel: ChannelRef) -> int | None:
    return int(channel.workspace) if channel.workspace.isdigit() else None


class DiscordChat:
    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self.followups: dict[tuple[str, str], FollowUp] = {}  # (channel, user) → latest interaction token

    def remember(self, interaction: discord.Interaction) -> None:
        if interaction.channel_id is None:
            return
        now = time.monotonic()
        for key in [k for k, f in self.followups.items() if f.expires <= now]:  # dead tokens go
            del self.followups[key]
        self.followups[(str(interaction.channel_id), str(interaction.user.id))] = FollowUp(
            interaction.followup, now + TOKEN_LIFETIME
        )

    async def post_drill(self, channel: ChannelRef, post: DrillPost) -> MessageRef:
        target = self.client.get_partial_messageable(int(channel.channel))
        message = await target.send(
            embed=drill_embed(post),
            file=discord.File(io.BytesIO(post.image_png), "trace.png"),
            view=drill_view(post.drill_id),
            allowed_mentions=NO_PINGS,
        )
        return MessageRef(channel, str(message.id))

    async def update_drill(self, ref: MessageRef, post: DrillPost, remaining_seconds: int) -> None:
        return None  # <t:…:R> counts down in every client by itself

    async def post_reveal(self, ref: MessageRef, post: RevealPost) -> MessageRef:
        ranked = "\n".join(
            f"{i}. {discord.utils.escape_markdown(s.user)} — {s.points} pts "
            f"({round(100 * s.score)}/100)" + (" · hinted" if s.hinted else "")
            for i, s in enumerate(post.scores, start=1)
        )
        target, first_reply_to = await self._thread(ref, f"Reveal · drill #{post.drill_id}")
        try:
            reference = (
                discord.MessageReference(
                    message_id=int(ref.message), channel_id=int(ref.channel.channel), fail_if_not_exists=False
                )
                if first_reply_to
                else None
            )
            headline = discord.utils.escape_markdown(post.headline)
            await target.send(
                f"**Reveal — {headline}**",
                file=discord.File(io.BytesIO(post.image_png), "reveal.png"),
                allowed_mentions=NO_PINGS,
                reference=reference,  # type: ignore[arg-type]  # discord.py's stub omits None, which it accepts
            )
            for part in pages(post.text):
                await target.send(in_code_block(part), allowed_mentions=NO_PINGS)
            last = await target.send(
                "**Scores**\n" + (ranked or "Nobody answered this one."), allowed_mentions=NO_PINGS
            )
        except (discord.Forbidden, discord.NotFound) as exc:
            if exc.code in PERMANENT:
                raise ChatUnreachable(f"Discord refused the reveal ({exc.code} {exc.text})") from exc
            raise
        where = ChannelRef(ref.channel.platform, ref.channel.workspace, str(target.id), ref.channel.name)
        return MessageRef(where, str(last.id))

    async def _thread(self, ref: MessageRef, name: str) -> tuple[discord.PartialMessageable, bool]:
        """Where the reveal goes, and whether it should reply to the drill message.

        A thread from the drill message (creating it twice is harmless: a thread from a message shares its id);
        the drill's own thread when it was posted in a thread or forum post (Discord answers 50024); the
        channel itself, replying to the drill, when the bot may not create threads (50013).
        Uses the REST call directly: no gateway cache is needed, only the channel and message ids."""
        channel = int(ref.channel.channel)
        if not ref.message:
            return self.client.get_partial_messageable(channel, guild_id=_guild(ref.channel)), False
        try:
            data = await self.client.http.start_thread_with_message(
                channel, int(ref.message), name=name[:100], auto_archive_duration=1440
            )
            thread_id = int(data["id"])
        except discord.HTTPException as exc:
            if exc.code == WRONG_CHANNEL_TYPE:
                return self.client.get_partial_messageable(channel, guild_id=_guild(ref.channel)), True
            if exc.code == MISSING_PERMISSIONS:
                log.warning("no permission to create a reveal thread in %s; replying in the channel", channel)
                return self.client.get_partial_messageable(channel, guild_id=_guild(ref.channel)), True
            if exc.code in PERMANENT:
                raise ChatUnreachable(f"Discord refused the reveal thread ({exc.code} {exc.text})") from exc
            if exc.code != THREAD_ALREADY_CREATED:
                raise
            thread_id = int(ref.message)
        return self.client.get_partial_messageable(
            thread_id, guild_id=_guild(ref.channel), type=discord.ChannelType.public_thread
        ), False

    async def send_private(
        self,
        channel: ChannelRef,
        user: UserRef,
        text: str,
        *,
        thread: MessageRef | None = None,
        view: discord.ui.View | None = None,
    ) -> None:
        """The interaction's follow-up while its token lives (15 minutes), else a DM; with DMs closed, a note in
        the reveal thread that pings only that person. `view` (e.g. "Appeal this grade") goes under the last part."""
        *head, last = pages(text)
        follow = self.followups.get((channel.channel, user.user))
        if follow is not None and follow.expires > time.monotonic():
            try:
                for part in head:
                    await follow.webhook.send(part, ephemeral=True, allowed_mentions=NO_PINGS)
                await follow.webhook.send(
                    last, ephemeral=True, allowed_mentions=NO_PINGS, view=view or discord.utils.MISSING
                )
                return
            except discord.HTTPException as exc:  # an expired or revoked token: try a DM
                log.info("follow-up failed (%s); trying a DM", exc.code)
        try:
            person = await self.client.fetch_user(int(user.user))
            for part in head:
                await person.send(part, allowed_mentions=NO_PINGS)
            await person.send(last, allowed_mentions=NO_PINGS, view=view or discord.utils.MISSING)
        except discord.Forbidden as exc:
            if exc.code != CANNOT_DM or thread is None:
                raise
            # DMs closed: say so where they will look, pinging only them; the feedback waits in /trace-me.
            note = (
                f"<@{int(user.user)}> your feedback for this drill couldn't reach you: your DMs are closed to "
                "this server's apps. Run `/trace-me` to read it."
            )
            await self.client.get_partial_messageable(int(thread.channel.channel), guild_id=_guild(channel)).send(
                note,
                allowed_mentions=discord.AllowedMentions(
                    everyone=False, roles=False, users=[discord.Object(int(user.user))]
                ),
            )

    async def send_grade_feedback(
        self, channel: ChannelRef, user: UserRef, drill_id: int, text: str, *, thread: MessageRef | None = None
    ) -> None:
        """Private feedback with "Appeal this grade" under its last part (FeedbackPort)."""
        await self.send_private(channel, user, text, thread=thread, view=feedback_view(drill_id))

    async def announce(self, channel: ChannelRef, text: str) -> None:
        await self.client.get_partial_messageable(int(channel.channel)).send(text[:2000], allowed_mentions=NO_PINGS)
