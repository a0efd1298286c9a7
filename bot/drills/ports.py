"""What the core needs from a chat platform, and the neutral values it passes across.

Adapters (terminal, Slack, Discord) implement ChatPort; the core never sees a platform payload.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Protocol, runtime_checkable


class AnswerMode(StrEnum):
    """How a channel takes answers. Modal by default: answers stay hidden until the reveal, so nobody copies."""

    MODAL = "modal"
    THREAD = "thread"
    BOTH = "both"


@dataclass(frozen=True, slots=True)
class ChannelRef:
    platform: str  # terminal | slack | discord
    workspace: str  # team / guild id
    channel: str  # channel id
    name: str = ""

    def __str__(self) -> str:
        return f"{self.platform}:{self.channel}"


@dataclass(frozen=True, slots=True)
class UserRef:
    platform: str
    workspace: str
    user: str
    name: str = ""


@dataclass(frozen=True, slots=True)
class MessageRef:
    channel: ChannelRef
    message: str  # the platform's opaque message id (Slack ts, Discord snowflake, a file path)


@dataclass(frozen=True, slots=True)
class DrillPost:
    drill_id: int
    title: str
    context_lines: tuple[str, ...]
    image_png: bytes
    text_timeline: str
    posted_at: datetime
    deadline: datetime
    answer_mode: AnswerMode
    difficulty: str


@dataclass(frozen=True, slots=True)
class ScoreLine:
    user: str  # display name
    score: float
    points: int
    named: str | None
    hinted: bool = False  # took at least one hint (which cost points)


@dataclass(frozen=True, slots=True)
class RevealPost:
    drill_id: int
    signature: str
    title: str
    headline: str
    text: str
    image_png: bytes
    scores: tuple[ScoreLine, ...] = field(default=())


class ChatPort(Protocol):
    """The handful of things a platform does for the core. All async; all may raise on network errors."""

    async def post_drill(self, channel: ChannelRef, post: DrillPost) -> MessageRef: ...

    async def post_reveal(self, ref: MessageRef, post: RevealPost) -> MessageRef: ...

    async def send_private(
        self, channel: ChannelRef, user: UserRef, text: str, *, thread: MessageRef | None = None
    ) -> None:
        """Feedback only this person sees, and that persists; `thread` is the reveal, for a note there when
        the person cannot be reached privately."""

    async def announce(self, channel: ChannelRef, text: str) -> None: ...


@runtime_checkable
class FeedbackPort(Protocol):
    """Optional: private grade feedback that carries an "Appeal this grade" action for that drill."""

    async def send_grade_feedback(
        self, channel: ChannelRef, user: UserRef, drill_id: int, text: str, *, thread: MessageRef | None = None
    ) -> None:
        """`thread` is the reveal (for adapters that fall back to a note there)."""
