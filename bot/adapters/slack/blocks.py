"""Block Kit for drills, the answer modal and reveals. Anything a person typed is escaped before it is quoted,
so `<!channel>` or `<@U123>` in an answer stays inert text."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...cleantext import in_code_block
from ...drills.ports import DrillPost, RevealPost

SUBMIT_ACTION = "submit_diagnosis"
MODAL_CALLBACK = "diagnosis_modal"
ANSWER_BLOCK = "answer_block"
ANSWER_INPUT = "answer_input"
TIMER_BLOCK = "timer"


def escape(text: str) -> str:
    """Slack's own escaping: & < > are the only characters that make markup (and mentions)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def slack_date(when: datetime, fmt: str = "{time}") -> str:
    """A date Slack shows in each viewer's own timezone."""
    ts = int(when.timestamp())
    return f"<!date^{ts}^{fmt}|{when.strftime('%H:%M UTC')}>"


def remaining_text(deadline: datetime, seconds_left: int) -> str:
    if seconds_left <= 0:
        return f"Time is up ({slack_date(deadline)}). The reveal is coming in the thread."
    return f"Answer by {slack_date(deadline)} — {seconds_left // 60}:{seconds_left % 60:02d} left."


def drill_blocks(post: DrillPost, seconds_left: int) -> list[dict[str, Any]]:
    lines = "\n".join(escape(line) for line in post.context_lines)
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": f"Trace drill #{post.drill_id}"}},
        {"type": "section", "text": {"type": "mrkdwn", "text": f"*{escape(post.title)}*\n{lines}"}},
        {"type": "context", "block_id": TIMER_BLOCK,
         "elements": [{"type": "mrkdwn", "text": remaining_text(post.deadline, seconds_left)}]},
    ]
    if post.answer_mode in ("modal", "both"):
        blocks.append({"type": "actions", "elements": [
            {"type": "button", "action_id": SUBMIT_ACTION, "style": "primary", "value": str(post.drill_id),
             "text": {"type": "plain_text", "text": "Submit diagnosis"}}]})
    hint = "Read it in order: step → gaps → overlap → top kernels. Answers stay hidden until the reveal."
    if post.answer_mode in ("thread", "both"):
        hint += " You can also answer in this thread (visible to all)."
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": hint}]})
    return blocks


def answer_modal(drill_id: int, channel_id: str, max_chars: int) -> dict[str, Any]:
    return {
        "type": "modal",
        "callback_id": MODAL_CALLBACK,
        "private_metadata": f"{drill_id}|{channel_id}",
        "title": {"type": "plain_text", "text": f"Drill #{drill_id}"},
        "submit": {"type": "plain_text", "text": "Submit"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [{
            "type": "input", "block_id": ANSWER_BLOCK,
            "label": {"type": "plain_text", "text": "Your diagnosis: signature, confirming measurement, fix"},
            "element": {"type": "plain_text_input", "action_id": ANSWER_INPUT, "multiline": True,
                        "max_length": max_chars,
                        "placeholder": {"type": "plain_text",
                                        "text": "Step is … the gap … so it's … confirm by … fix …"}},
        }],
    }


def reveal_text(post: RevealPost) -> str:
    ranked = "\n".join(f"{i}. {escape(s.user)} — {s.points} pts ({round(100 * s.score)}/100)"
                       for i, s in enumerate(post.scores, start=1)) or "Nobody answered this one."
    return f"*Reveal — {escape(post.headline)}*\n{escape(in_code_block(post.text))}\n*Scores*\n{ranked}"
