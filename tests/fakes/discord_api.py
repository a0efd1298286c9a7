"""A fake Discord REST API on a free loopback port: enough of v10 for the bot, recording every call, and failing
like the real one — JSON errors with Discord's codes (50013 Missing Permissions, 50007 Cannot send messages to
this user, 160004 thread already created, 50024 wrong channel type for a thread) and 429 with Retry-After."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import BodyPartReader, web

from .loopback import serve

BOT = {
    "id": "900",
    "username": "tracedrill",
    "discriminator": "0",
    "global_name": "tracedrill",
    "avatar": None,
    "bot": True,
    "flags": 0,
    "public_flags": 0,
}
APP_ID = "901"


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """discord.py compares the content type exactly, so no charset suffix."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json", **(headers or {})}
    )


def _error(code: int) -> web.Response:
    status = 403 if code in (MISSING_PERMISSIONS, CANNOT_DM, 50001) else 404 if code == 10003 else 400
    return _json({"code": code, "message": ERROR_TEXT.get(code, "Error")}, status=status)


@dataclass
class Call:
    method: str
    path: str
    json: dict[str, Any] | list[Any] | None
    files: list[str]
    failed: bool = False


MISSING_PERMISSIONS = 50013
CANNOT_DM = 50007
WRONG_CHANNEL_TYPE = 50024
ERROR_TEXT = {
    MISSING_PERMISSIONS: "Missing Permissions",
    CANNOT_DM: "Cannot send messages to this user",
    WRONG_CHANNEL_TYPE: "Cannot execute action on this channel type",
    10003: "Unknown Channel",
}


@dataclass
class Failure:
    method: str
    path_part: str
    code: int  # Discord's JSON error code; 429 means rate limited
    times: int = 1


