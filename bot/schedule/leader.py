"""Only one replica runs the scheduler.

PostgreSQL: the leader holds a session-level advisory lock on a dedicated connection. The lock is as good as
that connection, so the leader proves it on every poll (a query on the lock connection) and stops scheduling
the moment the query fails — e.g. the backend was terminated or the network is gone. TCP keepalives (client
side from the engine, server side set on the lock session) turn a silent network loss into such a failure
within ~30 s, and let the server free the lock of a client that vanished.

A hung leader (SIGSTOP, a stuck event loop) keeps its connection and so its lock; keepalives can't see it,
because the kernel still answers them. Its proof of life is the lock session's last query: a follower that
finds the holder's `pg_stat_activity.query_start` older than `stale_seconds` terminates that backend with
`pg_terminate_backend` and takes the lock on its next try. It first ends the holder's other sessions (the
same application_name, which `make_engine` makes unique per engine): a leader stopped mid-write holds row locks
there, and the new leader's first job-store write would wait behind them for ever. (So a leader that is only very
slow, not hung, loses its in-flight writes as well as the lock; its callers see a database error and retry.) If the
old leader wakes up, its next poll fails and it stops. Between waking and that poll it may fire a job: the database
makes that harmless (reveal claims are atomic; a scheduled slot is unique per channel). Terminating needs the
replicas to share a role (or pg_signal_backend), and reading query_start needs the same; without it nobody is
replaced (logged).

The lock key is derived from the deployment's name (default: the connection's schema), so deployments that share a
database, e.g. staging in another schema, each have their own leader.

SQLite: the bot runs as one process, so it always leads.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re

from sqlalchemy import Connection, Engine, text

log = logging.getLogger(__name__)

_HOLDER = text(
    "SELECT l.pid, EXTRACT(EPOCH FROM (clock_timestamp() - a.query_start)), a.application_name FROM pg_locks l "
    "LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
    "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 "
    "AND ((l.classid::bigint << 32) | l.objid::bigint) = :k"
)
# Signalled without waiting (the holder's termination, which waits, comes next): a poll never blocks on twenty of them.
_SIBLINGS = text(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
    "WHERE application_name = :name AND datname = current_database() AND pid <> :holder "
    "AND pid <> pg_backend_pid() AND application_name <> current_setting('application_name')"
)
_REPLICA_SESSION = re.compile(r"/\d+-[0-9a-f]{16}$")  # bot.store.db.session_name's tag: never end a stranger's sessions


def lock_key(deployment: str) -> int:
    """A stable positive 62-bit advisory-lock key for this deployment."""
    digest = hashlib.sha256(f"tracedrill-leader:{deployment}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 2


class LeaderLock:
    def __init__(self, engine: Engine, deployment: str | None = None, *, stale_seconds: float = 30.0) -> None:
        self.engine = engine
        self.deployment = deployment
        self.stale_seconds = stale_seconds
        self._key: int | None = None
        self._conn: Connection | None = None
        self._warned = False

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @property
    def held(self) -> bool:
        return self._conn is not None or self.is_sqlite

    @property
    def key(self) -> int:
        if self._key is None:
            name = self.deployment
            if not name:
                with self.engine.connect() as conn:
                    name = str(conn.execute(text("SELECT current_schema()")).scalar() or "public")
            self._key = lock_key(name)
        return self._key

    @property
    def backend_pid(self) -> int | None:
        """The PostgreSQL backend holding the lock for this replica (tests terminate it)."""
        if self._conn is None:
            return None
        return int(self._conn.execute(text("SELECT pg_backend_pid()")).scalar_one())

    def try_acquire(self) -> bool:
        if self.is_sqlite or self._conn is not None:
            return True
        key = self.key
        conn = self.engine.connect()
        try:
            # Server-side keepalives for this session: the server frees the lock of a client that vanished.
            for name, value in (("idle", 10), ("interval", 5), ("count", 3)):
                conn.execute(text(f"SET tcp_keepalives_{name} = {value}"))
            got = bool(conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar())
            conn.commit()
        except Exception:
            conn.close()
            raise
        if got:
            self._conn = conn  # the lock lives as long as this connection
        else:
            conn.close()
        return got

    def check(self) -> bool:
        """Prove the lock is still ours with a query on its own connection; False (and forget it) if not.
        The query also refreshes this session's query_start, the proof of life followers look at."""
        if self.is_sqlite:
            return True
        if self._conn is None:
            return False
        try:
            mine = self._conn.execute(
                text(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 "
                    "AND pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) = :k"
                ),
                {"k": self.key},
            ).scalar()
            self._conn.commit()
        except Exception as exc:
            log.warning("leader lock connection lost: %s", type(exc).__name__)
            self._drop()
            return False
        if not mine:
            self._drop()
            return False
        return True

    def replace_if_hung(self) -> int | None:
        """As a follower: terminate the lock holder's backend if it has shown no life for stale_seconds.
        Returns the terminated backend's pid."""
        if self.is_sqlite or self._conn is not None:
            return None
        with self.engine.connect() as conn:
            row = conn.execute(_HOLDER, {"k": self.key}).first()
            if row is None:
                return None
            pid, idle, name = int(row[0]), row[1], str(row[2] or "")
            if idle is None:
                if not self._warned:
                    log.warning(
                        "cannot see the leader's activity (needs the same role or pg_read_all_stats): "
                        "a hung leader won't be replaced"
                    )
                    self._warned = True
                return None
            if float(idle) < self.stale_seconds:
                return None
            log.warning("leader backend %s silent for %.0f s: terminating it to take over", pid, float(idle))
            if _REPLICA_SESSION.search(name):
                conn.execute(_SIBLINGS, {"name": name, "holder": pid}).all()
            # With a timeout (PostgreSQL 14+) the call returns once the backend is gone and its lock free, so the
            # next try takes it; without one it only sends the signal and the lock may outlive the reply.
            done = bool(conn.execute(text("SELECT pg_terminate_backend(:p, 5000)"), {"p": pid}).scalar())
            conn.commit()
            return pid if done else None

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        with contextlib.suppress(Exception):
            conn.invalidate()  # never hand a connection in an unknown state back to the pool

    def release(self) -> None:
        if self._conn is None:
            return
        try:
            self._conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": self.key})
            self._conn.commit()
        except Exception:
            self._drop()
            return
        self._conn.close()
        self._conn = None
