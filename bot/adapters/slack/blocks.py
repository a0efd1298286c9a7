"""Block Kit for drills (with their Submit and Hint buttons), the answer modal, reveals and the private feedback
(with its "Appeal this grade" button). Anything a person typed is escaped before it is quoted,
so `<!channel>` or `<@U123>` in an answer stays inert text."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...cleantext import in_code_block
from ...drills.hints import HINT_COSTS
from ...drills.ports import DrillPost, RevealPost

SUBMIT_ACTION = "submit_diagnosis"
MODAL_CALLBACK = "diagnosis_modal"
ANSWER_BLOCK = "answer_block"
ANSWER_INPUT = "answer_input"
TIMER_BLOCK = "timer"
HINT_ACTION = "drill_hint"
APPEAL_ACTION = "appeal_grade"  # "Appeal this grade" under the private feedback


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


SECTION_LIMIT = 3000  # Block Kit: characters in a section's text
MAX_MESSAGE_BLOCKS = 50


def image_block(file_id: str | None, alt: str) -> list[dict[str, Any]]:
    """The picture inside the message itself: a file uploaded without a channel, referenced by id."""
    if not file_id:
        return []
    return [{"type": "image", "slack_file": {"id": file_id}, "alt_text": alt[:2000] or "trace picture"}]


def drill_alt_text(post: DrillPost) -> str:
    return f"Nsight-style timeline: {post.title}"[:300]


def _head(post: DrillPost) -> list[dict[str, Any]]:
    lines = "\n".join(escape(line) for line in post.context_lines)
    return [
        {"type": "header", "text": {"type": "plain_text", "text": f"Trace drill #{post.drill_id}"}},
        {"type": "section", "text": {"type": "mrkdwn", "text": clip(f"*{escape(post.title)}*\n{lines}")}},
    ]


def clip(text: str, limit: int = SECTION_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def drill_blocks(post: DrillPost, seconds_left: int, file_id: str | None = None) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [
        *_head(post),
        *image_block(file_id, drill_alt_text(post)),
        {
            "type": "context",
            "block_id": TIMER_BLOCK,
            "elements": [{"type": "mrkdwn", "text": remaining_text(post.deadline, seconds_left)}],
        },
    ]
    buttons = [hint_button(post.drill_id)]
    if post.answer_mode in ("modal", "both"):
        buttons.insert(
            0,
            {
                "type": "button",
                "action_id": SUBMIT_ACTION,
                "style": "primary",
                "value": str(post.drill_id),
                "text": {"type": "plain_text", "text": "Submit diagnosis"},
            },
        )
    blocks.append({"type": "actions", "elements": buttons})
    hint = "Read it in order: step → gaps → overlap → top kernels. Answers stay hidden until the reveal."
    if post.answer_mode in ("thread", "both"):
        hint += " You can also answer in this thread (visible to all)."
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": hint}]})
    return blocks


def closed_drill_blocks(post: DrillPost, reveal: RevealPost, file_id: str | None) -> list[dict[str, Any]]:
    """The drill message after its reveal: same picture, the headline, how many answered, no button."""
    return [
        *_head(post),
        *image_block(file_id, drill_alt_text(post)),
        {"type": "section", "text": {"type": "mrkdwn", "text": closed_text(reveal)}},
    ]


def closed_text(reveal: RevealPost) -> str:
    answers = len(reveal.scores)
    return clip(
        f"*Revealed:* {escape(reveal.headline)}\n{answers} answer{'s' if answers != 1 else ''} · see the "
        "thread for the annotated picture, the reading and the scores."
    )


def headline_text(reveal: RevealPost) -> str:
    """The one line broadcast to the channel from the reveal thread."""
    top = reveal.scores[0] if reveal.scores else None
    best = f" Top: {escape(top.user)} ({top.points} pts)." if top else " Nobody answered."
    return f"Drill #{reveal.drill_id} revealed — *{escape(reveal.headline)}*. {len(reveal.scores)} answered.{best}"


def _sections(text: str, wrap: str = "") -> list[dict[str, Any]]:
    """Long text as several sections, split at line ends so each stays within Block Kit's 3,000 characters."""
    room = SECTION_LIMIT - 2 * len(wrap) - 2
    out: list[str] = []
    current = ""
    for line in text.splitlines():
        while len(line) > room:
            if current:
                out.append(current)
                current = ""
            out.append(line[:room])
            line = line[room:]
        if len(current) + len(line) + 1 > room:
            out.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current:
        out.append(current)
    return [{"type": "section", "text": {"type": "mrkdwn", "text": f"{wrap}{chunk}{wrap}"}} for chunk in out]


