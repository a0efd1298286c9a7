"""ChatPort for Slack. A drill is one message: the picture is uploaded first without a channel, then the message
is posted with an image block that references the file (`slack_file`), so its ts anchors the only thread and
nothing is out before everything worked. At the reveal the drill message is updated in place (headline,
answer count, no button) and the headline is broadcast from the thread. Private feedback goes by direct
message (it persists, unlike an ephemeral one). At most ~1 message per second per channel and a bounded
number in flight overall; 429s are retried after Retry-After by slack_sdk's RateLimitErrorRetryHandler."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from ...drills.ports import ChannelRef, DrillPost, MessageRef, RevealPost, UserRef
from .blocks import (
    clip,
    closed_drill_blocks,
    closed_text,
    drill_alt_text,
    drill_blocks,
    escape,
    feedback_blocks,
    headline_text,
    remaining_text,
    reveal_blocks,
    reveal_text,
)

log = logging.getLogger(__name__)
TokenLookup = Callable[[str], Awaitable[str | None]]
HomePublisher = Callable[[UserRef], Awaitable[None]]
MIN_GAP_SECONDS = 1.0
MAX_REMEMBERED = 1000  # drill file ids kept in memory (a restart reads them back from the message)


# Answers Slack may give differently a moment later; the engine retries a post only when it is one of these.
TEMPORARY_ERRORS = frozenset({"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"})


@contextlib.contextmanager
def transient_marked() -> Iterator[None]:
    """Tag a SlackApiError the engine may retry (`transient`); every other refusal is final."""
    try:
        yield
    except SlackApiError as exc:
        status = getattr(exc.response, "status_code", 200) or 200
        exc.transient = exc.response.get("error") in TEMPORARY_ERRORS or status >= 500  # type: ignore[attr-defined]
        raise


def make_client(token: str | None, base_url: str) -> AsyncWebClient:
    client = AsyncWebClient(token=token, base_url=base_url)
    client.retry_handlers.append(AsyncRateLimitErrorRetryHandler(max_retry_count=3))
    return client


class SlackChat:
    def __init__(
        self,
        token_for: TokenLookup,
        base_url: str,
        *,
        max_in_flight: int = 8,
        min_gap: float = MIN_GAP_SECONDS,
        update_every: float = 30.0,
    ) -> None:
        self.token_for = token_for
        self.base_url = base_url
        self._clients: dict[str, AsyncWebClient] = {}
        self._slots = asyncio.Semaphore(max_in_flight)
        self._channel_locks: dict[str, asyncio.Lock] = {}
        self._last_post: dict[str, float] = {}
        self.min_gap = min_gap
        self.update_every = update_every
        self._tickers: dict[str, asyncio.Task[None]] = {}  # parent message ts → its timer refresher
        self._files: dict[str, str] = {}  # drill message ts → the picture's file id (to keep it on updates)
        self._posts: dict[str, DrillPost] = {}  # drill message ts → what it showed (to close it at the reveal)
        self.publish_home: HomePublisher | None = None  # set by the app: refresh a person's App Home

    async def client(self, team: str) -> AsyncWebClient:
        token = await self.token_for(team)
        if token is None:
            raise PermissionError(f"tracedrill is not installed in Slack workspace {team}")
        c = self._clients.get(team)
        if c is None or c.token != token:
            c = make_client(token, self.base_url)
            self._clients[team] = c
        return c

    async def _paced(self, channel: str) -> None:
        """Keep posts to one channel at least `min_gap` apart (Slack's ~1 message/second/channel)."""
        lock = self._channel_locks.setdefault(channel, asyncio.Lock())
        async with lock:
            wait = self._last_post.get(channel, 0.0) + self.min_gap - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._last_post[channel] = time.monotonic()

    async def _upload(self, c: AsyncWebClient, png: bytes, filename: str, title: str, alt: str) -> str:
        """Upload without sharing to a channel; the message that shows it references the file id."""
        resp = await c.files_upload_v2(file=png, filename=filename, title=title, alt_txt=alt)
        return str(resp["file"]["id"])

    async def post_drill(self, channel: ChannelRef, post: DrillPost) -> MessageRef:
        c = await self.client(channel.workspace)
        left = max(0, int((post.deadline - post.posted_at).total_seconds()))
        async with self._slots:
            with transient_marked():
                file_id = await self._upload(
                    c, post.image_png, "trace.png", f"Trace drill #{post.drill_id}", drill_alt_text(post)
                )
                await self._paced(channel.channel)
                resp = await c.chat_postMessage(
                    channel=channel.channel,
                    text=f"Trace drill #{post.drill_id}",
                    blocks=drill_blocks(post, left, file_id),
                    unfurl_links=False,
                )
        ts = str(resp["ts"])  # the last call that can fail: the engine stores this ts next
        self._remember(ts, file_id, post)
        ref = MessageRef(channel, ts)
        task = asyncio.get_running_loop().create_task(self._tick(ref, post))
        self._tickers[ts] = task
        task.add_done_callback(lambda _t: self._tickers.pop(ts, None))
        return ref

    def _remember(self, ts: str, file_id: str, post: DrillPost) -> None:
        while len(self._files) >= MAX_REMEMBERED:
            oldest = next(iter(self._files))
            self._files.pop(oldest, None)
            self._posts.pop(oldest, None)
        self._files[ts] = file_id
        self._posts[ts] = post

    async def close(self) -> None:
        tasks = list(self._tickers.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for c in self._clients.values():
            if c.session is not None:
                await c.session.close()

    async def _tick(self, ref: MessageRef, post: DrillPost) -> None:
        """Refresh the remaining-time line at a modest cadence, and once more when time is up."""
        while True:
            left = int((post.deadline - datetime.now(UTC)).total_seconds())
            await asyncio.sleep(min(self.update_every, max(left, 0)) if left > 0 else 0)
            left = max(0, int((post.deadline - datetime.now(UTC)).total_seconds()))
            try:
                await self.update_drill(ref, post, left)
            except Exception:  # a missed refresh is cosmetic
                return
            if left <= 0:
                return

    async def update_drill(self, ref: MessageRef, post: DrillPost, remaining_seconds: int) -> None:
        file_id = self._files.get(ref.message)
        if file_id is None:  # closed, or posted before a restart: a refresh would drop the picture
            return
        c = await self.client(ref.channel.workspace)
        async with self._slots:
            await c.chat_update(
                channel=ref.channel.channel,
                ts=ref.message,
                text=remaining_text(post.deadline, remaining_seconds),
                blocks=drill_blocks(post, remaining_seconds, file_id),
            )

    async def post_reveal(self, ref: MessageRef, post: RevealPost) -> MessageRef:
        c = await self.client(ref.channel.workspace)
        thread = ref.message or None
        ticker = self._tickers.pop(ref.message, None)
        if ticker is not None:
            ticker.cancel()  # the reveal ends the countdown; wait, so no late refresh brings the button back
            await asyncio.gather(ticker, return_exceptions=True)
        async with self._slots:
            with transient_marked():
                file_id = await self._upload(
                    c,
                    post.image_png,
                    "reveal.png",
                    f"Reveal of drill #{post.drill_id}",
                    f"Annotated reveal: {post.title}",
                )
                await self._paced(ref.channel.channel)
                resp = await c.chat_postMessage(
                    channel=ref.channel.channel,
                    thread_ts=thread,
                    text=clip(reveal_text(post)),
                    blocks=reveal_blocks(post, file_id),
                    unfurl_links=False,
                )
            if thread:  # the reveal is out: from here on a failure must not make the engine post it again
                await self._paced(ref.channel.channel)
                try:
                    await c.chat_postMessage(
                        channel=ref.channel.channel,
                        thread_ts=thread,
                        reply_broadcast=True,
                        text=headline_text(post),
                        unfurl_links=False,
                    )
                except SlackApiError as exc:
                    log.warning(
                        "broadcasting the headline of drill %s failed: %s", post.drill_id, exc.response.get("error")
                    )
        if thread:
            await self._close_drill(c, ref, post)
        return MessageRef(ref.channel, str(resp["ts"]))

    async def _close_drill(self, c: AsyncWebClient, ref: MessageRef, reveal: RevealPost) -> None:
        """Update the drill message in place: the headline and answer count, and no Submit button."""
        drill = self._posts.pop(ref.message, None)
        file_id = self._files.pop(ref.message, None)
        try:
            if drill is None:  # after a restart: read back what the message showed
                head, file_id = await self._read_back(c, ref)
                blocks = [*head, {"type": "section", "text": {"type": "mrkdwn", "text": closed_text(reveal)}}]
            else:
                blocks = closed_drill_blocks(drill, reveal, file_id)
            async with self._slots:
                await c.chat_update(
                    channel=ref.channel.channel,
                    ts=ref.message,
                    blocks=blocks,
                    text=f"Trace drill #{reveal.drill_id} — revealed: {escape(reveal.headline)}",
                )
        except SlackApiError as exc:  # the reveal is out in the thread; a stale parent is cosmetic
            log.warning("closing drill message %s failed: %s", ref.message, exc.response.get("error"))

    async def _read_back(self, c: AsyncWebClient, ref: MessageRef) -> tuple[list[dict[str, Any]], str | None]:
        hist = await c.conversations_history(channel=ref.channel.channel, latest=ref.message, inclusive=True, limit=1)
        messages = hist.get("messages") or []
        blocks = list(messages[0].get("blocks") or []) if messages else []
        keep = [b for b in blocks if b.get("type") in ("header", "section", "image")][:3]
        file_id = next(
            (b["slack_file"].get("id") for b in keep if b.get("type") == "image" and b.get("slack_file")), None
        )
        return keep, file_id

    async def send_private(
        self,
        channel: ChannelRef,
        user: UserRef,
        text: str,
        *,
        thread: MessageRef | None = None,
        blocks: list[dict[str, Any]] | None = None,
    ) -> None:
        """A direct message (persists across devices; needs im:write). If the DM fails, an ephemeral note in
        the channel. The person's App Home is refreshed too, so the feedback is also there."""
        c = await self.client(channel.workspace)
        try:
            await self.direct_message(c, user.user, escape(text), blocks)
        except SlackApiError as exc:
            log.info("DM to %s failed (%s); trying ephemeral", user.user, exc.response.get("error"))
            if channel.channel:
                async with self._slots:
                    await c.chat_postEphemeral(
                        channel=channel.channel, user=user.user, text=escape(text), blocks=blocks
                    )
        if self.publish_home is not None:
            try:
                await self.publish_home(user)
            except Exception as exc:  # the DM carried it; a stale Home is not worth failing over
                log.warning("App Home refresh failed: %s", type(exc).__name__)

    async def direct_message(
        self, c: AsyncWebClient, user_id: str, text: str, blocks: list[dict[str, Any]] | None = None
    ) -> None:
        async with self._slots:
            opened = await c.conversations_open(users=user_id)
            dm = str(opened["channel"]["id"])
            await c.chat_postMessage(channel=dm, text=text, blocks=blocks, unfurl_links=False)

    async def send_grade_feedback(
        self, channel: ChannelRef, user: UserRef, drill_id: int, text: str, *, thread: MessageRef | None = None
    ) -> None:
        """Private feedback (DM, else ephemeral) with "Appeal this grade" under it (FeedbackPort)."""
        await self.send_private(channel, user, text, thread=thread, blocks=feedback_blocks(drill_id, text))

    async def announce(self, channel: ChannelRef, text: str) -> None:
        c = await self.client(channel.workspace)
        async with self._slots:
            await self._paced(channel.channel)
            await c.chat_postMessage(channel=channel.channel, text=escape(text))
