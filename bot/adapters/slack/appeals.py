"""Slack side of hints and appeals: the Hint button, "Appeal this grade" on the private feedback → modal, open
appeals in the reviewer's App Home → ruling modal → the appellant is told by DM.

Kept apart from app.py so the chat-adapter rework (issue 16) merges cleanly: `register_appeals` is the one call.
Everything a person typed is escaped before Slack shows it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from slack_bolt.async_app import AsyncApp

from ...drills.appeals import AppealInfo, AppealService, parts_of
from ...drills.engine import DrillEngine
from ...drills.errors import DrillError
from ...drills.hint_service import HintService
from ...drills.hints import HINT_COSTS
from ...drills.ports import UserRef
from ...drills.synonyms import PARTS
from .blocks import escape

HINT_ACTION = "drill_hint"
APPEAL_ACTION = "appeal_grade"
APPEAL_MODAL = "appeal_modal"
RULE_ACTION = "rule_appeal"
RULING_MODAL = "ruling_modal"
PART_BLOCK, PART_INPUT = "appeal_part", "part"
REASON_BLOCK, REASON_INPUT = "appeal_reason", "reason"
DECISION_BLOCK, DECISION_INPUT = "ruling_decision", "decision"
CREDIT_BLOCK, CREDIT_INPUT = "ruling_credit", "credit"
NOTE_BLOCK, NOTE_INPUT = "ruling_note", "note"
REMEMBER_BLOCK, REMEMBER_INPUT = "ruling_remember", "remember"
PLATFORM = "slack"
PART_LABELS = {"all": "All three parts", "signature": "Signature", "measurement": "Measurement", "fix": "Fix"}

log = logging.getLogger(__name__)
Background = Callable[[Coroutine[Any, Any, Any]], None]
IsAdmin = Callable[[Any, str], Coroutine[Any, Any, bool]]


def hint_button(drill_id: int) -> dict[str, Any]:
    return {
        "type": "button",
        "action_id": HINT_ACTION,
        "value": str(drill_id),
        "text": {"type": "plain_text", "text": f"Hint (−{HINT_COSTS[0]}, then −{HINT_COSTS[1]} pts)"},
    }


def feedback_blocks(drill_id: int, text: str) -> list[dict[str, Any]]:
    return [
        {"type": "section", "text": {"type": "mrkdwn", "text": escape(text)[:2900]}},
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "action_id": APPEAL_ACTION,
                    "value": str(drill_id),
                    "text": {"type": "plain_text", "text": "Appeal this grade"},
                }
            ],
        },
    ]


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
            {
                "type": "input",
                "block_id": PART_BLOCK,
                "label": {"type": "plain_text", "text": "Part"},
                "element": {
                    "type": "static_select",
                    "action_id": PART_INPUT,
                    "initial_option": _option(open_parts[0], PART_LABELS[open_parts[0]]),
                    "options": [_option(p, PART_LABELS[p]) for p in open_parts],
                },
            },
            {
                "type": "input",
                "block_id": DECISION_BLOCK,
                "label": {"type": "plain_text", "text": "Ruling"},
                "element": {
                    "type": "radio_buttons",
                    "action_id": DECISION_INPUT,
                    "options": [_option("accept", "Accept"), _option("reject", "Reject")],
                },
            },
            {
                "type": "input",
                "block_id": CREDIT_BLOCK,
                "optional": True,
                "label": {"type": "plain_text", "text": "Credit if accepted"},
                "element": {
                    "type": "static_select",
                    "action_id": CREDIT_INPUT,
                    "initial_option": _option("1", "1"),
                    "options": [_option(c, c) for c in ("0", "0.5", "1")],
                },
            },
            {
                "type": "input",
                "block_id": NOTE_BLOCK,
                "optional": True,
                "label": {"type": "plain_text", "text": "Note to the appellant"},
                "element": {"type": "plain_text_input", "action_id": NOTE_INPUT, "max_length": 1000},
            },
            {
                "type": "input",
                "block_id": REMEMBER_BLOCK,
                "optional": True,
                "label": {"type": "plain_text", "text": "Remember for this workspace (a short phrase from the reply)"},
                "element": {"type": "plain_text_input", "action_id": REMEMBER_INPUT, "max_length": 60},
            },
        ],
    }


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


def _value(view: dict[str, Any], block: str, action: str) -> Any:
    return (((view.get("state") or {}).get("values") or {}).get(block) or {}).get(action) or {}


HomeSection = Callable[[Any, UserRef], Awaitable[list[dict[str, Any]]]]


def register_appeals(
    app: AsyncApp,
    engine: DrillEngine,
    background: Background,
    is_admin: IsAdmin,
    publish_home: Callable[[UserRef], Awaitable[None]] | None = None,
) -> HomeSection:
    """Hint and appeal listeners; returns the App Home's open-appeals section (the personal home adds it)."""
    hints, appeals = HintService(engine), AppealService(engine)

    async def may_review(client: Any, team: str, user_id: str) -> bool:
        return await appeals.may_review(UserRef(PLATFORM, team, user_id), is_admin=await is_admin(client, user_id))

    def team_of(body: dict[str, Any]) -> str:
        return str((body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id") or "")

    @app.action(HINT_ACTION)
    async def hint(ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        try:
            drill_id = int(body["actions"][0]["value"])
        except (KeyError, ValueError, IndexError):
            return
        user = UserRef(PLATFORM, team_of(body), body["user"]["id"], body["user"].get("name", ""))
        channel = (body.get("channel") or {}).get("id", "")

        async def run() -> None:
            try:
                text = (await hints.hint(drill_id, user)).private_text()
            except DrillError as exc:
                text = str(exc)
            await client.chat_postEphemeral(channel=channel, user=user.user, text=escape(text))

        background(run())

    @app.action(APPEAL_ACTION)
    async def open_appeal(ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        try:
            drill_id = int(body["actions"][0]["value"])
        except (KeyError, ValueError, IndexError):
            return
        channel = (body.get("channel") or {}).get("id", "")
        await client.views_open(trigger_id=body["trigger_id"], view=appeal_modal(drill_id, channel))

    @app.view(APPEAL_MODAL)
    async def appeal_submitted(ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        reason = str(_value(view, REASON_BLOCK, REASON_INPUT).get("value") or "")
        part = str((_value(view, PART_BLOCK, PART_INPUT).get("selected_option") or {}).get("value") or "all")
        drill_part = str(view.get("private_metadata", "")).partition("|")[0]
        user = UserRef(PLATFORM, team_of(body), body["user"]["id"], body["user"].get("name", ""))
        try:  # a few milliseconds of database work: the modal can show the error in place, within 3 s
            drill_id = int(drill_part) if drill_part.isdigit() else 0
            info = await asyncio.wait_for(appeals.file(drill_id, user, reason, part), 2.0)
        except DrillError as exc:  # AppealError included: filing rules, said in the modal
            await ack(response_action="errors", errors={REASON_BLOCK: str(exc)[:150]})
            return
        await ack()
        text = f"Appeal #{info.appeal_id} on drill #{info.drill_id} is open; you will hear the ruling here."
        background(client.chat_postMessage(channel=user.user, text=text))

    @app.action(RULE_ACTION)
    async def open_ruling(ack: Any, body: dict[str, Any], client: Any) -> None:
        await ack()
        team, user_id = team_of(body), body["user"]["id"]
        try:
            appeal_id = int(body["actions"][0]["value"])
        except (KeyError, ValueError, IndexError):
            return
        if not await may_review(client, team, user_id):
            return
        found = [a for a in await appeals.list_appeals(PLATFORM, team) if a.appeal_id == appeal_id]
        if not found:
            return
        ruled = {str(r["part"]) for r in found[0].rulings}
        open_parts = [p for p in parts_of(found[0].part) if p not in ruled]
        if open_parts:
            await client.views_open(trigger_id=body["trigger_id"], view=ruling_modal(found[0], open_parts))

    @app.view(RULING_MODAL)
    async def ruling_submitted(ack: Any, body: dict[str, Any], view: dict[str, Any], client: Any) -> None:
        team, reviewer = team_of(body), body["user"]["id"]
        part = str((_value(view, PART_BLOCK, PART_INPUT).get("selected_option") or {}).get("value") or "")
        decision = str((_value(view, DECISION_BLOCK, DECISION_INPUT).get("selected_option") or {}).get("value") or "")
        credit = str((_value(view, CREDIT_BLOCK, CREDIT_INPUT).get("selected_option") or {}).get("value") or "1")
        note = str(_value(view, NOTE_BLOCK, NOTE_INPUT).get("value") or "")
        remember = _value(view, REMEMBER_BLOCK, REMEMBER_INPUT).get("value") or None
        if decision not in ("accept", "reject") or part not in PARTS:
            await ack(response_action="errors", errors={DECISION_BLOCK: "Choose Accept or Reject."})
            return
        if not await may_review(client, team, reviewer):
            await ack(response_action="errors", errors={DECISION_BLOCK: "Only reviewers rule on appeals."})
            return
        accept = decision == "accept"
        try:
            ruling = await asyncio.wait_for(
                appeals.resolve(
                    PLATFORM,
                    team,
                    int(view.get("private_metadata") or 0),
                    accept=accept,
                    part=part,
                    reviewer=reviewer,
                    credit=float(credit) if accept else None,
                    note=note,
                    remember=remember if accept else None,
                    told=True,
                ),
                2.0,
            )
        except DrillError as exc:
            block = REMEMBER_BLOCK if remember and "phrase" in str(exc).lower() else DECISION_BLOCK
            await ack(response_action="errors", errors={block: str(exc)[:150]})
            return
        await ack()

        async def tell() -> None:
            try:  # a DM: the bot's chat.postMessage to a user id opens the conversation with them
                await client.chat_postMessage(channel=ruling.appellant.user, text=escape(ruling.appellant_text(note)))
            except Exception as exc:  # the ruling stands; the notice sweep tells them later
                log.warning("appeal notification failed: %s", type(exc).__name__)
                await appeals.untold(ruling.appeal_id)
            try:
                if publish_home is not None:
                    await publish_home(UserRef(PLATFORM, team, reviewer))
            except Exception as exc:  # a stale Home tab is cosmetic
                log.warning("App Home refresh failed: %s", type(exc).__name__)

        background(tell())

    async def home_section(client: Any, user: UserRef) -> list[dict[str, Any]]:
        """Open appeals with a Rule button, for reviewers only; nothing for everyone else."""
        if not await may_review(client, user.workspace, user.user):
            return []
        return appeal_home_blocks(await appeals.list_appeals(PLATFORM, user.workspace, "open"), True)

    return home_section
