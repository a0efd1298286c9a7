"""Small test helpers: a clock the test moves, and engines wired to FakeChat."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.drills.engine import Drills
from bot.drills.fake import FakeChat
from bot.drills.ports import ChannelRef, UserRef
from bot.render.cache import RenderCache
from bot.store.db import Database

from .memo import PICTURES


@dataclass
class Clock:
    now: datetime = field(default_factory=lambda: datetime(2026, 3, 2, 9, 0, tzinfo=UTC))

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def engine_for(
    db: Database,
    chat: FakeChat,
    clock: Clock,
    seed: int = 1,
    platform: str = "slack",
    render_cache: RenderCache = PICTURES,
) -> Drills:
    return Drills(
        db,
        {platform: chat},
        clock=clock,
        rng=random.Random(seed),
        retry_base_seconds=0.01,
        render_cache=render_cache,
    )


def channel(ws: str = "T1", ch: str = "C1", platform: str = "slack") -> ChannelRef:
    return ChannelRef(platform, ws, ch, ch)


def user(name: str, ws: str = "T1", platform: str = "slack") -> UserRef:
    return UserRef(platform, ws, name.lower(), name)
