"""A fake Slack Web API on a free loopback port: records every call, and fails like the real one — 429 with
Retry-After, `{"ok": false, "error": …}` answers queued per method, and Block Kit checked against Slack's
published limits (`invalid_blocks`). It keeps the messages it was sent so tests can read the channel's state."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import BodyPartReader, web

from .block_kit import check_blocks, check_view
from .loopback import serve


@dataclass
class Call:
    method: str
    params: dict[str, Any]


@dataclass
class FakeSlackAPI:
    calls: list[Call] = field(default_factory=list)
    rate_limit: dict[str, int] = field(default_factory=dict)  # method → how many 429s to answer first
    shared_files: dict[str, bytes] = field(default_factory=dict)  # files people shared, by name
    file_meta: dict[str, dict[str, Any]] = field(default_factory=dict)  # extra fields of a file (url_private…)
    redirects: dict[str, str] = field(default_factory=dict)  # file name → where its download redirects
    admins: set[str] = field(default_factory=lambda: {"UADMIN"})
    errors: dict[str, list[str]] = field(default_factory=dict)  # method → error codes to answer first, in order
    names: dict[str, str] = field(default_factory=dict)  # user id → profile display name
    messages: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (channel, ts) → latest params
    homes: dict[str, dict[str, Any]] = field(default_factory=dict)  # user → published App Home view
    sockets: list[web.WebSocketResponse] = field(default_factory=list)  # Socket Mode connections
    socket_acks: list[dict[str, Any]] = field(default_factory=list)  # what the app sent back over them
    base: str = ""
    _ts: itertools.count = field(default_factory=lambda: itertools.count(1))  # type: ignore[type-arg]
    _runner: web.AppRunner | None = None

    def of(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    async def wait_for(self, method: str, count: int = 1, seconds: float = 10.0) -> list[Call]:
        for _ in range(int(seconds / 0.02)):
            if len(self.of(method)) >= count:
                return self.of(method)
            await asyncio.sleep(0.02)
        raise AssertionError(
            f"{method} called {len(self.of(method))} times, wanted {count}: {[c.method for c in self.calls]}"
        )

    async def start(self) -> str:
        app = web.Application(client_max_size=50 * 2**20)
        app.router.add_post("/api/{method}", self._api)
        app.router.add_get("/api/{method}", self._api)
        app.router.add_post("/upload/{file_id}", self._upload)
        app.router.add_post("/respond/{n}", self._respond)
        app.router.add_get("/files/{name}", self._file)
        app.router.add_get("/socket", self._socket)
        self._runner, port = await serve(app)
        self.base = f"http://127.0.0.1:{port}"
        return self.base

    async def stop(self) -> None:
        for ws in self.sockets:
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _params(self, request: web.Request) -> dict[str, Any]:
        query = dict(request.query)  # slack_sdk sends some methods' arguments in the query string
        if request.method == "GET":
            return query
        if request.content_type == "application/json":
            return {**query, **dict(await request.json())}
        if request.content_type.startswith("multipart/"):
            out = dict(query)
            async for part in await request.multipart():
                assert isinstance(part, BodyPartReader)  # slack_sdk never nests multiparts
                out[part.name or ""] = (await part.read()).decode("latin-1")[:200]
            return out
        return {**query, **dict(parse_qsl(await request.text()))}

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params = await self._params(request)
        if self.rate_limit.get(method, 0) > 0:
            self.rate_limit[method] -= 1
            self.calls.append(Call(method + ":429", params))
            return web.json_response({"ok": False, "error": "ratelimited"}, status=429, headers={"Retry-After": "1"})
        for key in ("blocks", "view", "files"):
            if isinstance(params.get(key), str):
                with contextlib.suppress(ValueError):
                    params[key] = json.loads(params[key])
        queued = self.errors.get(method)
        if queued:
            error = queued.pop(0)
            self.calls.append(Call(method + ":" + error, params))
            return web.json_response({"ok": False, "error": error})
        invalid = self._check(method, params)
        if invalid is not None:
            self.calls.append(Call(method + ":invalid", {**params, "why": invalid}))
            return web.json_response(
                {
                    "ok": False,
                    "error": "invalid_blocks" if "blocks" in params else "invalid_arguments",
                    "response_metadata": {"messages": [invalid]},
                }
            )
        self.calls.append(Call(method, params))
        return web.json_response(self._answer(method, params))

    def _check(self, method: str, params: dict[str, Any]) -> str | None:
        if method in ("chat.postMessage", "chat.update", "chat.postEphemeral"):
            if not params.get("channel"):
                return "channel_not_found"
            if len(str(params.get("text", ""))) > 40_000:
                return "msg_too_long"
            if "blocks" in params:
                return check_blocks(params["blocks"], "message")
            if not params.get("text"):
                return "no_text"
        if method in ("views.open", "views.update", "views.push"):
            return check_view(params.get("view"), "modal")
        if method == "views.publish":
            return check_view(params.get("view"), "home")
        return None

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        answer = ANSWERS.get(method)
        return answer(self, params) if answer is not None else {"ok": True}

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        """Socket Mode: say hello, then relay envelopes the test sends and record the app's acks."""
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self.sockets.append(ws)
        await ws.send_json(
            {"type": "hello", "num_connections": 1, "debug_info": {"host": "fake"}, "connection_info": {"app_id": "A1"}}
        )
        async for msg in ws:
            if msg.type == web.WSMsgType.TEXT:
                self.socket_acks.append(json.loads(msg.data))
        return ws

    async def socket_send(self, envelope: dict[str, Any]) -> None:
        for _ in range(250):
            if self.sockets:
                break
            await asyncio.sleep(0.02)
        await self.sockets[-1].send_json(envelope)

    async def wait_for_ack(self, envelope_id: str, seconds: float = 10.0) -> dict[str, Any]:
        for _ in range(int(seconds / 0.02)):
            for ack in self.socket_acks:
                if ack.get("envelope_id") == envelope_id:
                    return ack
            await asyncio.sleep(0.02)
        raise AssertionError(f"no ack for {envelope_id}: {self.socket_acks}")

    async def _upload(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.calls.append(
            Call(
                "upload",
                {"file_id": request.match_info["file_id"], "bytes": len(body), "png": b"\x89PNG" in body[:2000]},
            )
        )
        return web.Response(text=f"OK - {len(body)}")

    async def _file(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        self.calls.append(Call("file", {"name": name}))
        if name in self.redirects:
            raise web.HTTPFound(self.redirects[name])
        if request.headers.get("Authorization", "") != "Bearer xoxb-test-token-456" or name not in self.shared_files:
            return web.Response(status=404)
        return web.Response(body=self.shared_files[name])

    async def _respond(self, request: web.Request) -> web.Response:
        self.calls.append(Call("response_url", dict(await request.json())))
        return web.Response(text="ok")


def _auth_test(api: FakeSlackAPI, params: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True, "user_id": "UBOT", "bot_id": "BBOT", "team_id": "T1", "url": "https://x.slack.com/"}


def _post_message(api: FakeSlackAPI, params: dict[str, Any]) -> dict[str, Any]:
    ts = f"1700000000.{next(api._ts):06d}"
    api.messages[(str(params.get("channel")), ts)] = params
    return {"ok": True, "channel": params.get("channel"), "ts": ts}


def _update(api: FakeSlackAPI, params: dict[str, Any]) -> dict[str, Any]:
    key = (str(params.get("channel")), str(params.get("ts")))
    if key not in api.messages:
        return {"ok": False, "error": "message_not_found"}
    api.messages[key] = {**api.messages[key], **params}
    return {"ok": True, "channel": params.get("channel"), "ts": params.get("ts")}


def _history(api: FakeSlackAPI, params: dict[str, Any]) -> dict[str, Any]:
    key = (str(params.get("channel")), str(params.get("latest")))
    found = api.messages.get(key)
    return {"ok": True, "messages": [{"ts": key[1], **found}] if found else []}


def _open_conversation(api: FakeSlackAPI, params: dict[str, Any]) -> dict[str, Any]:
    if not params.get("users"):
        return {"ok": False, "error": "user_not_found"}
    return {"ok": True, "channel": {"id": "D" + str(params["users"]).split(",")[0]}}


def _open_socket(api: FakeSlackAPI, params: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True, "url": api.base.replace("http://", "ws://") + "/socket"}


def _publish_home(api: FakeSlackAPI, params: dict[str, Any]) -> dict[str, Any]:
    api.homes[str(params.get("user_id"))] = params["view"]
    return {"ok": True, "view": {"id": "VH1", **params["view"]}}


def _upload_url(api: FakeSlackAPI, params: dict[str, Any]) -> dict[str, Any]:
    fid = f"F{next(api._ts)}"
    return {"ok": True, "upload_url": f"{api.base}/upload/{fid}", "file_id": fid}


def _complete_upload(api: FakeSlackAPI, params: dict[str, Any]) -> dict[str, Any]:
    raw = params.get("files", "[]")
    files = json.loads(raw) if isinstance(raw, str) else raw
    return {"ok": True, "files": [{"id": f.get("id"), "title": f.get("title")} for f in files or []]}


def _list_files(api: FakeSlackAPI, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "ok": True,
        "files": [
            {
                "id": f"F{i}",
                "name": n,
                "size": len(b),
                "created": 1700000000 + i,
                "url_private": f"{api.base}/files/{n}",
                **api.file_meta.get(n, {}),
            }
            for i, (n, b) in enumerate(api.shared_files.items())
        ],
    }


def _user_info(api: FakeSlackAPI, params: dict[str, Any]) -> dict[str, Any]:
    uid = params.get("user", "")
    name = api.names.get(uid, "")
    return {
        "ok": True,
        "user": {
            "id": uid,
            "name": uid.lower(),
            "is_admin": uid in api.admins,
            "is_owner": False,
            "real_name": name,
            "profile": {"display_name": name, "real_name": name},
        },
    }


# Web API method → its answer once the call passed the checks; any other method answers {"ok": true}.
ANSWERS: dict[str, Callable[[FakeSlackAPI, dict[str, Any]], dict[str, Any]]] = {
    "auth.test": _auth_test,
    "chat.postMessage": _post_message,
    "chat.update": _update,
    "conversations.history": _history,
    "conversations.open": _open_conversation,
    "apps.connections.open": _open_socket,
    "views.publish": _publish_home,
    "files.getUploadURLExternal": _upload_url,
    "files.completeUploadExternal": _complete_upload,
    "files.list": _list_files,
    "users.info": _user_info,
}
