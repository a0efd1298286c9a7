"""Health endpoints for orchestrators: `/healthz` (the process is alive, with its state) and `/readyz` (it can serve:
the database answers, its schema is at head, every configured platform is connected).

Both return JSON. They are added to the Slack HTTP app when one runs, or served on their own port
(`TRACEDRILL_HEALTH_PORT`) for Discord and Socket Mode."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, text

from .store.migrate import alembic_config

log = logging.getLogger(__name__)
PROBE_TIMEOUT_SECONDS = 3.0


@dataclass(frozen=True)
class DatabaseState:
    reachable: bool
    revision: str | None = None
    head: str | None = None
    error: str | None = None

    @property
    def at_head(self) -> bool:
        return self.reachable and self.revision is not None and self.revision == self.head


def database_state(engine: Engine) -> DatabaseState:
    """Connect, read the schema revision and compare it with the newest shipped migration (blocking)."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            # Read Alembic's table directly: MigrationContext logs at INFO on every probe.
            revision = (
                conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
                if inspect(conn).has_table("alembic_version")
                else None
            )
    except Exception as exc:  # any driver or network error means "not reachable"; the reason goes in the JSON
        return DatabaseState(reachable=False, head=head, error=type(exc).__name__)
    return DatabaseState(reachable=True, revision=revision, head=head)


@dataclass
class Health:
    """What the endpoints report. Platforms register a probe returning True while they are connected."""

    engine: Engine
    is_leader: Callable[[], bool]
    platforms: dict[str, Callable[[], bool]] = field(default_factory=dict)

    async def snapshot(self) -> dict[str, Any]:
        try:
            db = await asyncio.wait_for(asyncio.to_thread(database_state, self.engine), PROBE_TIMEOUT_SECONDS)
        except TimeoutError:
            db = DatabaseState(reachable=False, error="timeout")
        connected = {name: bool(probe()) for name, probe in self.platforms.items()}
        ready = db.at_head and all(connected.values())
        return {
            "status": "ready" if ready else "not ready",
            "database": {
                "reachable": db.reachable,
                "revision": db.revision,
                "head": db.head,
                "at_head": db.at_head,
                "error": db.error,
            },
            "scheduler": "leader" if self.is_leader() else "follower",
            "platforms": connected,
        }

    async def healthz(self, _request: web.Request) -> web.Response:
        """Liveness: 200 whenever the event loop answers; the body says what state the process is in."""
        return web.json_response(await self.snapshot())

    async def readyz(self, _request: web.Request) -> web.Response:
        body = await self.snapshot()
        return web.json_response(body, status=200 if body["status"] == "ready" else 503)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/readyz", self.readyz)


async def serve_health(health: Health, host: str, port: int) -> web.AppRunner:
    """A small aiohttp server with only the two endpoints, for deployments without the Slack HTTP app."""
    app = web.Application()
    health.add_routes(app)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    log.info("health endpoints on http://%s:%s/healthz and /readyz", host, port)
    return runner
