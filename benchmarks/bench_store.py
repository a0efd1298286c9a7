"""Store and engine speed (targets: channel leaderboard this week over 1,000,000 attempts and 10,000 users
≤ 100 ms on SQLite and on PostgreSQL; submit (grade + store) p99 ≤ 50 ms; 1,000 channels due the same
minute all posted within 60 s, each distinct picture drawn once).

    python benchmarks/bench_store.py [--postgres URL] [--attempts N]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import random
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import create_engine, insert, text

from bot.drills.engine import Drills
from bot.drills.fake import FakeChat
from bot.drills.leaderboard import leaderboard
from bot.drills.ports import ChannelRef, UserRef
from bot.schedule import jobs
from bot.store import repo
from bot.store.db import Database, normalize_url
from bot.store.migrate import upgrade
from bot.store.models import Attempt, Channel, Drill, User

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)  # a Wednesday
USERS = 10_000
WEEKS = 26


def seed_attempts(db: Database, n_attempts: int) -> tuple[int, int]:
    """One workspace, one channel, 26 weeks of drills, 10,000 users, n attempts: bulk-loaded."""
    with db.session() as s:
        ws = repo.workspace(s, "slack", "TBENCH", "bench", NOW)
        ch = repo.channel(s, ws, "CBENCH", "bench")
        ws_id, ch_id = ws.id, ch.id
        s.execute(
            insert(User),
            [{"workspace_id": ws_id, "external_id": f"u{i}", "display_name": f"user {i}"} for i in range(USERS)],
        )
    per_drill = 2000
    n_drills = n_attempts // per_drill
    rng = random.Random(1)
    start = NOW - timedelta(weeks=WEEKS)
    with db.session() as s:
        user_ids = [u for (u,) in s.execute(text("SELECT id FROM users WHERE workspace_id = :w"), {"w": ws_id})]
        drills = [
            {
                "workspace_id": ws_id,
                "channel_id": ch_id,
                "signature": "straggler",
                "seed": i,
                "difficulty": "medium",
                "scheduled": True,
                "posted_at": start + (NOW - start) * i / n_drills,
                "deadline_at": start + (NOW - start) * i / n_drills + timedelta(minutes=2),
            }
            for i in range(n_drills)
        ]
        s.execute(insert(Drill), drills)
        drill_rows = list(
            s.execute(text("SELECT id, posted_at FROM drills WHERE channel_id = :c ORDER BY id"), {"c": ch_id})
        )
    t0 = time.perf_counter()
    if db.is_sqlite:
        with db.session() as s:
            for drill_id, posted in drill_rows:
                posted = posted if isinstance(posted, datetime) else datetime.fromisoformat(str(posted))
                rows = [
                    {
                        "drill_id": drill_id,
                        "user_id": u,
                        "workspace_id": ws_id,
                        "channel_id": ch_id,
                        "signature": "straggler",
                        "answer_text": "x",
                        "signature_credit": 1.0,
                        "measurement_credit": 0.0,
                        "fix_credit": 0.0,
                        "named": "straggler",
                        "score": 0.5,
                        "points": rng.randint(0, 120),
                        "submitted_at": posted.replace(tzinfo=UTC) + timedelta(seconds=30),
                        "late": False,
                        "revisions": 0,
                    }
                    for u in rng.sample(user_ids, per_drill)
                ]
                s.execute(insert(Attempt), rows)
    else:
        raw = db.engine.raw_connection()
        cur = raw.cursor()
        cols = (
            "drill_id, user_id, workspace_id, channel_id, signature, answer_text, signature_credit, "
            "measurement_credit, fix_credit, named, score, points, submitted_at, late, revisions"
        )
        with cur.copy(f"COPY attempts ({cols}) FROM STDIN") as copy:
            for drill_id, posted in drill_rows:
                ts = (posted + timedelta(seconds=30)).isoformat()
                buf = io.StringIO()
                for u in rng.sample(user_ids, per_drill):
                    buf.write(
                        f"{drill_id}\t{u}\t{ws_id}\t{ch_id}\tstraggler\tx\t1\t0\t0\tstraggler\t0.5\t"
                        f"{rng.randint(0, 120)}\t{ts}\tf\t0\n"
                    )
                copy.write(buf.getvalue())
        raw.commit()
        cur.execute("ANALYZE attempts")
        raw.commit()
        raw.close()
    print(f"  loaded {len(drill_rows) * per_drill:,} attempts in {time.perf_counter() - t0:.1f} s")
    return ws_id, ch_id


def time_leaderboard(db: Database, ws_id: int, ch_id: int, label: str) -> None:
    for period in ("week", "month", "all"):
        times = []
        for _ in range(7):
            t0 = time.perf_counter()
            rows = leaderboard(db, ws_id, "channel", ch_id, period, "America/New_York", NOW)
            times.append((time.perf_counter() - t0) * 1000)
        print(
            f"  {label} leaderboard (channel, {period:<5}): median {statistics.median(times):6.1f} ms, "
            f"max {max(times):6.1f} ms  (target ≤ 100 ms; top: {rows[0].points if rows else 0} pts)"
        )


async def time_submits(db: Database) -> None:
    engine = Drills(db, {"slack": FakeChat()}, clock=lambda: NOW, rng=random.Random(2))
    ch = ChannelRef("slack", "TSUB", "C1")
    d = await engine.start(ch, signature="straggler", duration_seconds=3600)
    answers = [
        "rank 2 is a straggler, check DCGM clocks, fix the node",
        "NCCL got slow",
        "the all-reduce is not overlapped with backward; count NCCL kernels per step",
    ]
    lat = []
    for i in range(400):
        t0 = time.perf_counter()
        await engine.submit(d.id, UserRef("slack", "TSUB", f"u{i % 150}"), answers[i % 3])
        lat.append((time.perf_counter() - t0) * 1000)
    lat.sort()
    print(
        f"  submit (grade + store), {len(lat)} answers: median {statistics.median(lat):.1f} ms, "
        f"p99 {lat[int(0.99 * len(lat)) - 1]:.1f} ms (target ≤ 50 ms)"
    )


async def fan_out(db: Database, n_channels: int = 1000) -> None:
    chat = FakeChat()
    engine = Drills(db, {"slack": chat}, clock=lambda: NOW, rng=random.Random(3))
    with db.session() as s:
        ws = repo.workspace(s, "slack", "TFAN", "fan", NOW)
        s.execute(
            insert(Channel),
            [
                {
                    "workspace_id": ws.id,
                    "external_id": f"C{i}",
                    "name": f"c{i}",
                    "timezone": "UTC",
                    "schedule_hour": 9,
                    "schedule_minute": 0,
                    "weekdays": "mon-fri",
                    "skip_dates": [],
                    "answer_mode": "both",
                    "difficulty": "medium",
                    "enabled": True,
                }
                for i in range(n_channels)
            ],
        )
        ids = [c for (c,) in s.execute(text("SELECT id FROM channels WHERE workspace_id = :w"), {"w": ws.id})]
    jobs.bind(engine)
    t0 = time.perf_counter()
    await asyncio.gather(*(jobs.channel_drill(c) for c in ids))
    took = time.perf_counter() - t0
    jobs.unbind()
    distinct = len({(p.title, p.difficulty) for _, p in chat.drills})
    print(
        f"  {n_channels} channels due the same minute: {len(chat.drills)} posted in {took:.1f} s "
        f"(target ≤ 60 s); pictures drawn {engine.renders.renders} for {distinct} distinct drills"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--postgres", default=None, help="PostgreSQL URL (e.g. postgresql://postgres@127.0.0.1/test)")
    ap.add_argument("--attempts", type=int, default=1_000_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(f"sqlite:///{Path(tmp) / 'bench.sqlite3'}")
        upgrade(db)
        print("SQLite")
        ws_id, ch_id = seed_attempts(db, args.attempts)
        time_leaderboard(db, ws_id, ch_id, "SQLite")
        asyncio.run(time_submits(db))
        asyncio.run(fan_out(db))
        db.dispose()
    if args.postgres:
        url = normalize_url(args.postgres)
        schema = f"bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(url)
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        try:
            db = Database(
                engine=create_engine(
                    url, connect_args={"options": f"-csearch_path={schema}"}, pool_size=10, max_overflow=10
                )
            )
            upgrade(db)
            print("PostgreSQL")
            ws_id, ch_id = seed_attempts(db, args.attempts)
            time_leaderboard(db, ws_id, ch_id, "PostgreSQL")
            asyncio.run(time_submits(db))
            db.dispose()
        finally:
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()


if __name__ == "__main__":
    main()
