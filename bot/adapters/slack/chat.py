"""ChatPort for Slack. Posts the parent message first (its ts anchors the thread), then uploads the picture
with files_upload_v2. At most ~1 message per second per channel and a bounded number in flight overall;
429s are retried after Retry-After by slack_sdk's RateLimitErrorRetryHandler."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from ...drills.ports import ChannelRef, DrillPost, MessageRef, RevealPost, UserRef
from .blocks import drill_blocks, escape, remaining_text, reveal_text

TokenLookup = Callable[[str], Awaitable[str | None]]
MIN_GAP_SECONDS = 1.0


def make_client(token: str | None, base_url: str) -> AsyncWebClient:
    client = AsyncWebClient(token=token, base_url=base_url)
    client.retry_handlers.append(AsyncRateLimitErrorRetryHandler(max_retry_count=3))
    return client


def _alt_text(post: DrillPost) -> str:
    """Slack sends alt text in the upload URL's query: keep it short (its limit is 1,000 characters)."""
    return f"Nsight-style timeline: {post.title}"[:300]


class SlackChat:
    def __init__(self, token_for: TokenLookup, base_url: str, *, max_in_flight: int = 8,
                 min_gap: float = MIN_GAP_SECONDS, update_every: float = 30.0) -> None:
        self.token_for = token_for
        self.base_url = base_url
        self._clients: dict[str, AsyncWebClient] = {}
        self._slots = asyncio.Semaphore(max_in_flight)
        self._channel_locks: dict[str, asyncio.Lock] = {}
        self._last_post: dict[str, float] = {}
        self.min_gap = min_gap
        self.update_every = update_every
        self._tickers: dict[str, asyncio.Task[None]] = {}  # parent message ts → its timer refresher

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

    async def post_drill(self, channel: ChannelRef, post: DrillPost) -> MessageRef:
        c = await self.client(channel.workspace)
        left = max(0, int((post.deadline - post.posted_at).total_seconds()))
        async with self._slots:
            await self._paced(channel.channel)
            resp = await c.chat_postMessage(channel=channel.channel, text=f"Trace drill #{post.drill_id}",
                                            blocks=drill_blocks(post, left), unfurl_links=False)
            ts = str(resp["ts"])
            await self._paced(channel.channel)
            await c.files_upload_v2(channel=channel.channel, file=post.image_png, filename="trace.png",
                                    title=f"Trace drill #{post.drill_id}", alt_txt=_alt_text(post))
        ref = MessageRef(channel, ts)
        task = asyncio.get_running_loop().create_task(self._tick(ref, post))
        self._tickers[ts] = task
        task.add_done_callback(lambda _t: self._tickers.pop(ts, None))
        return ref

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
        c = await self.client(ref.channel.workspace)
        async with self._slots:
            await c.chat_update(channel=ref.channel.channel, ts=ref.message, text=remaining_text(
                post.deadline, remaining_seconds), blocks=drill_blocks(post, remaining_seconds))

    async def post_reveal(self, ref: MessageRef, post: RevealPost) -> MessageRef:
        c = await self.client(ref.channel.workspace)
        thread = ref.message or None
        ticker = self._tickers.pop(ref.message, None)
        if ticker is not None:
            ticker.cancel()  # the reveal ends the countdown
        async with self._slots:
            await self._paced(ref.channel.channel)
            await c.files_upload_v2(channel=ref.channel.channel, thread_ts=thread, file=post.image_png,
                                    filename="reveal.png", title=f"Reveal of drill #{post.drill_id}")
            await self._paced(ref.channel.channel)
            resp = await c.chat_postMessage(channel=ref.channel.channel, thread_ts=thread, text=reveal_text(post),
                                            unfurl_links=False)
        return MessageRef(ref.channel, str(resp["ts"]))

    async def send_private(self, channel: ChannelRef, user: UserRef, text: str) -> None:
        c = await self.client(channel.workspace)
        async with self._slots:
            await c.chat_postEphemeral(channel=channel.channel, user=user.user, text=escape(text))

    async def send_grade_feedback(self, channel: ChannelRef, user: UserRef, drill_id: int, text: str, *,
                                  thread: MessageRef | None = None) -> None:
        """Private feedback with "Appeal this grade" under it (FeedbackPort)."""
        from .appeals import feedback_blocks

        c = await self.client(channel.workspace)
        async with self._slots:
            await c.chat_postEphemeral(channel=channel.channel, user=user.user, text=escape(text),
                                       blocks=feedback_blocks(drill_id, text))

    async def announce(self, channel: ChannelRef, text: str) -> None:
        c = await self.client(channel.workspace)
        async with self._slots:
            await self._paced(channel.channel)
            await c.chat_postMessage(channel=channel.channel, text=escape(text))
