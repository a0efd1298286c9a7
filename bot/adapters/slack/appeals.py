"""Slack side of hints and appeals: the Hint button, "Appeal this grade" on the private feedback → modal, open
appeals in the reviewer's App Home → ruling modal → the appellant is told by DM.

Kept apart from app.py so the chat-adapter rework (issue 16) merges cleanly: `register_appeals` is the one call.
Everything a person typed is escaped before Slack shows it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp

from ...drills.appeals import AppealInfo, AppealService, Ruling, parts_of
from ...drills.engine import Drills
from ...drills.errors import DrillError
from ...drills.hint_service import HintService
from ...drills.ports import UserRef
from ...drills.synonyms import PARTS
from ..common.runner import Runner
from .blocks import APPEAL_ACTION, HINT_ACTION, escape, input_block
from .lazy import ack_only
from .payloads import PLATFORM, action_id, channel_id_of, choice_field, metadata, number, team_of, text_field, user_of
from .replies import SLACK_ERRORS, ephemeral_in, is_admin

APPEAL_MODAL = "appeal_modal"
RULE_ACTION = "rule_appeal"
RULING_MODAL = "ruling_modal"
PART_BLOCK, PART_INPUT = "appeal_part", "part"
REASON_BLOCK, REASON_INPUT = "appeal_reason", "reason"
DECISION_BLOCK, DECISION_INPUT = "ruling_decision", "decision"
CREDIT_BLOCK, CREDIT_INPUT = "ruling_credit", "credit"
NOTE_BLOCK, NOTE_INPUT = "ruling_note", "note"
REMEMBER_BLOCK, REMEMBER_INPUT = "ruling_remember", "remember"
PART_LABELS = {"all": "All three parts", "signature": "Signature", "measurement": "Measurement", "fix": "Fix"}

log = logging.getLogger(__name__)


def _option(value: str, text: str) -> dict[str, Any]:
    return {"text": {"type": "plain_text", "text": text}, "value": value}


def appeal_modal(drill_id: int, channel_id: str) -> dict[str, Any]:
    return {
        "type": "modal",
        "callback_id": APPEAL_MODAL,
        "private_metadata": f"{drill_id}|{channel_id}",
        "title": {"type": "plain_text", "text": f"Appeal drill #{drill_id}"},
        "submit": {"type": "plain_text", "text": "Send appeal"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [
            {
                "type": "input",
                "block_id": PART_BLOCK,
                "label": {"type": "plain_text", "text": "Which part?"},
                "element": {
                    "type": "static_select",
                    "action_id": PART_INPUT,
                    "initial_option": _option("all", PART_LABELS["all"]),
                    "options": [_option(k, v) for k, v in PART_LABELS.items()],
                },
            },
            {
                "type": "input",
                "block_id": REASON_BLOCK,
                "label": {"type": "plain_text", "text": "Why is it wrong?"},
                "element": {
                    "type": "plain_text_input",
                    "action_id": REASON_INPUT,
                    "multiline": True,
                    "max_length": 1000,
                },
            },
        ],
    }


def ruling_modal(info: AppealInfo, open_parts: list[str]) -> dict[str, Any]:
    summary = (
        f"*{escape(info.user)}* on drill #{info.drill_id} ({PART_LABELS[info.part].lower()}): "
        f"{escape(info.reason)}\n>{escape(info.answer[:1500])}\nCredits now: "
        + ", ".join(f"{p} {c:g}" for p, c in info.credits.items())
    )
    return {
        "type": "modal",
        "callback_id": RULING_MODAL,
        "private_metadata": str(info.appeal_id),
        "title": {"type": "plain_text", "text": f"Rule on appeal #{info.appeal_id}"},
        "submit": {"type": "plain_text", "text": "Rule"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": summary[:2900]}},
            *_ruling_inputs(open_parts),
        ],
    }


def _select(action: str, options: list[tuple[str, str]], initial: tuple[str, str]) -> dict[str, Any]:
    return {
        "type": "static_select",
        "action_id": action,
        "initial_option": _option(*initial),
        "options": [_option(value, text) for value, text in options],
    }


def _ruling_inputs(open_parts: list[str]) -> list[dict[str, Any]]:
    parts = [(p, PART_LABELS[p]) for p in open_parts]
    decisions = [_option("accept", "Accept"), _option("reject", "Reject")]
    remember = "Remember for this workspace (a short phrase from the reply)"
    return [
        input_block(PART_BLOCK, "Part", _select(PART_INPUT, parts, parts[0])),
        input_block(
            DECISION_BLOCK, "Ruling", {"type": "radio_buttons", "action_id": DECISION_INPUT, "options": decisions}
        ),
        input_block(
            CREDIT_BLOCK,
            "Credit if accepted",
            _select(CREDIT_INPUT, [(c, c) for c in ("0", "0.5", "1")], ("1", "1")),
            optional=True,
        ),
        input_block(
            NOTE_BLOCK,
            "Note to the appellant",
            {"type": "plain_text_input", "action_id": NOTE_INPUT, "max_length": 1000},
            optional=True,
        ),
        input_block(
            REMEMBER_BLOCK,
            remember,
            {"type": "plain_text_input", "action_id": REMEMBER_INPUT, "max_length": 60},
            optional=True,
        ),
    ]


def appeal_home_blocks(appeals: list[AppealInfo], reviewer: bool) -> list[dict[str, Any]]:
    """The open-appeals section of the App Home, below the personal home."""
    blocks: list[dict[str, Any]] = [{"type": "header", "text": {"type": "plain_text", "text": "Open appeals"}}]
    if not reviewer:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": "Only reviewers see open appeals."}})
    elif not appeals:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": "No open appeals."}})
    for a in appeals[:40] if reviewer else []:  # a Home tab holds at most 100 blocks
        line = (
            f"*#{a.appeal_id}* {escape(a.user)} · drill #{a.drill_id} · {PART_LABELS[a.part].lower()}: "
            f"{escape(a.reason)}"
        )
        blocks.append(
            {
                "type": "section",
                "text": {"type": "mrkdwn", "text": line[:2900]},
                "accessory": {
                    "type": "button",
                    "action_id": RULE_ACTION,
                    "value": str(a.appeal_id),
                    "text": {"type": "plain_text", "text": "Rule"},
                },
            }
        )
    return blocks


HomeSection = Callable[[Any, UserRef], Awaitable[list[dict[str, Any]]]]
PublishHome = Callable[[UserRef], Awaitable[None]]


class AppealListeners:
    """Hint and appeal listeners; `register` returns the App Home's open-appeals section (the home adds it)."""

    def __init__(self, engine: Drills, runner: Runner, publish_home: PublishHome | None = None) -> None:
        self.hints, self.appeals = HintService(engine), AppealService(engine)
        self.runner, self.publish_home = runner, publish_home

    def register(self, app: AsyncApp) -> HomeSection:
        app.action(HINT_ACTION)(ack=ack_only, lazy=[self.hint])
        app.action(APPEAL_ACTION)(self.open_appeal)
        app.view(APPEAL_MODAL)(self.appeal_submitted)
        app.action(RULE_ACTION)(self.open_ruling)
        app.view(RULING_MODAL)(self.ruling_submitted)
        return self.home_section

    async def may_review(self, client: Any, team: str, user_id: str) -> bool:
        return await self.appeals.may_review(UserRef(PLATFORM, team, user_id), is_admin=await is_admin(client, user_id))

    async def hint(self, body: dict[str, Any], client: Any) -> None:
        """Lazy: the hint is drawn from the drill's scenario, which may take a moment."""
        drill_id = action_id(body)
        if drill_id is None:
            return
        user = user_of(body)

        async def hint_text() -> str:
            return escape((await self.hints.hint(drill_id, user)).private_text())

        reply = ephemeral_in(client, channel_id_of(body), user.user)
        await self.runner.reply_after(f"hint for drill {drill_id}", hint_text(), reply, SLACK_ERRORS)

    async def open_appeal(self, ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        drill_id = action_id(body)
        if drill_id is not None:
            await client.views_open(trigger_id=body["trigger_id"], view=appeal_modal(drill_id, channel_id_of(body)))

    async def appeal_submitted(self, ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        reason = text_field(view, REASON_BLOCK, REASON_INPUT)
        part = choice_field(view, PART_BLOCK, PART_INPUT, "all")
        user = user_of(body)
        try:  # a few milliseconds of database work: the modal can show the error in place, within 3 s
            drill_id = number(metadata(view, 1)[0])
            info = await asyncio.wait_for(self.appeals.file(drill_id, user, reason, part), 2.0)
        except DrillError as exc:  # AppealError included: filing rules, said in the modal
            await ack(response_action="errors", errors={REASON_BLOCK: str(exc)[:150]})
            return
        await ack()
        text = f"Appeal #{info.appeal_id} on drill #{info.drill_id} is open; you will hear the ruling here."
        self.runner.detach("the appeal receipt", client.chat_postMessage(channel=user.user, text=text))

    async def open_ruling(self, ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        team, user_id, appeal_id = team_of(body), body["user"]["id"], action_id(body)
        if appeal_id is None or not await self.may_review(client, team, user_id):
            return
        found = [a for a in await self.appeals.list_appeals(PLATFORM, team) if a.appeal_id == appeal_id]
        if not found:
            return
        ruled = {str(r["part"]) for r in found[0].rulings}
        open_parts = [p for p in parts_of(found[0].part) if p not in ruled]
        if open_parts:
            await client.views_open(trigger_id=body["trigger_id"], view=ruling_modal(found[0], open_parts))

    async def ruling_submitted(self, ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        form = ruling_form(view)
        team, reviewer = team_of(body), body["user"]["id"]
        if form.decision not in ("accept", "reject") or form.part not in PARTS:
            await ack(response_action="errors", errors={DECISION_BLOCK: "Choose Accept or Reject."})
            return
        if not await self.may_review(client, team, reviewer):
            await ack(response_action="errors", errors={DECISION_BLOCK: "Only reviewers rule on appeals."})
            return
        try:
            ruling = await asyncio.wait_for(self._resolve(team, reviewer, form), 2.0)
        except DrillError as exc:
            block = REMEMBER_BLOCK if form.remember and "phrase" in str(exc).lower() else DECISION_BLOCK
            await ack(response_action="errors", errors={block: str(exc)[:150]})
            return
        await ack()
        self.runner.spawn(self._tell_ruling(client, ruling, form.note, UserRef(PLATFORM, team, reviewer)))

    async def _resolve(self, team: str, reviewer: str, form: RulingForm) -> Ruling:
        accept, part, note, credit, remember = form.accept, form.part, form.note, form.credit, form.remember
        return await self.appeals.resolve(
            PLATFORM,
            team,
            form.appeal_id,
            accept=accept,
            part=part,
            reviewer=reviewer,
            credit=float(credit) if accept else None,
            note=note,
            remember=remember if accept else None,
            told=True,
        )

    async def _tell_ruling(self, client: Any, ruling: Ruling, note: str, reviewer: UserRef) -> None:
        try:  # a DM: the bot's chat.postMessage to a user id opens the conversation with them
            await client.chat_postMessage(channel=ruling.appellant.user, text=escape(ruling.appellant_text(note)))
        except Exception as exc:  # the ruling stands; the notice sweep tells them later
            log.warning("appeal notification failed: %s", type(exc).__name__)
            await self.appeals.untold(ruling.appeal_id)
        if self.publish_home is not None:  # a stale Home tab is cosmetic
            await self.runner.quietly("App Home refresh", self.publish_home(reviewer))

    async def home_section(self, client: Any, user: UserRef) -> list[dict[str, Any]]:
        """Open appeals with a Rule button, for reviewers only; nothing for everyone else."""
        if not await self.may_review(client, user.workspace, user.user):
            return []
        return appeal_home_blocks(await self.appeals.list_appeals(PLATFORM, user.workspace, "open"), True)


@dataclass(frozen=True, slots=True)
class RulingForm:
    """The ruling modal's answers."""

    appeal_id: int
    part: str
    decision: str
    credit: str
    note: str
    remember: str | None

    @property
    def accept(self) -> bool:
        return self.decision == "accept"


def ruling_form(view: dict[str, Any]) -> RulingForm:
    return RulingForm(
        appeal_id=number(metadata(view, 1)[0]),
        part=choice_field(view, PART_BLOCK, PART_INPUT),
        decision=choice_field(view, DECISION_BLOCK, DECISION_INPUT),
        credit=choice_field(view, CREDIT_BLOCK, CREDIT_INPUT, "1"),
        note=text_field(view, NOTE_BLOCK, NOTE_INPUT),
        remember=text_field(view, REMEMBER_BLOCK, REMEMBER_INPUT) or None,
    )
