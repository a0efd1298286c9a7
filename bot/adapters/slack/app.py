"""The Slack app: `/trace`, the Submit-diagnosis button and modal, thread answers, uninstall events.

Every handler acks first and works afterwards, so Slack gets its response within 3 seconds even when the
database or the drawing is slow.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_sdk.errors import SlackApiError

from ...drills.channel_config import ConfigChange, parse_signatures, validate
from ...drills.commands import USAGE, parse
from ...drills.engine import DrillEngine
from ...drills.errors import DrillError, NotRecorded
from ...drills.home import HomeService
from ...drills.ports import ChannelRef, UserRef
from ...drills.service import TeamService
from ...prep.root import PrepServices
from .appeals import HomeSection, register_appeals
from .blocks import (
    ANSWER_BLOCK,
    ANSWER_INPUT,
    MODAL_CALLBACK,
    SUBMIT_ACTION,
    answer_modal,
    escape,
    receipt_view,
)
from .chat import SlackChat, make_client
from .files import download_shared_file
from .home import CONFIG_CALLBACK, config_modal, config_values, home_view
from .installation import ThreadedInstallationStore, ThreadedStateStore
from .names import DisplayNames
from .replay import ReplayGuard
from .settings import SlackSettings

log = logging.getLogger(__name__)
PLATFORM = "slack"
# im:write opens the DM that carries private feedback; users:read gives display names and admin flags.
BOT_SCOPES = [
    "commands",
    "chat:write",
    "files:write",
    "files:read",
    "channels:history",
    "groups:history",
    "users:read",
    "im:write",
]
PREFILL_SECONDS = 1.0  # the modal must open within Slack's 3 s trigger window: a slow lookup skips the pre-fill
ECHO_CHARS = 500


@dataclass
class SlackRuntime:
    app: AsyncApp
    chat: SlackChat
    installations: ThreadedInstallationStore | None
    states: ThreadedStateStore | None = None


def build_slack(
    engine: DrillEngine, service: TeamService, settings: SlackSettings, prep: PrepServices | None = None
) -> SlackRuntime:
    installations = None
    states = None
    if settings.oauth:
        assert settings.client_id is not None
        assert settings.client_secret is not None
        installations = ThreadedInstallationStore(
            settings.client_id, engine.db.engine, on_install=service.enable_workspace_for_install
        )
        states = ThreadedStateStore(engine.db.engine)
        oauth = AsyncOAuthSettings(
            client_id=settings.client_id,
            client_secret=settings.client_secret.get_secret_value(),
            scopes=BOT_SCOPES,
            installation_store=installations,
            state_store=states,
        )
        app = AsyncApp(
            signing_secret=_secret(settings.signing_secret),
            oauth_settings=oauth,
            client=make_client(None, settings.api_url),
            process_before_response=False,
        )
        store = installations

        async def token_for(team: str) -> str | None:
            # Enterprise Grid: the install is keyed by (enterprise, team), or by the enterprise alone when
            # the app was installed org-wide (is_enterprise_install).
            enterprise = await service.enterprise_of(PLATFORM, team)
            bot = await store.async_find_bot(enterprise_id=enterprise, team_id=team)
            if bot is None and enterprise:
                bot = await store.async_find_bot(enterprise_id=enterprise, team_id=None, is_enterprise_install=True)
            return bot.bot_token if bot else None
    else:
        token = _secret(settings.bot_token)
        # Socket Mode needs no signing secret; without one, a random secret makes sure no HTTP request can
        # ever verify (a constant would be a shared password).
        app = AsyncApp(
            signing_secret=_secret(settings.signing_secret) or secrets.token_hex(32),
            client=make_client(token, settings.api_url),
            process_before_response=False,
        )

        async def token_for(team: str) -> str | None:
            return token

    chat = SlackChat(token_for, settings.api_url, update_every=settings.update_every_seconds)
    app.use(ReplayGuard().middleware)
    if prep is not None:  # first: its `/trace math|interview` listener must match before the drill one
        from .prep import SlackPrepChat, register_prep

        register_prep(app, prep)
        prep.math.chats[PLATFORM] = prep.interview.chats[PLATFORM] = SlackPrepChat(chat)
    _register(app, engine, service, settings, installations, chat)
    return SlackRuntime(app, chat, installations, states)


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None


def _register(
    app: AsyncApp,
    engine: DrillEngine,
    service: TeamService,
    settings: SlackSettings,
    installations: ThreadedInstallationStore | None,
    chat: SlackChat,
) -> None:
    tasks: set[asyncio.Task[Any]] = set()
    names = DisplayNames()
    known_enterprise: dict[str, str] = {}
    homes = HomeService(engine)
    charts: dict[tuple[str, str], str] = {}  # (user, chart digest) → uploaded file id: one upload per change
    appeal_section: HomeSection | None = None  # set below, once the appeal listeners are registered

    async def publish_home(client: Any, user: UserRef) -> None:
        """The App Home: stats, last answers with their feedback, weakest signatures, settings, the chart."""
        home = await homes.home(user)
        file_id = None
        if home.stats is not None:
            digest = hashlib.sha256(repr(sorted(home.series.items())).encode()).hexdigest()[:16]
            file_id = charts.get((user.user, digest))
            if file_id is None:
                png = await homes.chart(home)
                resp = await client.files_upload_v2(
                    file=png,
                    filename="accuracy.png",
                    title="Your accuracy",
                    alt_txt="Mean score per week for each signature",
                )
                file_id = str(resp["file"]["id"])
                if len(charts) > 5000:
                    charts.clear()
                charts[(user.user, digest)] = file_id
        view = home_view(home, file_id, engine.answer_seconds)
        if appeal_section is not None:  # reviewers also see the open appeals; a Home tab holds 100 blocks
            view["blocks"].extend((await appeal_section(client, user))[: 100 - len(view["blocks"])])
        await client.views_publish(user_id=user.user, view=view)

    async def publish_for(user: UserRef) -> None:
        await publish_home(await chat.client(user.workspace), user)

    chat.publish_home = publish_for

    @app.event("app_home_opened")
    async def home_opened(event: dict[str, Any], body: dict[str, Any], client: Any) -> None:
        if event.get("tab", "home") != "home" or not event.get("user"):
            return
        team = body.get("team_id") or ""
        note_enterprise(team, body.get("enterprise_id"))
        try:
            await publish_home(client, UserRef(PLATFORM, team, str(event["user"])))
        except SlackApiError as exc:
            log.warning("App Home publish failed: %s", exc.response.get("error"))

    @app.view(CONFIG_CALLBACK)
    async def config_submitted(ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        values = config_values(view)
        team = body["team"]["id"] if body.get("team") else body["user"]["team_id"]
        try:
            seconds = values.get("answer_seconds")
            change = validate(
                ConfigChange(
                    answer_mode=values.get("answer_mode"),
                    difficulty=values.get("difficulty"),
                    answer_seconds=int(seconds) if seconds not in (None, "") else None,
                    signature_mix=parse_signatures(" ".join(values.get("signatures") or [])) or None,
                    all_signatures=not values.get("signatures"),
                    schedule=(values.get("schedule") or "off").strip(),
                )
            )
        except (DrillError, ValueError) as exc:
            block = _config_block(str(exc))
            await ack(response_action="errors", errors={block: clip_error(str(exc))})
            return
        if not await _is_admin(client, body["user"]["id"]):
            await ack(response_action="errors", errors={"answer_mode": "Only workspace admins can change this."})
            return
        await ack()
        channel = ChannelRef(PLATFORM, team, str(view.get("private_metadata", "")))
        saved = await service.config.apply(channel, change)
        await _tell(
            client,
            channel,
            UserRef(PLATFORM, team, body["user"]["id"]),
            escape("Saved. " + saved.summary(engine.answer_seconds)),
        )

    def note_enterprise(team: str, enterprise: str | None) -> None:
        """Grid: keep the team's enterprise id, so scheduled drills and reveals find the install."""
        if enterprise and known_enterprise.get(team) != enterprise:
            known_enterprise[team] = enterprise
            background(service.set_enterprise(PLATFORM, team, enterprise))

    def background(coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    @app.command("/trace")
    async def trace(ack: Any, command: dict[str, Any], respond: Any, client: Any) -> None:
        cmd = parse(command.get("text", ""))
        channel = ChannelRef(PLATFORM, command["team_id"], command["channel_id"], command.get("channel_name", ""))
        user = UserRef(PLATFORM, command["team_id"], command["user_id"], command.get("user_name", ""))
        note_enterprise(command["team_id"], command.get("enterprise_id"))
        if cmd.name in ("usage", "help"):
            # Escaped: `<signature>` would otherwise be read as Slack markup and vanish.
            await ack(response_type="ephemeral", text=escape((f"{cmd.error} " if cmd.error else "") + USAGE))
            return
        if cmd.name == "list":
            await ack(response_type="ephemeral", text=escape(service.signatures_text()))
            return
        if cmd.name == "config":
            await ack(response_type="ephemeral", text="Opening this channel's settings…")
            background(_open_config(channel, user, command.get("trigger_id", ""), respond, client))
            return
        await ack(response_type="ephemeral", text="On it…" if cmd.name != "drill" else "Starting a drill…")
        background(_run_command(cmd, channel, user, respond, client))

    async def _open_config(channel: ChannelRef, user: UserRef, trigger: str, respond: Any, client: Any) -> None:
        if not await _is_admin(client, user.user):
            await respond(response_type="ephemeral", text="Only workspace admins can change this channel's settings.")
            return
        current = await service.config.get(channel)
        await client.views_open(trigger_id=trigger, view=config_modal(channel.channel, current, engine.answer_seconds))

    async def _run_command(cmd: Any, channel: ChannelRef, user: UserRef, respond: Any, client: Any) -> None:
        try:
            if cmd.name == "group":  # boards show display names, not the deprecated user_name
                user = UserRef(PLATFORM, user.workspace, user.user, await names.name(client, user.user, user.name))
            if cmd.name == "drill":
                await engine.start(channel, signature=cmd.signature)
                return
            if cmd.name == "analyze":
                await _analyze_shared_trace(client, channel, user, respond, settings.file_hosts)
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
        except SlackApiError as exc:
            await respond(response_type="ephemeral", text=explain(str(exc.response.get("error"))))
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
        team = (body.get("team") or {}).get("id") or body["user"].get("team_id", "")
        previous: str | None = None
        with contextlib.suppress(TimeoutError, DrillError):  # reopening shows your last answer, to revise
            previous = await asyncio.wait_for(
                service.last_answer(drill_id, UserRef(PLATFORM, team, body["user"]["id"])), PREFILL_SECONDS
            )
        await client.views_open(
            trigger_id=body["trigger_id"],
            view=answer_modal(drill_id, channel_id, settings.max_answer_chars, previous or ""),
        )

    @app.view(MODAL_CALLBACK)
    async def answer_submitted(ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        value = (((view.get("state") or {}).get("values") or {}).get(ANSWER_BLOCK) or {}).get(ANSWER_INPUT) or {}
        text = value.get("value") or ""
        if not text.strip():
            await ack(response_action="errors", errors={ANSWER_BLOCK: "Write a diagnosis first."})
            return
        if len(text) > settings.max_answer_chars:
            await ack(
                response_action="errors",
                errors={ANSWER_BLOCK: f"Keep it under {settings.max_answer_chars:,} characters ({len(text):,} now)."},
            )
            return
        drill_part, _, channel_id = str(view.get("private_metadata", "")).partition("|")
        drill_id = int(drill_part) if drill_part.isdigit() else 0
        await ack(response_action="update", view=receipt_view(drill_id, text))
        team = body["team"]["id"] if body.get("team") else body["user"]["team_id"]
        user = UserRef(PLATFORM, team, body["user"]["id"], "")
        background(
            _submit(
                drill_id,
                ChannelRef(PLATFORM, team, channel_id),
                user,
                text,
                f"view:{view.get('id')}:{view.get('hash')}",
                client,
            )
        )

    async def _submit(drill_id: int, channel: ChannelRef, user: UserRef, text: str, key: str, client: Any) -> None:
        user = UserRef(user.platform, user.workspace, user.user, await names.name(client, user.user, user.name))
        try:
            outcome = await engine.submit(drill_id, user, text, idempotency_key=key)
            reply = outcome.private_text()
            if outcome.status != "duplicate":
                echo = text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "…"
                reply += "\nYou wrote: " + echo.replace("\n", " ")
            if outcome.late:
                reply += "\n" + outcome.grade.feedback()
        except NotRecorded as exc:
            reply = str(exc)
        except DrillError as exc:
            reply = str(exc)
        except Exception:  # any grading or storage failure: tell the person, never drop the answer silently
            log.exception("submit failed for drill %s", drill_id)
            reply = str(NotRecorded())
        await _tell(client, channel, user, escape(reply))

    async def _tell(client: Any, channel: ChannelRef, user: UserRef, text: str) -> None:
        """An ephemeral note where the person is; a DM when that fails (e.g. user_not_in_channel)."""
        if channel.channel:
            try:
                await client.chat_postEphemeral(channel=channel.channel, user=user.user, text=text)
                return
            except SlackApiError as exc:
                log.info("ephemeral failed (%s); sending a DM", exc.response.get("error"))
        try:
            await chat.direct_message(client, user.user, text)
        except SlackApiError as exc:
            log.warning("could not reach %s: %s", user.user, exc.response.get("error"))

    @app.event("message")
    async def thread_answer(event: dict[str, Any], body: dict[str, Any], client: Any) -> None:
        subtype = event.get("subtype")
        message = event
        if subtype == "message_changed":  # an edited reply revises the answer
            message = event.get("message") or {}
        elif subtype not in (None, "thread_broadcast"):  # "also send to channel" replies still count
            return
        thread = message.get("thread_ts")
        if not thread or message.get("bot_id") or thread == message.get("ts") or not message.get("user"):
            return
        team = body.get("team_id") or event.get("team", "")
        note_enterprise(team, body.get("enterprise_id"))
        channel = ChannelRef(PLATFORM, team, event.get("channel", ""))
        drill_id = await service.drill_for_thread(channel, str(thread))
        if drill_id is None:
            return
        user = UserRef(PLATFORM, team, str(message.get("user")), "")
        # Slack retries an event with the same event_id: the key makes the retry a no-op.
        await _submit(drill_id, channel, user, message.get("text", ""), f"event:{body.get('event_id')}", client)

    appeal_section = register_appeals(app, engine, background, _is_admin, publish_for)

    @app.event("app_uninstalled")
    @app.event("tokens_revoked")
    async def uninstalled(body: dict[str, Any]) -> None:
        team = body.get("team_id", "")
        if installations is not None:
            await installations.async_delete_all(enterprise_id=body.get("enterprise_id"), team_id=team)
        await service.disable_workspace(PLATFORM, team)


def _config_block(error: str) -> str:
    """Which field of the settings form an error belongs to."""
    lowered = error.lower()
    for needle, block in (
        ("answer time", "answer_seconds"),
        ("difficulty", "difficulty"),
        ("signature", "signatures"),
        ("answer mode", "answer_mode"),
    ):
        if needle in lowered:
            return block
    return "schedule"


def clip_error(text: str) -> str:
    return text[:150]


EXPLAINED = {
    "not_in_channel": "I'm not in this channel: add me with `/invite @tracedrill`, then try again.",
    "channel_not_found": "I can't see this channel: add me with `/invite @tracedrill`, then try again.",
    "is_archived": "This channel is archived.",
    "missing_scope": "tracedrill lacks a Slack permission: ask an admin to reinstall it (see the README).",
    "restricted_action": "A workspace policy stops me posting here.",
}


def explain(error: str) -> str:
    """A Slack API error as one line someone can act on (nothing was posted)."""
    return EXPLAINED.get(error, f"Slack refused the post ({escape(error)}); nothing was posted. Try again.")


async def _is_admin(client: Any, user_id: str) -> bool:
    try:
        info = await client.users_info(user=user_id)
    except Exception:
        return False
    u = info.get("user") or {}
    return bool(u.get("is_admin") or u.get("is_owner"))


async def _analyze_shared_trace(
    client: Any, channel: ChannelRef, user: UserRef, respond: Any, file_hosts: list[str]
) -> None:
    """Read the newest trace file this person shared in the channel, run the reading order, post the result."""
    from ...analyze.service import TRACE_SUFFIXES, AnalysisError, analyze_bytes, check_upload
    from ...cleantext import in_code_block

    listing = await client.files_list(channel=channel.channel, user=user.user, count=20)
    files = [f for f in listing.get("files", []) if str(f.get("name", "")).lower().endswith(TRACE_SUFFIXES)]
    if not files:
        await respond(
            response_type="ephemeral",
            text="Share a torch.profiler trace (.json or .json.gz) in this channel first, then run `/trace analyze`.",
        )
        return
    newest = max(files, key=lambda f: f.get("created", 0))
    name = str(newest.get("name"))
    try:
        data = await download_shared_file(newest, client.token, file_hosts, check_upload)
        result = await asyncio.to_thread(analyze_bytes, name, data)
    except AnalysisError as exc:
        await respond(response_type="ephemeral", text=escape(str(exc)))
        return
    await respond(response_type="in_channel", text=escape(in_code_block(result.text)))
    if result.png:
        await client.files_upload_v2(
            channel=channel.channel, file=result.png, filename="analysis.png", title=f"Reading of {name}"
        )
