"""The drill's Slack listeners: `/trace …`, the Submit-diagnosis button and modal, answers in a drill's thread,
and uninstalls. `/trace` acks at once and does its work in a lazy listener; answers are graded in the
background after the modal closes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp

from ...drills.commands import USAGE, Command, parse
from ...drills.engine import Drills
from ...drills.ports import ChannelRef, UserRef
from ...drills.service import TeamService
from ..common.replies import answer_receipt, prefill
from ..common.runner import Runner
from .analyze import analyze_shared_trace
from .blocks import ANSWER_BLOCK, ANSWER_INPUT, MODAL_CALLBACK, SUBMIT_ACTION, answer_modal, escape, receipt_view
from .chat import SlackChat
from .grid import Enterprises
from .home_listeners import HomeListeners
from .installation import ThreadedInstallationStore
from .names import DisplayNames
from .payloads import (
    PLATFORM,
    action_id,
    channel_id_of,
    command_refs,
    metadata,
    number,
    team_of,
    text_field,
    thread_reply,
    user_of,
)
from .replies import SLACK_ERRORS, SUBMIT_ERRORS, ephemeral, is_admin, tell
from .settings import SlackSettings


@dataclass(frozen=True, slots=True)
class Asked:
    """One `/trace …` command, translated, with what its work needs to answer."""

    cmd: Command
    channel: ChannelRef
    user: UserRef
    trigger: str
    client: Any
    respond: Any


Work = Callable[[Asked], Awaitable[str | None]]


def _slack_quote(echo: str) -> str:
    return "\nYou wrote: " + echo.replace("\n", " ")


class DrillListeners:
    def __init__(
        self,
        engine: Drills,
        service: TeamService,
        settings: SlackSettings,
        chat: SlackChat,
        runner: Runner,
        enterprises: Enterprises,
        home: HomeListeners,
        installations: ThreadedInstallationStore | None,
    ) -> None:
        self.engine, self.service, self.settings, self.chat = engine, service, settings, chat
        self.runner, self.enterprises, self.home, self.installations = runner, enterprises, home, installations
        self.names = DisplayNames()
        self.work: dict[str, Work] = {
            "drill": self._drill,
            "analyze": self._analyze,
            "leaderboard": self._leaderboard,
            "stats": self._stats,
            "schedule": self._schedule,
            "schedule_off": self._schedule,
            "group": self._group,
            "config": self._config,
        }

    def register(self, app: AsyncApp) -> None:
        app.command("/trace")(ack=self.trace_ack, lazy=[self.trace_work])
        app.action(SUBMIT_ACTION)(self.open_answer_modal)
        app.view(MODAL_CALLBACK)(self.answer_submitted)
        app.event("message")(self.thread_answer)
        app.event("app_uninstalled")(self.uninstalled)
        app.event("tokens_revoked")(self.uninstalled)

    # -- /trace ----------------------------------------------------------------------------------------------
    async def trace_ack(self, ack: Any, command: dict[str, Any]) -> None:
        cmd = parse(command.get("text", ""))
        self.enterprises.note(command["team_id"], command.get("enterprise_id"))
        if cmd.name in ("usage", "help"):
            # Escaped: `<signature>` would otherwise be read as Slack markup and vanish.
            await ack(response_type="ephemeral", text=escape((f"{cmd.error} " if cmd.error else "") + USAGE))
        elif cmd.name == "list":
            await ack(response_type="ephemeral", text=escape(self.service.signatures_text()))
        elif cmd.name == "config":
            await ack(response_type="ephemeral", text="Opening this channel's settings…")
        else:
            await ack(response_type="ephemeral", text="On it…" if cmd.name != "drill" else "Starting a drill…")

    async def trace_work(self, command: dict[str, Any], respond: Any, client: Any) -> None:
        """The lazy half of `/trace`: whatever the ack could not answer by itself."""
        cmd = parse(command.get("text", ""))
        work = self.work.get(cmd.name)
        if work is None:
            return
        channel, user = command_refs(command)
        asked = Asked(cmd, channel, user, str(command.get("trigger_id", "")), client, respond)
        await self.runner.reply_after(f"/trace {cmd.name}", work(asked), ephemeral(respond), SLACK_ERRORS)

    async def _drill(self, asked: Asked) -> None:
        cmd, channel = asked.cmd, asked.channel
        await self.engine.start(channel, signature=cmd.signature)

    async def _analyze(self, asked: Asked) -> None:
        await analyze_shared_trace(asked.client, asked.channel, asked.user, asked.respond, self.settings.file_hosts)

    async def _leaderboard(self, asked: Asked) -> str:
        return escape(await self.service.leaderboard_text(asked.channel, asked.cmd.period))

    async def _stats(self, asked: Asked) -> str:
        return escape(await self.service.stats_text(asked.user))

    async def _schedule(self, asked: Asked) -> str:
        cmd, channel = asked.cmd, asked.channel
        if not await is_admin(asked.client, asked.user.user):
            return "Only workspace admins can change the schedule."
        if cmd.name == "schedule":
            text = await self.service.set_schedule(channel, cmd.weekdays, cmd.hour, cmd.minute, cmd.timezone)
        else:
            text = await self.service.schedule_off(channel)
        return escape(text)

    async def _group(self, asked: Asked) -> str:
        cmd, channel, user = asked.cmd, asked.channel, asked.user
        # boards show display names, not the deprecated user_name
        user = UserRef(PLATFORM, user.workspace, user.user, await self.names.name(asked.client, user.user, user.name))
        return escape(await self.service.group_text(cmd.group_action, cmd.group_name, user, channel))

    async def _config(self, asked: Asked) -> str | None:
        return await self.home.open_config(asked.channel, asked.user, asked.trigger, asked.client)

    # -- answers ---------------------------------------------------------------------------------------------
    async def open_answer_modal(self, ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        drill_id = action_id(body)
        if drill_id is None:
            return
        previous = await prefill(self.service.last_answer(drill_id, user_of(body, named=False)))
        await client.views_open(
            trigger_id=body["trigger_id"],
            view=answer_modal(drill_id, channel_id_of(body), self.settings.max_answer_chars, previous),
        )

    async def answer_submitted(self, ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        text = text_field(view, ANSWER_BLOCK, ANSWER_INPUT)
        problem = self._answer_problem(text)
        if problem:
            await ack(response_action="errors", errors={ANSWER_BLOCK: problem})
            return
        drill_part, channel_id = metadata(view, 2)
        drill_id = number(drill_part)
        await ack(response_action="update", view=receipt_view(drill_id, text))
        channel = ChannelRef(PLATFORM, team_of(body), channel_id)
        key = f"view:{view.get('id')}:{view.get('hash')}"
        self.runner.spawn(self.submit(drill_id, channel, user_of(body, named=False), text, key, client))

    def _answer_problem(self, text: str) -> str | None:
        limit = self.settings.max_answer_chars
        if not text.strip():
            return "Write a diagnosis first."
        if len(text) > limit:
            return f"Keep it under {limit:,} characters ({len(text):,} now)."
        return None

    async def submit(self, drill_id: int, channel: ChannelRef, user: UserRef, text: str, key: str, client: Any) -> None:
        user = UserRef(user.platform, user.workspace, user.user, await self.names.name(client, user.user, user.name))

        async def receipt() -> str:
            outcome = await self.engine.submit(drill_id, user, text, idempotency_key=key)
            return escape(answer_receipt(outcome, text, _slack_quote))

        async def reply(line: str) -> None:
            await tell(self.chat, client, channel, user, line)

        await self.runner.reply_after(f"submit for drill {drill_id}", receipt(), reply, SUBMIT_ERRORS)

    async def thread_answer(self, event: dict[str, Any], body: dict[str, Any], client: Any) -> None:
        reply = thread_reply(event, body)
        if reply is None:
            return
        self.enterprises.note(reply.channel.workspace, body.get("enterprise_id"))
        drill_id = await self.service.drill_for_thread(reply.channel, reply.thread_ts)
        if drill_id is None:
            return
        await self.submit(drill_id, reply.channel, reply.user, reply.text, reply.key, client)

    async def uninstalled(self, body: dict[str, Any]) -> None:
        team = body.get("team_id", "")
        if self.installations is not None:
            await self.installations.async_delete_all(enterprise_id=body.get("enterprise_id"), team_id=team)
        await self.service.disable_workspace(PLATFORM, team)
