"""How callers name a channel or a person to the store: as the platforms do. The core's ChannelRef and UserRef
satisfy these, so bot.drills passes them straight in and the store never imports the core."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .models import Channel, Workspace


class ChannelAddress(Protocol):
    @property
    def platform(self) -> str: ...
    @property
    def workspace(self) -> str: ...
    @property
    def channel(self) -> str: ...
    @property
    def name(self) -> str: ...


class UserAddress(Protocol):
    @property
    def platform(self) -> str: ...
    @property
    def workspace(self) -> str: ...
    @property
    def user(self) -> str: ...
    @property
    def name(self) -> str: ...


@dataclass(frozen=True, slots=True)
class ChannelPlace:
    """A stored channel, named as the platforms name it (bot.drills turns it into a ChannelRef)."""

    platform: str
    workspace: str
    channel: str
    name: str


def place_of(ws: Workspace, ch: Channel) -> ChannelPlace:
    return ChannelPlace(ws.platform, ws.external_id, ch.external_id, ch.name)
