"""Team operations the chat adapters share: boards, stats, schedules, groups, thread lookup. Platform-free;
returns plain text (adapters escape it for their markup)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from sqlalchemy import select, update

from ..scenarios.ids import SIGNATURE_IDS
from ..scenarios.registry import signature as signature_info
from ..store import repo
from ..store.models import Attempt, Channel, Drill, User, Workspace
from . import groups
from .channel_config import ChannelConfig
from .engine import DrillEngine
from .leaderboard import BoardRow, leaderboard
from .ports import ChannelRef, UserRef
from .stats import user_stats


class TeamService:
    def __init__(self, engine: DrillEngine, on_schedule_change: Callable[[], None] | None = None) -> None:
        self.engine = engine
        self.db = engine.db
        self.on_schedule_change = on_schedule_change or (lambda: None)
        self.config = ChannelConfig(self.db, engine.clock, engine.answer_seconds, lambda: self.on_schedule_change())

    def signatures_text(self) -> str:
        return "\n".join(f"• {sid} — {signature_info(sid).summary}" for sid in SIGNATURE_IDS)

    async def leaderboard_text(self, channel: ChannelRef, period: str) -> str:
        return await asyncio.to_thread(self._leaderboard, channel, period)

    def _leaderboard(self, channel: ChannelRef, period: str) -> str:
        now = self.engine.clock()
        with self.db.session() as s:
            ws = repo.find_workspace(s, channel.platform, channel.workspace)
            ch = repo.find_channel(s, ws, channel.channel) if ws else None
            if ws is None or ch is None:
                return "No drills in this channel yet — start one with /trace."
            ws_id, ch_id, tz = ws.id, ch.id, ch.timezone
        rows = leaderboard(self.db, ws_id, "channel", ch_id, period, tz, now)
        return _board_text(f"Leaderboard — this channel, {period if period == 'all' else 'this ' + period}", rows)

    async def stats_text(self, user: UserRef) -> str:
        return await asyncio.to_thread(self._stats, user)

    def _stats(self, user: UserRef) -> str:
        with self.db.session() as s:
            ws = repo.find_workspace(s, user.platform, user.workspace)
            u = repo.find_user(s, ws, user.user) if ws else None
            if ws is None or u is None:
                return "No answers from you yet."
            st = user_stats(s, ws.id, u.id)
        lines = [
            f"{st.answers} answers · {st.total_points} points · mean {st.mean_score:.2f} · streak "
            f"{st.streak} (best {st.best_streak})"
        ]
        if st.weakest:
            lines.append("Weakest: " + ", ".join(st.weakest))
        lines += [
            f"• {k.signature}: {k.answers} answered, mean {k.mean_score:.2f}, named right {k.named_right}"
            for k in st.skills
            if k.answers
        ]
        return "\n".join(lines)

    async def set_schedule(self, channel: ChannelRef, weekdays: str, hour: int, minute: int, tz: str) -> str:
        def run() -> None:
            with self.db.session() as s:
                ws = repo.workspace(s, channel.platform, channel.workspace, "", self.engine.clock())
                ch = repo.channel(s, ws, channel.channel, channel.name)
                ch.weekdays, ch.schedule_hour, ch.schedule_minute, ch.timezone = weekdays, hour, minute, tz
                ch.enabled = True

        await asyncio.to_thread(run)
        self.on_schedule_change()
        return f"Daily drill scheduled: {weekdays} at {hour:02d}:{minute:02d} {tz}."

    async def schedule_off(self, channel: ChannelRef) -> str:
        def run() -> bool:
            with self.db.session() as s:
                ws = repo.find_workspace(s, channel.platform, channel.workspace)
                ch = repo.find_channel(s, ws, channel.channel) if ws else None
                if ch is None:
                    return False
                ch.schedule_hour = None
                return True

        changed = await asyncio.to_thread(run)
        self.on_schedule_change()
        return "Daily drill switched off." if changed else "This channel had no schedule."

    async def disable_workspace(self, platform: str, workspace: str) -> None:
        def run() -> None:
            with self.db.session() as s:
                ws = repo.find_workspace(s, platform, workspace)
                if ws is not None:
                    s.execute(update(Channel).where(Channel.workspace_id == ws.id).values(enabled=False))

        await asyncio.to_thread(run)
        self.on_schedule_change()

    async def enable_workspace(self, platform: str, workspace: str) -> None:
        def run() -> None:
            with self.db.session() as s:
                ws = repo.find_workspace(s, platform, workspace)
                if ws is not None:
                    s.execute(update(Channel).where(Channel.workspace_id == ws.id).values(enabled=True))

        await asyncio.to_thread(run)
        self.on_schedule_change()

    async def enable_workspace_for_install(self, enterprise: str | None, team: str | None) -> None:
        """A (re)install: the team's channels drill on their schedules again (an uninstall switched them off).
        An org-wide Grid install (no team) re-enables every workspace of that enterprise."""

        def run() -> None:
            with self.db.session() as s:
                q = select(Workspace.id).where(Workspace.platform == "slack")
                q = q.where(Workspace.external_id == team) if team else q.where(Workspace.enterprise_id == enterprise)
                if not team and not enterprise:
                    return
                ids = list(s.scalars(q))
                if team and enterprise:
                    s.execute(update(Workspace).where(Workspace.id.in_(ids)).values(enterprise_id=enterprise))
                if ids:
                    s.execute(update(Channel).where(Channel.workspace_id.in_(ids)).values(enabled=True))

        await asyncio.to_thread(run)
        self.on_schedule_change()

    async def enterprise_of(self, platform: str, workspace: str) -> str | None:
        def run() -> str | None:
            with self.db.session() as s:
                return s.scalar(
                    select(Workspace.enterprise_id).where(
                        Workspace.platform == platform, Workspace.external_id == workspace
                    )
                )

        return await asyncio.to_thread(run)

    async def set_enterprise(self, platform: str, workspace: str, enterprise: str) -> None:
        def run() -> None:
            with self.db.session() as s:
                ws = repo.workspace(s, platform, workspace, "", self.engine.clock())
                if ws.enterprise_id != enterprise:
                    ws.enterprise_id = enterprise

        await asyncio.to_thread(run)

    async def last_answer(self, drill_id: int, user: UserRef) -> str | None:
        """This person's latest answer to this drill (to pre-fill the form when they reopen it)."""

        def run() -> str | None:
            with self.db.session() as s:
                ws = repo.find_workspace(s, user.platform, user.workspace)
                if ws is None:
                    return None
                q = (
                    select(Attempt.answer_text)
                    .join(User, User.id == Attempt.user_id)
                    .where(Attempt.workspace_id == ws.id, Attempt.drill_id == drill_id, User.external_id == user.user)
                    .order_by(Attempt.submitted_at.desc())
                    .limit(1)
                )
                return s.scalar(q)

        return await asyncio.to_thread(run)

    async def group_text(self, action: str, name: str, user: UserRef, channel: ChannelRef) -> str:
        return await asyncio.to_thread(self._group, action, name, user, channel)

    def _group(self, action: str, name: str, user: UserRef, channel: ChannelRef) -> str:
        now = self.engine.clock()
        with self.db.session() as s:
            ws = repo.workspace(s, user.platform, user.workspace, "", now)
            if action == "list":
                found = groups.list_groups(s, ws)
                return "\n".join(f"• {g.name} ({g.members} members)" for g in found) or "No study groups yet."
            if action == "create":
                ch = repo.channel(s, ws, channel.channel, channel.name)
                g = groups.create(s, ws, name, user.user, user.name, now, channel_id=ch.id)
                return f"Created study group {g.name}; its drills post in this channel."
            if action == "join":
                g = groups.join(s, ws, name, user.user, user.name, now)
                return f"You joined {g.name} ({g.members} members)."
            if action == "leave":
                g = groups.leave(s, ws, name, user.user)
                return f"You left {g.name}."
            group = groups.find(s, ws, name)
            ws_id, g_id, g_name = ws.id, group.id, group.name
        rows = leaderboard(self.db, ws_id, "group", g_id, "all", "UTC", now)
        return _board_text(f"Leaderboard — study group {g_name}, all time", rows)

    async def drill_for_thread(self, channel: ChannelRef, thread_message: str) -> int | None:
        """The open drill whose message anchors this thread, if the channel takes thread answers."""

        def run() -> int | None:
            with self.db.session() as s:
                ws = repo.find_workspace(s, channel.platform, channel.workspace)
                ch = repo.find_channel(s, ws, channel.channel) if ws else None
                if ws is None or ch is None or ch.answer_mode not in ("thread", "both"):
                    return None
                q = select(Drill.id).where(
                    Drill.workspace_id == ws.id, Drill.channel_id == ch.id, Drill.message_ref == thread_message
                )
                return s.scalar(q)

        return await asyncio.to_thread(run)


def _board_text(title: str, rows: list[BoardRow]) -> str:
    if not rows:
        return f"{title}: no answers yet."
    return title + "\n" + "\n".join(f"{r.rank}. {r.user} — {r.points} pts ({r.answers} answers)" for r in rows)
