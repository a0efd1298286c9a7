"""A MathChat and InterviewChat that records every call: real code, used by tests (like drills.fake.FakeChat)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..drills.ports import ChannelRef, MessageRef, UserRef
from ..interview.ports import InterviewInvite, RoundPost
from ..mathdrill.ports import MathPost, MathRevealPost


@dataclass
class FakePrepChat:
    questions: list[tuple[ChannelRef, MathPost]] = field(default_factory=list)
    reveals: list[tuple[MessageRef, MathRevealPost]] = field(default_factory=list)
    rounds: list[tuple[ChannelRef, RoundPost]] = field(default_factory=list)
    texts: list[tuple[MessageRef, str]] = field(default_factory=list)
    invites: list[tuple[ChannelRef, InterviewInvite]] = field(default_factory=list)
    private: list[tuple[ChannelRef, UserRef, str]] = field(default_factory=list)
    fail_next: int = 0  # make the next N calls raise, to test failure paths

    def _maybe_fail(self) -> None:
        if self.fail_next:
            self.fail_next -= 1
            raise ConnectionError("fake chat: injected failure")

    async def post_math(self, channel: ChannelRef, post: MathPost) -> MessageRef:
        self._maybe_fail()
        self.questions.append((channel, post))
        return MessageRef(channel, f"math-{len(self.questions)}")

    async def post_math_reveal(self, ref: MessageRef, post: MathRevealPost) -> MessageRef:
        self._maybe_fail()
        self.reveals.append((ref, post))
        return MessageRef(ref.channel, f"math-reveal-{len(self.reveals)}")

    async def send_private(self, channel: ChannelRef, user: UserRef, text: str) -> None:
        self._maybe_fail()
        self.private.append((channel, user, text))

    async def post_round(self, channel: ChannelRef, post: RoundPost) -> MessageRef:
        self._maybe_fail()
        self.rounds.append((channel, post))
        return MessageRef(channel, f"round-{len(self.rounds)}")

    async def post_text(self, ref: MessageRef, text: str) -> MessageRef:
        self._maybe_fail()
        self.texts.append((ref, text))
        return MessageRef(ref.channel, f"text-{len(self.texts)}")

    async def post_invite(self, channel: ChannelRef, invite: InterviewInvite) -> MessageRef:
        self._maybe_fail()
        self.invites.append((channel, invite))
        return MessageRef(channel, f"invite-{len(self.invites)}")
