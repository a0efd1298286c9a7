"""Interview prep on Slack: `/trace math …` and `/trace interview …`, their buttons and modals, and the posts.

Registered before the drill listeners, with a matcher on the command text, so the rest of `/trace` is untouched.
Everything a person typed is escaped before it is quoted."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from slack_bolt.async_app import AsyncApp

from ...drills.errors import DrillError
from ...drills.ports import ChannelRef, MessageRef, UserRef
from ...interview.ports import InterviewInvite, RoundPost
from ...mathdrill.answers import MAX_ANSWER_CHARS, UnreadableAnswer, parse_answer
from ...mathdrill.ports import MathPost, MathRevealPost
from ...prep.commands import USAGE, PrepCommand, is_prep, parse_prep
from ...prep.root import PrepServices
from ...prep.schedules import schedule_off, set_schedule
from .blocks import escape, slack_date
from .chat import SlackChat

log = logging.getLogger(__name__)
PLATFORM = "slack"
MATH_ACTION = "math_answer"
MATH_MODAL = "math_modal"
MATH_BLOCK, MATH_INPUT = "math_block", "math_input"
ROUND_ACTION = "interview_answer"
ROUND_MODAL = "interview_modal"
ROUND_BLOCK, ROUND_INPUT = "interview_block", "interview_input"
START_ACTION = "interview_start"
MAX_ROUND_CHARS = 3000  # Slack's plain_text_input limit


# -- posts ----------------------------------------------------------------------------------------------
def math_blocks(post: MathPost) -> list[dict[str, Any]]:
    q = post.question
    return [
        {"type": "header", "text": {"type": "plain_text", "text": f"Mental math #{post.question_id}"}},
        {"type": "section", "text": {"type": "mrkdwn", "text": escape(q.question)}},
        {
            "type": "context",
            "elements": [
                {
                    "type": "mrkdwn",
                    "text": f"Answer by {slack_date(post.deadline)} · in {q.unit} · ±{q.tolerance:.0%} counts · "
                    "answers stay hidden until the reveal",
                }
            ],
        },
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "action_id": MATH_ACTION,
                    "style": "primary",
                    "value": str(post.question_id),
                    "text": {"type": "plain_text", "text": "Answer"},
                }
            ],
        },
    ]


def math_modal(question_id: int, channel_id: str, prompt: str) -> dict[str, Any]:
    return {
        "type": "modal",
        "callback_id": MATH_MODAL,
        "private_metadata": f"{question_id}|{channel_id}",
        "title": {"type": "plain_text", "text": f"Math #{question_id}"},
        "submit": {"type": "plain_text", "text": "Submit"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [
            {"type": "section", "text": {"type": "plain_text", "text": prompt[:2900]}},
            {
                "type": "input",
                "block_id": MATH_BLOCK,
                "label": {"type": "plain_text", "text": "Your answer"},
                "element": {
                    "type": "plain_text_input",
                    "action_id": MATH_INPUT,
                    "max_length": MAX_ANSWER_CHARS,
                    "placeholder": {"type": "plain_text", "text": "e.g. 1,200 or ~1.2e3 or 45%"},
                },
            },
        ],
    }


def round_blocks(post: RoundPost) -> list[dict[str, Any]]:
    lines = "\n".join(escape(line) for line in post.context_lines)
    return [
        {
            "type": "header",
            "text": {"type": "plain_text", "text": f"Mock interview · round {post.number}/{post.rounds}"},
        },
        {
            "type": "section",
            "text": {
                "type": "mrkdwn",
                "text": f"<@{post.user.user}>'s interview ({post.difficulty}). *{escape(post.title)}*\n{lines}",
            },
        },
        {
            "type": "context",
            "elements": [
                {
                    "type": "mrkdwn",
                    "text": f"5-minute clock: answer by {slack_date(post.deadline)}. "
                    "Narrate it: step → gaps → overlap → top "
                    "kernels, quote this trace's numbers, name the lookalike and say why it is not that.",
                }
            ],
        },
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "action_id": ROUND_ACTION,
                    "style": "primary",
                    "value": str(post.session_id),
                    "text": {"type": "plain_text", "text": "Answer this round"},
                }
            ],
        },
    ]


def round_modal(session_id: int, channel_id: str, message_ts: str) -> dict[str, Any]:
    return {
        "type": "modal",
        "callback_id": ROUND_MODAL,
        "private_metadata": f"{session_id}|{channel_id}|{message_ts}",
        "title": {"type": "plain_text", "text": f"Interview #{session_id}"},
        "submit": {"type": "plain_text", "text": "Submit"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [
            {
                "type": "input",
                "block_id": ROUND_BLOCK,
                "label": {"type": "plain_text", "text": "Your read, as you would say it out loud"},
                "element": {
                    "type": "plain_text_input",
                    "action_id": ROUND_INPUT,
                    "multiline": True,
                    "max_length": MAX_ROUND_CHARS,
                },
            }
        ],
    }


class SlackPrepChat:
    """MathChat and InterviewChat on Slack, through the drill adapter's clients and pacing."""

    def __init__(self, chat: SlackChat) -> None:
        self.chat = chat

    async def post_math(self, channel: ChannelRef, post: MathPost) -> MessageRef:
        c = await self.chat.client(channel.workspace)
        resp = await c.chat_postMessage(
            channel=channel.channel,
            text=f"Mental math #{post.question_id}",
            blocks=math_blocks(post),
            unfurl_links=False,
        )
        return MessageRef(channel, str(resp["ts"]))

    async def post_math_reveal(self, ref: MessageRef, post: MathRevealPost) -> MessageRef:
        c = await self.chat.client(ref.channel.workspace)
        resp = await c.chat_postMessage(
            channel=ref.channel.channel,
            thread_ts=ref.message or None,
            text=f"*Reveal*\n```{escape(post.text())}```",
            unfurl_links=False,
        )
        return MessageRef(ref.channel, str(resp["ts"]))

    async def send_private(self, channel: ChannelRef, user: UserRef, text: str) -> None:
        await self.chat.send_private(channel, user, text)

    async def post_round(self, channel: ChannelRef, post: RoundPost) -> MessageRef:
        c = await self.chat.client(channel.workspace)
        resp = await c.chat_postMessage(
            channel=channel.channel,
            text=f"Mock interview round {post.number}",
            blocks=round_blocks(post),
            unfurl_links=False,
        )
        ts = str(resp["ts"])
        await c.files_upload_v2(
            channel=channel.channel,
            thread_ts=ts,
            file=post.image_png,
            filename="trace.png",
            title=f"Round {post.number}: {post.title}"[:200],
        )
        return MessageRef(channel, ts)

    async def post_text(self, ref: MessageRef, text: str) -> MessageRef:
        c = await self.chat.client(ref.channel.workspace)
        last = None
        for i in range(0, max(len(text), 1), 3500):  # Slack truncates messages near 40k; keep them readable
            last = await c.chat_postMessage(
                channel=ref.channel.channel,
                thread_ts=ref.message or None,
                text=escape(text[i : i + 3500]),
                unfurl_links=False,
            )
        return MessageRef(ref.channel, str(last["ts"]) if last else "")

    async def post_invite(self, channel: ChannelRef, invite: InterviewInvite) -> MessageRef:
        c = await self.chat.client(channel.workspace)
        who = f" for study group *{escape(invite.group)}*" if invite.group else ""
        resp = await c.chat_postMessage(
            channel=channel.channel,
            text="Mock interview session",
            unfurl_links=False,
            blocks=[
                {
                    "type": "section",
                    "text": {
                        "type": "mrkdwn",
                        "text": f"*Mock interview session*{who}: {invite.rounds} rounds, "
                        "5 minutes each, rising difficulty.",
                    },
                },
                {
                    "type": "actions",
                    "elements": [
                        {
                            "type": "button",
                            "action_id": START_ACTION,
                            "style": "primary",
                            "value": f"{invite.rounds}|{invite.group_id or ''}",
                            "text": {"type": "plain_text", "text": "Start my interview"},
                        }
                    ],
                },
            ],
        )
        return MessageRef(channel, str(resp["ts"]))


