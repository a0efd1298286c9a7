"""The Slack app: `/trace`, the Submit-diagnosis button and modal, thread answers, uninstall events.

Every handler acks first and works afterwards, so Slack gets its response within 3 seconds even when the
database or the drawing is slow.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings

from ...drills.commands import USAGE, parse
from ...drills.engine import DrillEngine
from ...drills.errors import DrillError, NotRecorded
from ...drills.ports import ChannelRef, UserRef
from ...drills.service import TeamService
from .blocks import ANSWER_BLOCK, ANSWER_INPUT, MODAL_CALLBACK, SUBMIT_ACTION, answer_modal, escape
from .chat import SlackChat, make_client
from .installation import ThreadedInstallationStore, ThreadedStateStore
from .settings import SlackSettings

log = logging.getLogger(__name__)
PLATFORM = "slack"
BOT_SCOPES = ["commands", "chat:write", "files:write", "files:read", "channels:history", "groups:history",
              "users:read"]


@dataclass
class SlackRuntime:
    app: AsyncApp
    chat: SlackChat
    installations: ThreadedInstallationStore | None


def build_slack(engine: DrillEngine, service: TeamService, settings: SlackSettings) -> SlackRuntime:
    installations = None
    if settings.oauth:
        assert settings.client_id is not None
        assert settings.client_secret is not None
        installations = ThreadedInstallationStore(settings.client_id, engine.db.engine)
        oauth = AsyncOAuthSettings(client_id=settings.client_id,
                                   client_secret=settings.client_secret.get_secret_value(), scopes=BOT_SCOPES,
                                   installation_store=installations,
                                   state_store=ThreadedStateStore(engine.db.engine))
        app = AsyncApp(signing_secret=_secret(settings.signing_secret), oauth_settings=oauth,
                       client=make_client(None, settings.api_url), process_before_response=False)
        store = installations

        async def token_for(team: str) -> str | None:
            bot = await store.async_find_bot(enterprise_id=None, team_id=team)
            return bot.bot_token if bot else None
    else:
        token = _secret(settings.bot_token)
        app = AsyncApp(signing_secret=_secret(settings.signing_secret) or "socket-mode",
                       client=make_client(token, settings.api_url), process_before_response=False)

        async def token_for(team: str) -> str | None:
            return token

    chat = SlackChat(token_for, settings.api_url, update_every=settings.update_every_seconds)
    _register(app, engine, service, settings, installations)
    return SlackRuntime(app, chat, installations)


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None


def _register(app: AsyncApp, engine: DrillEngine, service: TeamService, settings: SlackSettings,
              installations: ThreadedInstallationStore | None) -> None:
    tasks: set[asyncio.Task[Any]] = set()

    def background(coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    @app.command("/trace")
    async def trace(ack: Any, command: dict[str, Any], respond: Any, client: Any) -> None:
        cmd = parse(command.get("text", ""))
        channel = ChannelRef(PLATFORM, command["team_id"], command["channel_id"], command.get("channel_name", ""))
        user = UserRef(PLATFORM, command["team_id"], command["user_id"], command.get("user_name", ""))
        if cmd.name in ("usage", "help"):
            await ack(response_type="ephemeral", text=(f"{cmd.error} " if cmd.error else "") + USAGE)
            return
        if cmd.name == "list":
            await ack(response_type="ephemeral", text=escape(service.signatures_text()))
            return
        await ack(response_type="ephemeral", text="On it…" if cmd.name != "drill" else "Starting a drill…")
        background(_run_command(cmd, channel, user, respond, client))

    async def _run_command(cmd: Any, channel: ChannelRef, user: UserRef, respond: Any, client: Any) -> None:
        try:
            if cmd.name == "drill":
                await engine.start(channel, signature=cmd.signature)
                return
            if cmd.name == "analyze":
                await _analyze_shared_trace(client, channel, user, respond)
                return
            if cmd.name == "leaderboard":
                text = await service.leaderboard_text(channel, cmd.period)
            elif cmd.name == "stats":
                text = await service.stats_text(user)
            elif cmd.name in ("schedule", "schedule_off"):
                if not await _is_admin(client, user.user):
                    text = "Only workspace admins can change the schedule."
                elif cmd.name == "schedule":
                    text = await service.set_schedule(channel, cmd.weekdays, cmd.hour, cmd.minute, cmd.timezone)
                else:
                    text = await service.schedule_off(channel)
            else:
                text = await service.group_text(cmd.group_action, cmd.group_name, user, channel)
            await respond(response_type="ephemeral", text=escape(text))
        except DrillError as exc:
            await respond(response_type="ephemeral", text=escape(str(exc)))
        except Exception:
            log.exception("/trace %s failed", cmd.name)
            await respond(response_type="ephemeral", text="Something went wrong; please try again.")

    @app.action(SUBMIT_ACTION)
    async def open_answer_modal(ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        try:
            drill_id = int(body["actions"][0]["value"])
        except (KeyError, ValueError, IndexError):
            return
        channel_id = (body.get("channel") or {}).get("id", "")
        await client.views_open(trigger_id=body["trigger_id"],
                                view=answer_modal(drill_id, channel_id, settings.max_answer_chars))

    @app.view(MODAL_CALLBACK)
    async def answer_submitted(ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        value = (((view.get("state") or {}).get("values") or {}).get(ANSWER_BLOCK) or {}).get(ANSWER_INPUT) or {}
        text = value.get("value") or ""
        if not text.strip():
            await ack(response_action="errors", errors={ANSWER_BLOCK: "Write a diagnosis first."})
            return
        if len(text) > settings.max_answer_chars:
            await ack(response_action="errors", errors={
                ANSWER_BLOCK: f"Keep it under {settings.max_answer_chars:,} characters ({len(text):,} now)."})
            return
        await ack()
        drill_part, _, channel_id = str(view.get("private_metadata", "")).partition("|")
        team = body["team"]["id"] if body.get("team") else body["user"]["team_id"]
        user = UserRef(PLATFORM, team, body["user"]["id"], body["user"].get("name", ""))
        background(_submit(int(drill_part) if drill_part.isdigit() else 0, ChannelRef(PLATFORM, team, channel_id),
                           user, text, f"view:{view.get('id')}:{view.get('hash')}", client))

    async def _submit(drill_id: int, channel: ChannelRef, user: UserRef, text: str, key: str, client: Any) -> None:
        try:
            outcome = await engine.submit(drill_id, user, text, idempotency_key=key)
            reply = outcome.private_text()
            if outcome.late:
                reply += "\n" + outcome.grade.feedback()
        except NotRecorded as exc:
            reply = str(exc)
        except DrillError as exc:
            reply = str(exc)
        if channel.channel:
            await client.chat_postEphemeral(channel=channel.channel, user=user.user, text=escape(reply))

    @app.event("message")
    async def thread_answer(event: dict[str, Any], body: dict[str, Any], client: Any) -> None:
        thread = event.get("thread_ts")
        if not thread or event.get("subtype") or event.get("bot_id") or thread == event.get("ts"):
            return
        team = body.get("team_id") or event.get("team", "")
        channel = ChannelRef(PLATFORM, team, event.get("channel", ""))
        drill_id = await service.drill_for_thread(channel, str(thread))
        if drill_id is None:
            return
        user = UserRef(PLATFORM, team, event.get("user", ""), "")
        # Slack retries an event with the same event_id: the key makes the retry a no-op.
        await _submit(drill_id, channel, user, event.get("text", ""), f"event:{body.get('event_id')}", client)

    @app.event("app_uninstalled")
    @app.event("tokens_revoked")
    async def uninstalled(body: dict[str, Any]) -> None:
        team = body.get("team_id", "")
        if installations is not None:
            await installations.async_delete_all(enterprise_id=body.get("enterprise_id"), team_id=team)
        await service.disable_workspace(PLATFORM, team)


async def _is_admin(client: Any, user_id: str) -> bool:
    try:
        info = await client.users_info(user=user_id)
    except Exception:
        return False
    u = info.get("user") or {}
    return bool(u.get("is_admin") or u.get("is_owner"))


async def _analyze_shared_trace(client: Any, channel: ChannelRef, user: UserRef, respond: Any) -> None:
    """Read the newest trace file this person shared in the channel, run the reading order, post the result."""
    import aiohttp

    from ...analyze.service import TRACE_SUFFIXES, AnalysisError, analyze_bytes, check_upload
    from ...cleantext import in_code_block

    listing = await client.files_list(channel=channel.channel, user=user.user, count=20)
    files = [f for f in listing.get("files", []) if str(f.get("name", "")).lower().endswith(TRACE_SUFFIXES)]
    if not files:
        await respond(response_type="ephemeral", text="Share a torch.profiler trace (.json or .json.gz) in this "
                      "channel first, then run `/trace analyze`.")
        return
    newest = max(files, key=lambda f: f.get("created", 0))
    name = str(newest.get("name"))
    try:
        check_upload(name, int(newest.get("size", 0)))
        async with aiohttp.ClientSession() as session, session.get(
                newest["url_private"], headers={"Authorization": f"Bearer {client.token}"}) as resp:
            if resp.status != 200:
                raise AnalysisError(f"{name}: Slack would not hand over the file (HTTP {resp.status})")
            data = bytearray()
            async for chunk in resp.content.iter_chunked(2**16):
                data += chunk
                check_upload(name, len(data))  # never hold more than the limit, whatever Slack said
        result = await asyncio.to_thread(analyze_bytes, name, bytes(data))
    except AnalysisError as exc:
        await respond(response_type="ephemeral", text=escape(str(exc)))
        return
    await respond(response_type="in_channel", text=escape(in_code_block(result.text)))
    if result.png:
        await client.files_upload_v2(channel=channel.channel, file=result.png, filename="analysis.png",
                                     title=f"Reading of {name}")
