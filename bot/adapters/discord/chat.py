"""ChatPort for Discord: embeds with the picture attached, threads for reveals, private feedback through the
interaction's follow-up webhook while its 15-minute token lives (a DM afterwards). Nothing pings."""

from __future__ import annotations

import io
import time
from dataclasses import dataclass

import discord

from ...cleantext import in_code_block
from ...drills.ports import ChannelRef, DrillPost, MessageRef, RevealPost, UserRef
from .views import drill_view

NO_PINGS = discord.AllowedMentions.none()
TOKEN_LIFETIME = 15 * 60 - 30  # seconds a follow-up webhook token may still be used
THREAD_ALREADY_CREATED = 160004


@dataclass(frozen=True, slots=True)
class FollowUp:
    webhook: discord.Webhook  # the interaction's follow-up webhook (an application webhook: ephemeral allowed)
    expires: float


def drill_embed(post: DrillPost) -> discord.Embed:
    ts = int(post.deadline.timestamp())
    md = discord.utils.escape_markdown  # a drill from an uploaded trace quotes its file and device names
    embed = discord.Embed(title=f"Trace drill #{post.drill_id} — {md(post.title)}"[:256],
                          description="\n".join(md(line) for line in post.context_lines)[:4000],
                          colour=discord.Colour.blurple())
    embed.add_field(name="Deadline", value=f"<t:{ts}:R> (at <t:{ts}:T>)", inline=False)
    embed.add_field(name="How to answer", value="Read it in order: step → gaps → overlap → top kernels. Press "
                    "**Submit diagnosis**; answers stay hidden until the reveal.", inline=False)
    embed.set_image(url="attachment://trace.png")
    return embed


def _guild(channel: ChannelRef) -> int | None:
    return int(channel.workspace) if channel.workspace.isdigit() else None


def chunks(text: str, size: int = 1900) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class DiscordChat:
    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self.followups: dict[tuple[str, str], FollowUp] = {}  # (channel, user) → latest interaction token

    def remember(self, interaction: discord.Interaction) -> None:
        if interaction.channel_id is None:
            return
        self.followups[(str(interaction.channel_id), str(interaction.user.id))] = FollowUp(
            interaction.followup, time.monotonic() + TOKEN_LIFETIME)

    async def post_drill(self, channel: ChannelRef, post: DrillPost) -> MessageRef:
        target = self.client.get_partial_messageable(int(channel.channel))
        message = await target.send(embed=drill_embed(post), file=discord.File(io.BytesIO(post.image_png),
                                    "trace.png"), view=drill_view(post.drill_id), allowed_mentions=NO_PINGS)
        return MessageRef(channel, str(message.id))

    async def update_drill(self, ref: MessageRef, post: DrillPost, remaining_seconds: int) -> None:
        return None  # <t:…:R> counts down in every client by itself

    async def post_reveal(self, ref: MessageRef, post: RevealPost) -> MessageRef:
        thread = await self._thread(ref, f"Reveal · drill #{post.drill_id}")
        ranked = "\n".join(f"{i}. {discord.utils.escape_markdown(s.user)} — {s.points} pts "
                           f"({round(100 * s.score)}/100)" for i, s in enumerate(post.scores, start=1))
        headline = discord.utils.escape_markdown(post.headline)
        await thread.send(f"**Reveal — {headline}**", file=discord.File(io.BytesIO(post.image_png), "reveal.png"),
                          allowed_mentions=NO_PINGS)
        for part in chunks(post.text):
            await thread.send(in_code_block(part), allowed_mentions=NO_PINGS)
        last = await thread.send("**Scores**\n" + (ranked or "Nobody answered this one."), allowed_mentions=NO_PINGS)
        return MessageRef(ref.channel, str(last.id))

    async def _thread(self, ref: MessageRef, name: str) -> discord.abc.Messageable:
        """The drill message's thread; creating it twice is harmless (a thread from a message shares its id).

        Uses the REST call directly: no gateway cache is needed, only the channel and message ids."""
        if not ref.message:
            return self.client.get_partial_messageable(int(ref.channel.channel))
        try:
            data = await self.client.http.start_thread_with_message(
                int(ref.channel.channel), int(ref.message), name=name[:100], auto_archive_duration=1440)
            thread_id = int(data["id"])
        except discord.HTTPException as exc:
            if exc.code != THREAD_ALREADY_CREATED:
                raise
            thread_id = int(ref.message)
        return self.client.get_partial_messageable(thread_id, guild_id=_guild(ref.channel),
                                                   type=discord.ChannelType.public_thread)

    async def send_private(self, channel: ChannelRef, user: UserRef, text: str) -> None:
        follow = self.followups.get((channel.channel, user.user))
        if follow is not None and follow.expires > time.monotonic():
            for part in chunks(text):
                await follow.webhook.send(part, ephemeral=True, allowed_mentions=NO_PINGS)
            return
        person = await self.client.fetch_user(int(user.user))
        for part in chunks(text):
            await person.send(part, allowed_mentions=NO_PINGS)

    async def announce(self, channel: ChannelRef, text: str) -> None:
        await self.client.get_partial_messageable(int(channel.channel)).send(text[:2000], allowed_mentions=NO_PINGS)