# -- listeners ------------------------------------------------------------------------------------------
async def _is_prep_command(body: dict[str, Any]) -> bool:
    return is_prep(str(body.get("text", "")))


async def _is_admin(client: Any, user_id: str) -> bool:
    try:
        info = await client.users_info(user=user_id)
    except Exception:
        return False
    u = info.get("user") or {}
    return bool(u.get("is_admin") or u.get("is_owner"))


def register_prep(app: AsyncApp, prep: PrepServices) -> None:
    """Call before the drill listeners: Bolt runs the first listener whose matchers pass."""
    tasks: set[asyncio.Task[Any]] = set()

    def background(coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    @app.command("/trace", matchers=[_is_prep_command])
    async def trace_prep(ack: Any, command: dict[str, Any], respond: Any, client: Any) -> None:
        cmd = parse_prep(command.get("text", ""))
        if cmd.name == "usage":
            await ack(response_type="ephemeral", text=f"{cmd.error} {USAGE}")
            return
        await ack(response_type="ephemeral", text="On it…")
        channel = ChannelRef(PLATFORM, command["team_id"], command["channel_id"], command.get("channel_name", ""))
        user = UserRef(PLATFORM, command["team_id"], command["user_id"], command.get("user_name", ""))
        background(_run(cmd, channel, user, respond, client))

    async def _run(cmd: PrepCommand, channel: ChannelRef, user: UserRef, respond: Any, client: Any) -> None:
        try:
            if cmd.name == "math":
                started = await prep.math.start(channel, kind=cmd.kind)
                text = f"Math #{started.id} posted: 30 seconds."
            elif cmd.name == "math_board":
                text = await prep.math.board_text(channel, cmd.period)
            elif cmd.name == "interview":
                s = await prep.interview.start(channel, user, rounds=cmd.rounds)
                text = f"Interview #{s.session_id} started: {s.rounds} rounds."
            elif cmd.name == "interview_resume":
                s = await prep.interview.resume(user)
                text = f"Interview #{s.session_id}: the current round is posted again."
            elif not await _is_admin(client, user.user):
                text = "Only workspace admins can change the schedule."
            elif cmd.name == "schedule":
                text = (
                    await set_schedule(
                        prep.math.db,
                        channel,
                        cmd.target,
                        cmd.weekdays,
                        cmd.hour,
                        cmd.minute,
                        cmd.timezone,
                        group=cmd.group,
                        rounds=cmd.rounds,
                    )
                ).text()
                prep.schedules_changed()
            else:
                text = (await schedule_off(prep.math.db, channel, cmd.target)).text()
                prep.schedules_changed()
        except DrillError as exc:
            text = str(exc)
        except Exception:
            log.exception("/trace %s failed", cmd.name)
            text = "Something went wrong; please try again."
        await respond(response_type="ephemeral", text=escape(text))

    @app.action(MATH_ACTION)
    async def open_math_modal(ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        try:
            qid = int(body["actions"][0]["value"])
        except (KeyError, ValueError, IndexError):
            return
        _, user = _who(body)
        try:
            q = await prep.math.question_for(user, qid)
            prompt = f"{q.question} (in {q.unit})"
        except DrillError as exc:
            prompt = str(exc)
        channel_id = (body.get("channel") or {}).get("id", "")
        await client.views_open(trigger_id=body["trigger_id"], view=math_modal(qid, channel_id, prompt))

    @app.view(MATH_MODAL)
    async def math_submitted(ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        text = _value(view, MATH_BLOCK, MATH_INPUT)
        try:
            parse_answer(text)
        except UnreadableAnswer as exc:  # said in the modal, so nothing typed is lost
            await ack(response_action="errors", errors={MATH_BLOCK: str(exc)[:150]})
            return
        await ack()
        qid, _, channel_id = str(view.get("private_metadata", "")).partition("|")
        team, user = _who(body)
        background(
            _math_answer(int(qid) if qid.isdigit() else 0, ChannelRef(PLATFORM, team, channel_id), user, text, client)
        )

    async def _math_answer(qid: int, channel: ChannelRef, user: UserRef, text: str, client: Any) -> None:
        try:
            reply = (await prep.math.answer(qid, user, text)).text
        except DrillError as exc:
            reply = str(exc)
        if channel.channel:
            await client.chat_postEphemeral(channel=channel.channel, user=user.user, text=escape(reply))

    @app.action(ROUND_ACTION)
    async def open_round_modal(ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        try:
            sid = int(body["actions"][0]["value"])
        except (KeyError, ValueError, IndexError):
            return
        channel_id = (body.get("channel") or {}).get("id", "")
        ts = str((body.get("message") or {}).get("ts", ""))
        await client.views_open(trigger_id=body["trigger_id"], view=round_modal(sid, channel_id, ts))

    @app.view(ROUND_MODAL)
    async def round_submitted(ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        text = _value(view, ROUND_BLOCK, ROUND_INPUT)
        if not text.strip():
            await ack(response_action="errors", errors={ROUND_BLOCK: "Say your read first."})
            return
        await ack()
        sid, channel_id, ts = [*str(view.get("private_metadata", "")).split("|"), "", "", ""][:3]
        team, user = _who(body)
        channel = ChannelRef(PLATFORM, team, channel_id)
        background(_round_answer(int(sid) if sid.isdigit() else 0, channel, user, text, ts, client))

    async def _round_answer(sid: int, channel: ChannelRef, user: UserRef, text: str, ts: str, client: Any) -> None:
        try:
            await prep.interview.answer(sid, user, text, MessageRef(channel, ts) if ts else None)
        except DrillError as exc:
            if channel.channel:
                await client.chat_postEphemeral(channel=channel.channel, user=user.user, text=escape(str(exc)))
        except Exception:
            log.exception("interview answer failed")
            if channel.channel:
                await client.chat_postEphemeral(
                    channel=channel.channel,
                    user=user.user,
                    text="Something went wrong; `/trace interview resume` continues.",
                )

    @app.action(START_ACTION)
    async def start_from_invite(ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        value = str((body.get("actions") or [{}])[0].get("value", ""))
        rounds_s, _, group_s = value.partition("|")
        team, user = _who(body)
        channel = ChannelRef(PLATFORM, team, (body.get("channel") or {}).get("id", ""))
        rounds = int(rounds_s) if rounds_s.isdigit() else 3
        group_id = int(group_s) if group_s.isdigit() else None
        background(_start(channel, user, rounds, group_id, client))

    async def _start(channel: ChannelRef, user: UserRef, rounds: int, group_id: int | None, client: Any) -> None:
        try:
            await prep.interview.start(channel, user, rounds=rounds, group_id=group_id)
        except DrillError as exc:
            await client.chat_postEphemeral(channel=channel.channel, user=user.user, text=escape(str(exc)))


def _value(view: dict[str, Any], block: str, action: str) -> str:
    values = ((view.get("state") or {}).get("values") or {}).get(block) or {}
    return str((values.get(action) or {}).get("value") or "")


def _who(body: dict[str, Any]) -> tuple[str, UserRef]:
    team = body["team"]["id"] if body.get("team") else body["user"]["team_id"]
    return team, UserRef(PLATFORM, team, body["user"]["id"], body["user"].get("name", ""))
