"""A ChatPort that records every call: real code, used by tests and benchmarks."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from .ports import ChannelRef, DrillPost, MessageRef, RevealPost, UserRef


@dataclass
class FakeChat:
    drills: list[tuple[ChannelRef, DrillPost]] = field(default_factory=list)
    reveals: list[tuple[MessageRef, RevealPost]] = field(default_factory=list)
    private: list[tuple[ChannelRef, UserRef, str]] = field(default_factory=list)
    announcements: list[tuple[ChannelRef, str]] = field(default_factory=list)
    fail_next: int = 0  # make the next N calls raise, to test failure paths
    delay: float = 0.0
    in_flight: int = 0  # calls now inside their delay: a test can cancel a post known to be under way

    async def _maybe_fail(self) -> None:
        if self.delay:
            self.in_flight += 1
            try:
                await asyncio.sleep(self.delay)
            finally:
                self.in_flight -= 1
        if self.fail_next:
            self.fail_next -= 1
            raise ConnectionError("fake chat: injected failure")

    async def post_drill(self, channel: ChannelRef, post: DrillPost) -> MessageRef:
        await self._maybe_fail()
        self.drills.append((channel, post))
        return MessageRef(channel, f"msg-{len(self.drills)}")

    async def post_reveal(self, ref: MessageRef, post: RevealPost) -> MessageRef:
        await self._maybe_fail()
        self.reveals.append((ref, post))
        return MessageRef(ref.channel, f"reveal-{len(self.reveals)}")

    async def send_private(
        self, channel: ChannelRef, user: UserRef, text: str, *, thread: MessageRef | None = None
    ) -> None:
        await self._maybe_fail()
        self.private.append((channel, user, text))

    async def announce(self, channel: ChannelRef, text: str) -> None:
        await self._maybe_fail()
        self.announcements.append((channel, text))
