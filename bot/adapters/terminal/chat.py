"""ChatPort for the terminal: pictures go to files, text to the console."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...drills.ports import ChannelRef, DrillPost, MessageRef, RevealPost, UserRef

PLATFORM = "terminal"
WORKSPACE = "local"


def channel_ref(name: str) -> ChannelRef:
    return ChannelRef(PLATFORM, WORKSPACE, name, name)


def user_ref(name: str) -> UserRef:
    return UserRef(PLATFORM, WORKSPACE, name, name)


class TerminalChat:
    def __init__(self, out_dir: Path, echo: Callable[[str], None] = print) -> None:
        self.out_dir = out_dir
        self.echo = echo
        self.private: list[tuple[str, str]] = []  # (user, text), for callers that print feedback themselves

    def _write(self, name: str, data: bytes) -> Path:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / name
        path.write_bytes(data)
        return path

    async def post_drill(self, channel: ChannelRef, post: DrillPost) -> MessageRef:
        path = self._write(f"drill-{post.drill_id}.png", post.image_png)
        self.echo(f"Drill #{post.drill_id} in {channel.channel}: {post.title}")
        self.echo(f"Picture: {path}")
        return MessageRef(channel, str(path))

    async def update_drill(self, ref: MessageRef, post: DrillPost, remaining_seconds: int) -> None:
        return None

    async def post_reveal(self, ref: MessageRef, post: RevealPost) -> MessageRef:
        path = self._write(f"drill-{post.drill_id}-reveal.png", post.image_png)
        self.echo(f"Reveal of drill #{post.drill_id}: {post.headline}")
        for i, line in enumerate(post.scores, start=1):
            hinted = " · hinted" if line.hinted else ""
            self.echo(f"  {i}. {line.user}: {line.points} pts (score {line.score:.2f}{hinted})")
        self.echo(f"Annotated picture: {path}")
        return MessageRef(ref.channel, str(path))

    async def send_private(
        self, channel: ChannelRef, user: UserRef, text: str, *, thread: MessageRef | None = None
    ) -> None:
        self.private.append((user.user, text))

    async def announce(self, channel: ChannelRef, text: str) -> None:
        self.echo(text)
