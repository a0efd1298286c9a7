"""What each bot's persistent buttons call.

discord.py rebuilds a dynamic item from its custom_id with no bot at hand (`from_custom_id`), so a button finds
its handlers through the client that received the press. Keyed by client, so two bots in one process (a restart
in the tests, a sync command next to a running bot) never overwrite each other's handlers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from weakref import WeakKeyDictionary

import discord

Press = Callable[[discord.Interaction, int], Awaitable[None]]
StartPress = Callable[[discord.Interaction, int, int], Awaitable[None]]


@dataclass
class Routes:
    submit: Press | None = None  # Submit diagnosis → the answer form
    hint: Press | None = None
    appeal: Press | None = None  # Appeal this grade → the appeal form
    math: Press | None = None  # a mental-math question's Answer
    round: Press | None = None  # a mock-interview round's Answer
    start: StartPress | None = None  # an interview invite's Start (rounds, study group)


_ROUTES: WeakKeyDictionary[discord.Client, Routes] = WeakKeyDictionary()


def routes(client: discord.Client) -> Routes:
    """The handlers bound for `client` (empty until its bot binds them)."""
    return _ROUTES.setdefault(client, Routes())