def reveal_blocks(post: RevealPost, file_id: str | None) -> list[dict[str, Any]]:
    ranked = (
        "\n".join(
            f"{i}. {escape(s.user)} — {s.points} pts ({round(100 * s.score)}/100)"
            for i, s in enumerate(post.scores, start=1)
        )
        or "Nobody answered this one."
    )
    blocks = [
        {"type": "section", "text": {"type": "mrkdwn", "text": clip(f"*Reveal — {escape(post.headline)}*")}},
        *image_block(file_id, f"Annotated reveal: {post.title}"),
        *_sections(escape(post.text), "```"),
        *_sections("*Scores*\n" + ranked),
    ]
    if len(blocks) > MAX_MESSAGE_BLOCKS:  # a huge board: keep the head of it, say how much is left out
        kept = blocks[: MAX_MESSAGE_BLOCKS - 1]
        blocks = [
            *kept,
            {
                "type": "context",
                "elements": [
                    {"type": "mrkdwn", "text": f"… {len(post.scores)} answers in all; see `/trace leaderboard`."}
                ],
            },
        ]
    return blocks


def answer_modal(drill_id: int, channel_id: str, max_chars: int, previous: str = "") -> dict[str, Any]:
    element: dict[str, Any] = {
        "type": "plain_text_input",
        "action_id": ANSWER_INPUT,
        "multiline": True,
        "max_length": max_chars,
        "placeholder": {"type": "plain_text", "text": "Step is … the gap … so it's … confirm by … fix …"},
    }
    if previous:
        element["initial_value"] = previous[:max_chars]  # reopening shows your last answer to revise
    return {
        "type": "modal",
        "callback_id": MODAL_CALLBACK,
        "private_metadata": f"{drill_id}|{channel_id}",
        "title": {"type": "plain_text", "text": f"Drill #{drill_id}"},
        "submit": {"type": "plain_text", "text": "Submit"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [
            {
                "type": "input",
                "block_id": ANSWER_BLOCK,
                "label": {"type": "plain_text", "text": "Your diagnosis: signature, confirming measurement, fix"},
                "element": element,
            }
        ],
    }


def receipt_view(drill_id: int, text: str) -> dict[str, Any]:
    """What the modal turns into on submit: your answer, echoed, so you see exactly what was sent."""
    return {
        "type": "modal",
        "title": {"type": "plain_text", "text": f"Drill #{drill_id}"},
        "close": {"type": "plain_text", "text": "Done"},
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": "*Your answer was sent:*"}},
            *_sections(escape(text), "```")[:10],
            {
                "type": "context",
                "elements": [
                    {
                        "type": "mrkdwn",
                        "text": "A confirmation follows by direct message; your per-part feedback arrives there "
                        "and in the "
                        "tracedrill Home tab after the reveal. Press the button again to revise.",
                    }
                ],
            },
        ],
    }


def reveal_text(post: RevealPost) -> str:
    ranked = (
        "\n".join(
            f"{i}. {escape(s.user)} — {s.points} pts ({round(100 * s.score)}/100)" + (" · hinted" if s.hinted else "")
            for i, s in enumerate(post.scores, start=1)
        )
        or "Nobody answered this one."
    )
    return f"*Reveal — {escape(post.headline)}*\n{escape(in_code_block(post.text))}\n*Scores*\n{ranked}"


def input_block(block: str, label: str, element: dict[str, Any], *, optional: bool = False) -> dict[str, Any]:
    """A modal's input block; `optional` ones may be left empty."""
    out = {"type": "input", "block_id": block, "label": {"type": "plain_text", "text": label}, "element": element}
    return out | {"optional": True} if optional else out


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
