"""slack_sdk's SQLAlchemy installation and OAuth-state stores, in the app's own database, made async by
running their (short) queries in worker threads."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.sqlalchemy_utils import normalize_datetime_for_db
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore
from sqlalchemy import Engine

OnInstall = Callable[[str | None, str | None], Awaitable[None]]  # (enterprise id, team id)


class ThreadedInstallationStore(AsyncInstallationStore):
    def __init__(self, client_id: str, engine: Engine, on_install: OnInstall | None = None) -> None:
        self.store = SQLAlchemyInstallationStore(client_id=client_id, engine=engine)
        self.store.metadata.create_all(engine, checkfirst=True)
        self.on_install = on_install  # a (re)install turns the workspace's schedules back on

    @property
    def logger(self) -> Any:
        return self.store.logger

    async def async_save(self, installation: Installation) -> None:
        await asyncio.to_thread(self.store.save, installation)
        if self.on_install is not None:
            await self.on_install(installation.enterprise_id, installation.team_id)

    async def async_save_bot(self, bot: Bot) -> None:
        await asyncio.to_thread(self.store.save_bot, bot)

    async def async_find_bot(
        self, *, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None = False
    ) -> Bot | None:
        return await asyncio.to_thread(
            self.store.find_bot,
            enterprise_id=enterprise_id,
            team_id=team_id,
            is_enterprise_install=is_enterprise_install,
        )

    async def async_find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        return await asyncio.to_thread(
            self.store.find_installation,
            enterprise_id=enterprise_id,
            team_id=team_id,
            user_id=user_id,
            is_enterprise_install=is_enterprise_install,
        )

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await asyncio.to_thread(self.store.delete_bot, enterprise_id=enterprise_id, team_id=team_id)

    async def async_delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None
    ) -> None:
        await asyncio.to_thread(
            self.store.delete_installation, enterprise_id=enterprise_id, team_id=team_id, user_id=user_id
        )

    async def async_delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await self.async_delete_bot(enterprise_id=enterprise_id, team_id=team_id)
        await self.async_delete_installation(enterprise_id=enterprise_id, team_id=team_id)


class ThreadedStateStore(AsyncOAuthStateStore):
    def __init__(self, engine: Engine, expiration_seconds: int = 600) -> None:
        self.store = SQLAlchemyOAuthStateStore(expiration_seconds=expiration_seconds, engine=engine)
        self.store.metadata.create_all(engine, checkfirst=True)

    @property
    def logger(self) -> Any:
        return self.store.logger

    async def async_issue(self, *args: Any, **kwargs: Any) -> str:
        return await asyncio.to_thread(self.store.issue, *args, **kwargs)

    async def async_consume(self, state: str) -> bool:
        return await asyncio.to_thread(self.store.consume, state)

    async def purge_expired(self) -> int:
        """Delete OAuth states nobody consumed before they expired (abandoned installs pile up otherwise)."""
        return await asyncio.to_thread(self._purge_expired)

    def _purge_expired(self) -> int:
        table = self.store.oauth_states
        now = normalize_datetime_for_db(datetime.now(UTC))
        with self.store.engine.begin() as conn:
            return int(conn.execute(table.delete().where(table.c.expire_at <= now)).rowcount)
