"""Read-side helpers for the terminal platform: drill lists, boards, stats and group actions (through the
store's aggregates and the drill core's group and board functions, never queries of their own)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from .adapters.terminal.chat import PLATFORM, WORKSPACE
from .drills.engine import utcnow
from .drills.groups import group_request, run_group_action
from .drills.leaderboard import BoardRow, leaderboard
from .drills.stats import UserStats
from .scenarios.ids import SIGNATURE_IDS
from .store import boards
from .store import drills as drill_store
from .store.db import Database


def list_terminal_drills(db: Database, limit: int = 50) -> list[dict[str, Any]]:
    return drill_store.listing(db, PLATFORM, WORKSPACE, limit)


def terminal_leaderboard(db: Database, channel: str | None, period: str, *, solo: bool = False) -> list[BoardRow]:
    scope = boards.scope_for(db, PLATFORM, WORKSPACE, channel, solo=solo)
    if scope is None:
        return []
    return leaderboard(db, scope.workspace_id, scope.scope, scope.scope_id, period, scope.timezone, utcnow())


def terminal_stats(db: Database, user: str) -> UserStats | None:
    return boards.stats_for(db, PLATFORM, WORKSPACE, user, SIGNATURE_IDS)


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
    """The CLI's group actions: the list of groups, or the group acted on."""
    _, found = run_group_action(
        db, group_request(action, name, PLATFORM, WORKSPACE, user, user, workspace_name="local"), utcnow()
    )
    return [asdict(g) for g in found] if action == "list" else asdict(found[0])
