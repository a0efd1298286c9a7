"""Interview prep on Slack: `/trace math …` and `/trace interview …`, their buttons and modals, and the posts.

Registered before the drill listeners, with a matcher on the command text, so the rest of `/trace` is untouched.
Everything a person typed is escaped before it is quoted."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
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
from ..common.runner import ErrorTable, Runner
from .blocks import escape, slack_date
from .chat import SlackChat
from .lazy import ack_only
from .payloads import (
    PLATFORM,
    action_id,
    action_value,
    channel_id_of,
    command_refs,
    message_ts_of,
    metadata,
    number,
    text_field,
    user_of,
)
from .replies import SLACK_ERRORS, ephemeral, ephemeral_in, is_admin

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


def _interview_errors(resume: str) -> ErrorTable:
    return SLACK_ERRORS.with_rows(fallback=f"Something went wrong; `{resume}` continues.")


ROUND_ERRORS = _interview_errors("/trace interview resume")
PrepWork = Callable[[PrepCommand, ChannelRef, UserRef, Any], Awaitable[str]]


class PrepListeners:
    """Register before the drill listeners: Bolt runs the first listener whose matchers pass."""

    def __init__(self, prep: PrepServices, runner: Runner) -> None:
        self.prep, self.runner = prep, runner
        self.work: dict[str, PrepWork] = {
            "math": self._math,
            "math_board": self._math_board,
            "interview": self._interview,
            "interview_resume": self._resume,
            "schedule": self._schedule,
            "schedule_off": self._schedule,
        }

    def register(self, app: AsyncApp) -> None:
        app.command("/trace", matchers=[_is_prep_command])(ack=self.trace_ack, lazy=[self.trace_work])
        app.action(MATH_ACTION)(self.open_math_modal)
        app.view(MATH_MODAL)(self.math_submitted)
        app.action(ROUND_ACTION)(self.open_round_modal)
        app.view(ROUND_MODAL)(self.round_submitted)
        app.action(START_ACTION)(ack=ack_only, lazy=[self.start_from_invite])

    async def trace_ack(self, ack: Any, command: dict[str, Any]) -> None:
        cmd = parse_prep(command.get("text", ""))
        if cmd.name == "usage":
            await ack(response_type="ephemeral", text=f"{cmd.error} {USAGE}")
        else:
            await ack(response_type="ephemeral", text="On it…")

    async def trace_work(self, command: dict[str, Any], respond: Any, client: Any) -> None:
        cmd = parse_prep(command.get("text", ""))
        work = self.work.get(cmd.name)
        if work is None:
            return
        channel, user = command_refs(command)

        async def text() -> str:
            return escape(await work(cmd, channel, user, client))

        await self.runner.reply_after(f"/trace {cmd.name}", text(), ephemeral(respond), SLACK_ERRORS)

    async def _math(self, cmd: PrepCommand, channel: ChannelRef, user: UserRef, client: Any) -> str:
        started = await self.prep.math.start(channel, kind=cmd.kind)
        return f"Math #{started.id} posted: 30 seconds."

    async def _math_board(self, cmd: PrepCommand, channel: ChannelRef, user: UserRef, client: Any) -> str:
        return await self.prep.math.board_text(channel, cmd.period)

    async def _interview(self, cmd: PrepCommand, channel: ChannelRef, user: UserRef, client: Any) -> str:
        s = await self.prep.interview.start(channel, user, rounds=cmd.rounds)
        return f"Interview #{s.session_id} started: {s.rounds} rounds."

    async def _resume(self, cmd: PrepCommand, channel: ChannelRef, user: UserRef, client: Any) -> str:
        s = await self.prep.interview.resume(user)
        return f"Interview #{s.session_id}: the current round is posted again."

    async def _schedule(self, cmd: PrepCommand, channel: ChannelRef, user: UserRef, client: Any) -> str:
        prep = self.prep
        if not await is_admin(client, user.user):
            return "Only workspace admins can change the schedule."
        if cmd.name == "schedule":
            schedule = await set_schedule(
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
            text = schedule.text()
        else:
            text = (await schedule_off(prep.math.db, channel, cmd.target)).text()
        prep.schedules_changed()
        return text

    async def open_math_modal(self, ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        qid = action_id(body)
        if qid is None:
            return
        user = user_of(body)
        try:
            q = await self.prep.math.question_for(user, qid)
            prompt = f"{q.question} (in {q.unit})"
        except DrillError as exc:
            prompt = str(exc)
        await client.views_open(trigger_id=body["trigger_id"], view=math_modal(qid, channel_id_of(body), prompt))

    async def math_submitted(self, ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        text = text_field(view, MATH_BLOCK, MATH_INPUT)
        try:
            parse_answer(text)
        except UnreadableAnswer as exc:  # said in the modal, so nothing typed is lost
            await ack(response_action="errors", errors={MATH_BLOCK: str(exc)[:150]})
            return
        await ack()
        qid_text, channel_id = metadata(view, 2)
        qid, user = number(qid_text), user_of(body)

        async def reply_text() -> str:
            return escape((await self.prep.math.answer(qid, user, text)).text)

        self.runner.later(f"math answer {qid}", reply_text(), ephemeral_in(client, channel_id, user.user))

    async def open_round_modal(self, ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        sid = action_id(body)
        if sid is not None:
            view = round_modal(sid, channel_id_of(body), message_ts_of(body))
            await client.views_open(trigger_id=body["trigger_id"], view=view)

    async def round_submitted(self, ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        text = text_field(view, ROUND_BLOCK, ROUND_INPUT)
        if not text.strip():
            await ack(response_action="errors", errors={ROUND_BLOCK: "Say your read first."})
            return
        await ack()
        sid_text, channel_id, ts = metadata(view, 3)
        sid, user = number(sid_text), user_of(body)
        channel = ChannelRef(PLATFORM, user.workspace, channel_id)

        async def answer() -> None:
            prep = self.prep
            await prep.interview.answer(sid, user, text, MessageRef(channel, ts) if ts else None)

        reply = ephemeral_in(client, channel_id, user.user)
        self.runner.later(f"interview answer {sid}", answer(), reply, ROUND_ERRORS)

    async def start_from_invite(self, body: dict[str, Any], client: Any) -> None:
        """Lazy: starting an interview draws its first round."""
        rounds_s, _, group_s = action_value(body).partition("|")
        user = user_of(body)
        channel = ChannelRef(PLATFORM, user.workspace, channel_id_of(body))
        rounds = int(rounds_s) if rounds_s.isdigit() else 3
        group_id = int(group_s) if group_s.isdigit() else None

        async def start() -> None:
            prep = self.prep
            await prep.interview.start(channel, user, rounds=rounds, group_id=group_id)

        reply = ephemeral_in(client, channel.channel, user.user)
        await self.runner.reply_after("interview from an invite", start(), reply, SLACK_ERRORS)
