"""A fake Discord REST API on a free loopback port: enough of v10 for the bot, recording every call."""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from .loopback import serve

BOT = {"id": "900", "username": "tracedrill", "discriminator": "0", "global_name": "tracedrill", "avatar": None,
       "bot": True, "flags": 0, "public_flags": 0}
APP_ID = "901"


def _json(data: Any, status: int = 200) -> web.Response:
    """discord.py compares the content type exactly, so no charset suffix."""
    return web.Response(body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"})


@dataclass
class Call:
    method: str
    path: str
    json: dict[str, Any] | list[Any] | None
    files: list[str]


@dataclass
class FakeDiscordAPI:
    calls: list[Call] = field(default_factory=list)
    threads: set[str] = field(default_factory=set)
    base: str = ""
    _ids: itertools.count = field(default_factory=lambda: itertools.count(10_000))  # type: ignore[type-arg]
    _runner: web.AppRunner | None = None

    def of(self, method: str, path_part: str) -> list[Call]:
        return [c for c in self.calls if c.method == method and path_part in c.path]

    async def wait_for(self, method: str, path_part: str, count: int = 1, seconds: float = 10.0) -> list[Call]:
        for _ in range(int(seconds / 0.02)):
            found = self.of(method, path_part)
            if len(found) >= count:
                return found
            await asyncio.sleep(0.02)
        raise AssertionError(f"{method} {path_part}: {len(self.of(method, path_part))} calls, wanted {count}; "
                             f"{[(c.method, c.path) for c in self.calls]}")

    async def start(self) -> str:
        app = web.Application(client_max_size=50 * 2**20)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._handle)
        self._runner, port = await serve(app)
        self.base = f"http://127.0.0.1:{port}/api/v10"
        return self.base

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _body(self, request: web.Request) -> tuple[Any, list[str]]:
        if request.content_type.startswith("multipart/"):
            payload, files = None, []
            async for part in await request.multipart():
                if part.name == "payload_json":
                    payload = json.loads(await part.text())
                else:
                    files.append(part.filename or "")
                    await part.read()
            return payload, files
        text = await request.text()
        return (json.loads(text) if text else None), []

    def _message(self, channel_id: str, payload: Any) -> dict[str, Any]:
        now = datetime.now(UTC).isoformat()
        payload = payload if isinstance(payload, dict) else {}
        return {"id": str(next(self._ids)), "channel_id": channel_id, "type": 0, "content": payload.get("content", ""),
                "author": BOT, "attachments": [], "embeds": payload.get("embeds", []), "mentions": [],
                "mention_roles": [], "pinned": False, "mention_everyone": False, "tts": False, "timestamp": now,
                "edited_timestamp": None, "flags": payload.get("flags", 0), "components": []}

    async def _handle(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        payload, files = await self._body(request)
        self.calls.append(Call(request.method, path, payload, files))
        parts = path.strip("/").split("/")
        if path == "/users/@me":
            return _json(BOT)
        if path == "/oauth2/applications/@me":
            return _json({"id": APP_ID, "name": "tracedrill", "description": "", "icon": None,
                                      "bot_public": True, "bot_require_code_grant": False, "owner": BOT,
                                      "verify_key": "x", "flags": 0})
        if parts[0] == "applications" and "commands" in parts:
            return _json([])
        if parts[0] == "interactions" and parts[-1] == "callback":
            body = {"interaction": {"id": parts[1], "type": 2, "response_message_loading": False,
                                    "response_message_ephemeral": True}}
            return _json(body)
        if parts[0] == "webhooks":
            return _json(self._message("0", payload))
        if parts[0] == "channels" and parts[-1] == "threads":
            message_id = parts[3]
            if message_id in self.threads:
                return _json({"code": 160004, "message": "A thread has already been created for "
                                          "this message"}, status=400)
            self.threads.add(message_id)
            return _json({"id": message_id, "type": 11, "guild_id": "1", "parent_id": parts[1],
                                      "name": (payload or {}).get("name", "t"), "owner_id": BOT["id"],
                                      "thread_metadata": {"archived": False, "auto_archive_duration": 1440,
                                                          "archive_timestamp": datetime.now(UTC).isoformat(),
                                                          "locked": False},
                                      "message_count": 0, "member_count": 1, "rate_limit_per_user": 0, "flags": 0})
        if parts[0] == "channels" and parts[-1] == "messages":
            return _json(self._message(parts[1], payload))
        if path == "/users/@me/channels":
            return _json({"id": str(next(self._ids)), "type": 1, "recipients": [BOT]})
        if parts[0] == "users":
            return _json({**BOT, "id": parts[1], "username": f"user{parts[1]}", "bot": False})
        return _json({})
