"""Only one replica runs the scheduler. PostgreSQL: whoever holds a session-level advisory lock on a
dedicated connection; if that process dies, its connection closes, the lock frees, and another replica
takes over. SQLite: the bot runs as one process, so it always leads."""

from __future__ import annotations

from sqlalchemy import Connection, Engine, text

LOCK_KEY = 0x7472_6163_6564  # "traced"


class LeaderLock:
    def __init__(self, engine: Engine, key: int = LOCK_KEY) -> None:
        self.engine = engine
        self.key = key
        self._conn: Connection | None = None

    @property
    def held(self) -> bool:
        return self._conn is not None or self.engine.dialect.name == "sqlite"

    def try_acquire(self) -> bool:
        if self.engine.dialect.name == "sqlite":
            return True
        if self._conn is not None:
            return True
        conn = self.engine.connect()
        got = bool(conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": self.key}).scalar())
        conn.commit()
        if got:
            self._conn = conn  # the lock lives as long as this connection
        else:
            conn.close()
        return got

    def release(self) -> None:
        if self._conn is None:
            return
        try:
            self._conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": self.key})
            self._conn.commit()
        finally:
            self._conn.close()
            self._conn = None
