"""What a mock interview in chat needs from a platform: a round post with an answer button, thread text, and
an invitation (a scheduled session's Start button)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from ..drills.ports import ChannelRef, MessageRef, UserRef


@dataclass(frozen=True, slots=True)
class RoundPost:
    session_id: int
    number: int
    rounds: int
    difficulty: str
    user: UserRef  # whose interview it is
    title: str
    context_lines: tuple[str, ...]
    image_png: bytes
    deadline: datetime


@dataclass(frozen=True, slots=True)
class InterviewInvite:
    rounds: int
    group: str  # the study group's name, or ""
    group_id: int | None


class InterviewChat(Protocol):
    async def post_round(self, channel: ChannelRef, post: RoundPost) -> MessageRef: ...

    async def post_text(self, ref: MessageRef, text: str) -> MessageRef: ...  # in the round's thread

    async def post_invite(self, channel: ChannelRef, invite: InterviewInvite) -> MessageRef: ...
