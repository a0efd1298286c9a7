"""Team operations the chat adapters share: boards, stats, schedules, groups, thread lookup. Platform-free;
returns plain text (adapters escape it for their markup)."""

from __future__ import annotations

from collections.abc import Callable

from ..scenarios.ids import SIGNATURE_IDS
from ..scenarios.registry import signature as signature_info
from ..store import attempts, boards, channels
from ..store import drills as drill_store
from .channel_config import ChannelConfig
from .engine import Drills
from .groups import group_board, group_request, run_group_action
from .leaderboard import board_text, leaderboard
from .offloop import in_store, off_loop
from .periods import Period
from .ports import AnswerMode, ChannelRef, UserRef
from .stats import stats_text


class TeamService:
    def __init__(self, engine: Drills, on_schedule_change: Callable[[], None] | None = None) -> None:
        self.engine = engine
        self.db = engine.db
        self.on_schedule_change = on_schedule_change or (lambda: None)
        self.config = ChannelConfig(self.db, engine.clock, engine.answer_seconds, lambda: self.on_schedule_change())

    def signatures_text(self) -> str:
        return "\n".join(f"• {sid} — {signature_info(sid).summary}" for sid in SIGNATURE_IDS)

    async def leaderboard_text(self, channel: ChannelRef, period: str) -> str:
        now = self.engine.clock()
        row = await in_store(self.db, channels.find, channel)
        if row is None:
            return "No drills in this channel yet — start one with /trace."
        rows = await off_loop(leaderboard, self.db, row.workspace_id, "channel", row.id, period, row.timezone, now)
        return board_text(f"Leaderboard — this channel, {period if period == Period.ALL else 'this ' + period}", rows)

    async def stats_text(self, user: UserRef) -> str:
        st = await in_store(self.db, boards.stats_for, user.platform, user.workspace, user.user, SIGNATURE_IDS)
        return stats_text(st) if st is not None else "No answers from you yet."

    async def set_schedule(self, channel: ChannelRef, weekdays: str, hour: int, minute: int, tz: str) -> str:
        await in_store(self.db, channels.set_schedule, channel, weekdays, hour, minute, tz, self.engine.clock())
        self.on_schedule_change()
        return f"Daily drill scheduled: {weekdays} at {hour:02d}:{minute:02d} {tz}."

    async def schedule_off(self, channel: ChannelRef) -> str:
        changed = await in_store(self.db, channels.schedule_off, channel)
        self.on_schedule_change()
        return "Daily drill switched off." if changed else "This channel had no schedule."

    async def disable_workspace(self, platform: str, workspace: str) -> None:
        await in_store(self.db, channels.set_workspace_enabled, platform, workspace, False)
        self.on_schedule_change()

    async def enable_workspace(self, platform: str, workspace: str) -> None:
        await in_store(self.db, channels.set_workspace_enabled, platform, workspace, True)
        self.on_schedule_change()

    async def enable_workspace_for_install(self, enterprise: str | None, team: str | None) -> None:
        """A (re)install: the team's channels drill on their schedules again (an uninstall switched them off).
        An org-wide Grid install (no team) re-enables every workspace of that enterprise."""
        await in_store(self.db, channels.enable_for_install, enterprise, team)
        self.on_schedule_change()

    async def enterprise_of(self, platform: str, workspace: str) -> str | None:
        return await in_store(self.db, channels.enterprise_of, platform, workspace)

    async def set_enterprise(self, platform: str, workspace: str, enterprise: str) -> None:
        await in_store(self.db, channels.set_enterprise, platform, workspace, enterprise, self.engine.clock())

    async def last_answer(self, drill_id: int, user: UserRef) -> str | None:
        """This person's latest answer to this drill (to pre-fill the form when they reopen it)."""
        return await in_store(self.db, attempts.last_answer, user, drill_id)

    async def group_text(self, action: str, name: str, user: UserRef, channel: ChannelRef) -> str:
        now = self.engine.clock()
        req = group_request(action, name, user.platform, user.workspace, user.user, user.name, channel)
        ws_id, found = await off_loop(run_group_action, self.db, req, now)
        if action == "list":
            return "\n".join(f"• {g.name} ({g.members} members)" for g in found) or "No study groups yet."
        g = found[0]
        if action == "create":
            return f"Created study group {g.name}; its drills post in this channel."
        if action == "join":
            return f"You joined {g.name} ({g.members} members)."
        if action == "leave":
            return f"You left {g.name}."
        return await off_loop(group_board, self.db, ws_id, g, now)

    async def drill_for_thread(self, channel: ChannelRef, thread_message: str) -> int | None:
        """The open drill whose message anchors this thread, if the channel takes thread answers."""
        modes = (AnswerMode.THREAD.value, AnswerMode.BOTH.value)
        return await in_store(self.db, drill_store.for_thread, channel, thread_message, modes)
