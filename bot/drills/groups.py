"""Study groups for the chat adapters and the CLI: the store's group actions, refusals as DrillErrors."""

from __future__ import annotations

from datetime import datetime

from ..store import groups
from ..store.db import Database
from ..store.groups import GroupAction, GroupInfo
from .errors import GroupError
from .leaderboard import board_text, leaderboard
from .periods import Period
from .ports import ChannelRef

__all__ = ["GroupInfo", "group_board", "group_request", "run_group_action"]


def group_request(
    action: str,
    name: str | None,
    platform: str,
    workspace: str,
    user: str,
    user_name: str,
    channel: ChannelRef | None = None,
    workspace_name: str = "",
) -> GroupAction:
    """`leaderboard` reads the group (find); create records the channel its drills post in, if any."""
    store_action = "find" if action == "leaderboard" else action
    ch, ch_name = (channel.channel, channel.name) if channel is not None else (None, "")
    return GroupAction(store_action, name or "", platform, workspace, user, user_name, ch, ch_name, workspace_name)


def run_group_action(db: Database, req: GroupAction, now: datetime) -> tuple[int, list[GroupInfo]]:
    """Blocking (a store call): (workspace id, the groups concerned). Raises GroupError."""
    try:
        return groups.act(db, req, now)
    except groups.GroupError as exc:
        raise GroupError(str(exc)) from exc


def group_board(db: Database, workspace_id: int, g: GroupInfo, now: datetime) -> str:
    rows = leaderboard(db, workspace_id, "group", g.id, Period.ALL, "UTC", now)
    return board_text(f"Leaderboard — study group {g.name}, all time", rows)
