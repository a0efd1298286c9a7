"""Display names from `users.info`, cached: the legacy `user_name` in payloads is deprecated and thread events
carry only an id. One lookup per person per hour at most; the cache is bounded."""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

from slack_sdk.errors import SlackApiError

TTL_SECONDS = 3600.0
MAX_ENTRIES = 5000


def best_name(user: dict[str, Any]) -> str:
    profile = user.get("profile") or {}
    for candidate in (profile.get("display_name"), profile.get("real_name"), user.get("real_name"), user.get("name")):
        if candidate:
            return str(candidate)[:80]
    return ""


class DisplayNames:
    def __init__(self, ttl: float = TTL_SECONDS, max_entries: int = MAX_ENTRIES) -> None:
        self.ttl, self.max_entries = ttl, max_entries
        self._cache: OrderedDict[str, tuple[str, float, bool]] = OrderedDict()  # id → (name, expires, admin)
        self.lookups = 0

    async def info(self, client: Any, user_id: str) -> tuple[str, bool]:
        """(display name, is admin or owner); ("", False) when Slack won't say."""
        hit = self._cache.get(user_id)
        if hit is not None and hit[1] > time.monotonic():
            self._cache.move_to_end(user_id)
            return hit[0], hit[2]
        self.lookups += 1
        try:
            resp = await client.users_info(user=user_id)
        except SlackApiError:
            return "", False
        u = resp.get("user") or {}
        name, admin = best_name(u), bool(u.get("is_admin") or u.get("is_owner"))
        self._cache[user_id] = (name, time.monotonic() + self.ttl, admin)
        while len(self._cache) > self.max_entries:
            self._cache.popitem(last=False)
        return name, admin

    async def name(self, client: Any, user_id: str, fallback: str = "") -> str:
        found, _ = await self.info(client, user_id)
        return found or fallback or user_id
