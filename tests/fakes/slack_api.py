"""A fake Slack Web API on a free loopback port: records every call, can answer 429 with Retry-After."""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web

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
        raise AssertionError(f"{method} called {len(self.of(method))} times, wanted {count}: "
                             f"{[c.method for c in self.calls]}")

    async def start(self) -> str:
        app = web.Application(client_max_size=50 * 2**20)
        app.router.add_post("/api/{method}", self._api)
        app.router.add_get("/api/{method}", self._api)
        app.router.add_post("/upload/{file_id}", self._upload)
        app.router.add_post("/respond/{n}", self._respond)
        app.router.add_get("/files/{name}", self._file)
        self._runner, port = await serve(app)
        self.base = f"http://127.0.0.1:{port}"
        return self.base

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _params(self, request: web.Request) -> dict[str, Any]:
        if request.method == "GET":
            return dict(request.query)
        if request.content_type == "application/json":
            return dict(await request.json())
        if request.content_type.startswith("multipart/"):
            out = {}
            async for part in await request.multipart():
                out[part.name or ""] = (await part.read()).decode("latin-1")[:200]
            return out
        return dict(parse_qsl(await request.text()))

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params = await self._params(request)
        if self.rate_limit.get(method, 0) > 0:
            self.rate_limit[method] -= 1
            self.calls.append(Call(method + ":429", params))
            return web.json_response({"ok": False, "error": "ratelimited"}, status=429, headers={"Retry-After": "1"})
        self.calls.append(Call(method, params))
        return web.json_response(self._answer(method, params))

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "auth.test":
            return {"ok": True, "user_id": "UBOT", "bot_id": "BBOT", "team_id": "T1", "url": "https://x.slack.com/"}
        if method in ("chat.postMessage", "chat.update"):
            ts = params.get("ts") or f"1700000000.{next(self._ts):06d}"
            return {"ok": True, "channel": params.get("channel"), "ts": ts}
        if method == "files.getUploadURLExternal":
            fid = f"F{next(self._ts)}"
            return {"ok": True, "upload_url": f"{self.base}/upload/{fid}", "file_id": fid}
        if method == "files.completeUploadExternal":
            raw = params.get("files", "[]")
            files = json.loads(raw) if isinstance(raw, str) else raw
            return {"ok": True, "files": [{"id": f.get("id"), "title": f.get("title")} for f in files or []]}
        if method == "files.list":
            return {"ok": True, "files": [{"id": f"F{i}", "name": n, "size": len(b), "created": 1700000000 + i,
                                           "url_private": f"{self.base}/files/{n}", **self.file_meta.get(n, {})}
                                          for i, (n, b) in enumerate(self.shared_files.items())]}
        if method == "users.info":
            uid = params.get("user", "")
            return {"ok": True, "user": {"id": uid, "is_admin": uid in self.admins, "is_owner": False}}
        return {"ok": True}

    async def _upload(self, request: web.Request) -> web.Response:
        body = await request.read()
        self.calls.append(Call("upload", {"file_id": request.match_info["file_id"], "bytes": len(body),
                                          "png": b"\x89PNG" in body[:2000]}))
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