@dataclass
class FakeDiscordAPI:
    calls: list[Call] = field(default_factory=list)
    threads: set[str] = field(default_factory=set)  # messages a thread was started from (thread id = message id)
    thread_channels: set[str] = field(default_factory=set)  # channels that are threads or forum posts
    closed_dms: set[str] = field(default_factory=set)  # users who don't accept DMs from the bot
    failures: list[Failure] = field(default_factory=list)
    commands: dict[str, list[Any]] = field(default_factory=dict)  # scope → the last synced command list
    dm_channels: dict[str, str] = field(default_factory=dict)  # DM channel id → user id
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
        raise AssertionError(
            f"{method} {path_part}: {len(self.of(method, path_part))} calls, wanted {count}; "
            f"{[(c.method, c.path) for c in self.calls]}"
        )

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
                assert isinstance(part, BodyPartReader)  # the bot never nests multiparts
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
        return {
            "id": str(next(self._ids)),
            "channel_id": channel_id,
            "type": 0,
            "content": payload.get("content", ""),
            "author": BOT,
            "attachments": [],
            "embeds": payload.get("embeds", []),
            "mentions": [],
            "mention_roles": [],
            "pinned": False,
            "mention_everyone": False,
            "tts": False,
            "timestamp": now,
            "edited_timestamp": None,
            "flags": payload.get("flags", 0),
            "components": [],
        }

    def fail(self, method: str, path_part: str, code: int, times: int = 1) -> None:
        self.failures.append(Failure(method, path_part, code, times))

    def _injected(self, method: str, path: str) -> web.Response | None:
        for f in self.failures:
            if f.times > 0 and f.method == method and f.path_part in path:
                f.times -= 1
                if f.code == 429:
                    return _json(
                        {"message": "You are being rate limited.", "retry_after": 0.5, "global": False},
                        status=429,
                        headers={"Retry-After": "0.5", "X-RateLimit-Scope": "user", "Via": "1.1 google"},
                    )  # discord.py's check for Discord
                return _error(f.code)
        return None

    async def _handle(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        payload, files = await self._body(request)
        injected = self._injected(request.method, path)
        self.calls.append(Call(request.method, path, payload, files, failed=injected is not None))
        if injected is not None:
            return injected
        req = _Request(request.method, path, path.strip("/").split("/"), payload)
        route = ROUTES.get(req.parts[0])
        return route(self, req) if route is not None else _json({})

    def _refuse(self, code: int) -> web.Response:
        """A refusal the fake decides itself (not an injected one), marked failed on the call just recorded."""
        self.calls[-1].failed = True
        return _error(code)


@dataclass(frozen=True)
class _Request:
    method: str
    path: str
    parts: list[str]  # the path's segments after /api/v10
    payload: Any


def _users(api: FakeDiscordAPI, req: _Request) -> web.Response:
    if req.path == "/users/@me":
        return _json(BOT)
    if req.path == "/users/@me/channels":
        dm = str(next(api._ids))
        api.dm_channels[dm] = str((req.payload or {}).get("recipient_id"))
        return _json({"id": dm, "type": 1, "recipients": [BOT]})
    return _json({**BOT, "id": req.parts[1], "username": f"user{req.parts[1]}", "bot": False})


def _oauth2(api: FakeDiscordAPI, req: _Request) -> web.Response:
    if req.path != "/oauth2/applications/@me":
        return _json({})
    return _json(
        {
            "id": APP_ID,
            "name": "tracedrill",
            "description": "",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": BOT,
            "verify_key": "x",
            "flags": 0,
        }
    )


def _applications(api: FakeDiscordAPI, req: _Request) -> web.Response:
    """Slash command sync: a PUT replaces the scope's command list."""
    if "commands" not in req.parts:
        return _json({})
    if req.method != "PUT":
        return _json([])
    api.commands["/".join(req.parts[:-1])] = list(req.payload or [])
    return _json(
        [{**c, "id": str(next(api._ids)), "application_id": APP_ID, "version": "1"} for c in req.payload or []]
    )


def _interactions(api: FakeDiscordAPI, req: _Request) -> web.Response:
    if req.parts[-1] != "callback":
        return _json({})
    interaction = {
        "id": req.parts[1],
        "type": 2,
        "response_message_loading": False,
        "response_message_ephemeral": True,
    }
    return _json({"interaction": interaction})


def _webhooks(api: FakeDiscordAPI, req: _Request) -> web.Response:
    return _json(api._message("0", req.payload))


def _channels(api: FakeDiscordAPI, req: _Request) -> web.Response:
    if req.parts[-1] == "threads":
        return _start_thread(api, req)
    if req.parts[-1] == "messages":
        if api.dm_channels.get(req.parts[1]) in api.closed_dms:
            return api._refuse(CANNOT_DM)
        return _json(api._message(req.parts[1], req.payload))
    return _json({})


def thread_payload(thread_id: str, guild: str, parent: str, name: str, owner: str) -> dict[str, Any]:
    """A public thread channel object as Discord returns it."""
    return {
        "id": thread_id,
        "type": 11,
        "guild_id": guild,
        "parent_id": parent,
        "name": name,
        "owner_id": owner,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": datetime.now(UTC).isoformat(),
            "locked": False,
        },
        "message_count": 0,
        "member_count": 1,
        "rate_limit_per_user": 0,
        "flags": 0,
    }


def _start_thread(api: FakeDiscordAPI, req: _Request) -> web.Response:
    """POST /channels/{channel}/messages/{message}/threads: one thread per message, never inside a thread."""
    channel, message_id = req.parts[1], req.parts[3]
    if channel in api.thread_channels:
        return api._refuse(WRONG_CHANNEL_TYPE)
    if message_id in api.threads:
        return _json({"code": 160004, "message": "A thread has already been created for this message"}, status=400)
    api.threads.add(message_id)
    return _json(thread_payload(message_id, "1", channel, (req.payload or {}).get("name", "t"), BOT["id"]))


# The first path segment → its handler; anything else answers {}.
ROUTES: dict[str, Callable[[FakeDiscordAPI, _Request], web.Response]] = {
    "users": _users,
    "oauth2": _oauth2,
    "applications": _applications,
    "interactions": _interactions,
    "webhooks": _webhooks,
    "channels": _channels,
}
