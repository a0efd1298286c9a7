"""How callers name a channel or a person to the store: as the platforms do. The core's ChannelRef and UserRef
satisfy these, so bot.drills passes them straight in and the store never imports the core."""

from __future__ import annotations

from typing import Protocol


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
