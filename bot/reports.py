"""Read-side helpers for the terminal platform: drill lists, boards, stats and group actions."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from sqlalchemy import func, select

from .adapters.terminal.chat import PLATFORM, WORKSPACE
from .drills import groups
from .drills.engine import utcnow
from .drills.leaderboard import BoardRow, leaderboard
from .drills.stats import UserStats, user_stats
from .store import repo
from .store.db import Database
from .store.models import Attempt, Channel, Drill


def list_terminal_drills(db: Database, limit: int = 50) -> list[dict[str, Any]]:
    with db.session() as s:
        ws = repo.find_workspace(s, PLATFORM, WORKSPACE)
        if ws is None:
            return []
        answers = (
            select(Attempt.drill_id, func.count().label("n"))
            .where(Attempt.late.is_(False))
            .group_by(Attempt.drill_id)
            .subquery()
        )
        q = (
            select(Drill, Channel.external_id, answers.c.n)
            .join(Channel, Channel.id == Drill.channel_id)
            .outerjoin(answers, answers.c.drill_id == Drill.id)
            .where(Drill.workspace_id == ws.id)
            .order_by(Drill.id.desc())
            .limit(limit)
        )
        return [
            {
                "drill_id": d.id,
                "channel": f"terminal:{ch}",
                "posted_at": d.posted_at.isoformat(),
                "deadline": d.deadline_at.isoformat(),
                "revealed": d.revealed_at is not None,
                "signature": d.signature if d.revealed_at is not None else None,
                "difficulty": d.difficulty,
                "answers": int(n or 0),
            }
            for d, ch, n in s.execute(q)
        ]


def terminal_leaderboard(db: Database, channel: str | None, period: str, *, solo: bool = False) -> list[BoardRow]:
    with db.session() as s:
        ws = repo.find_workspace(s, PLATFORM, WORKSPACE)
        ch = repo.find_channel(s, ws, channel) if ws and channel else None
        if ws is None or (channel and ch is None):
            return []
        scope, scope_id, tz = ("channel", ch.id, ch.timezone) if ch else ("solo" if solo else "workspace", ws.id, "UTC")
        ws_id = ws.id
    return leaderboard(db, ws_id, scope, scope_id, period, tz, utcnow())


def terminal_stats(db: Database, user: str) -> UserStats | None:
    with db.session() as s:
        ws = repo.find_workspace(s, PLATFORM, WORKSPACE)
        u = repo.find_user(s, ws, user) if ws else None
        if ws is None or u is None:
            return None
        return user_stats(s, ws.id, u.id)


def format_stats(user: str, st: UserStats) -> str:
    lines = [
        f"{user}: {st.answers} answers, {st.total_points} points, mean score {st.mean_score:.2f}, "
        f"streak {st.streak} (best {st.best_streak})"
    ]
    if st.weakest:
        lines.append("Weakest: " + ", ".join(st.weakest))
    lines.append(f"{'signature':<24} {'answers':>7} {'mean':>6} {'named right':>11}")
    for k in st.skills:
        if k.answers:
            lines.append(f"{k.signature:<24} {k.answers:>7} {k.mean_score:>6.2f} {k.named_right:>11}")
    if st.confusion:
        lines.append("Confusion (true → what you named):")
        for true, row in st.confusion.items():
            lines.append(f"  {true:<24} " + ", ".join(f"{k}×{v}" for k, v in sorted(row.items())))
    return "\n".join(lines)


def group_action(db: Database, action: str, name: str | None, user: str) -> Any:
    now = utcnow()
    with db.session() as s:
        ws = repo.workspace(s, PLATFORM, WORKSPACE, "local", now)
        if action == "list":
            return [asdict(g) for g in groups.list_groups(s, ws)]
        assert name is not None
        if action == "create":
            info = groups.create(s, ws, name, user, user, now)
        elif action == "join":
            info = groups.join(s, ws, name, user, user, now)
        else:
            info = groups.leave(s, ws, name, user)
        return asdict(info)
