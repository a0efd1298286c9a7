"""The App Home tab and the `/trace config` modal: Block Kit built from the platform-free Home and
ChannelSettings, within Slack's limits (100 blocks, 3,000 characters a section)."""

from __future__ import annotations

from typing import Any

from ...drills.channel_config import ANSWER_MODES, ChannelSettings
from ...drills.home import Home
from ...scenarios.ids import DIFFICULTIES, SIGNATURE_IDS
from .blocks import clip, escape, image_block, input_block

CONFIG_CALLBACK = "trace_config"
MODE_LABELS = {
    "modal": "Form only — answers hidden until the reveal",
    "thread": "Thread replies (public)",
    "both": "Form or thread replies",
}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(text)}}


def home_view(home: Home, chart_file_id: str | None, default_seconds: int) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "header", "text": {"type": "plain_text", "text": "Your tracedrill"}}]
    st = home.stats
    if st is None:
        blocks.append(
            _section(
                "No answers from you yet. Press *Submit diagnosis* under a drill, or start one with "
                "`/trace` in a channel."
            )
        )
        return {"type": "home", "blocks": blocks}
    blocks.append(
        _section(
            f"*{st.answers}* answers · *{st.total_points}* points · mean "
            f"*{round(100 * st.mean_score)}*/100 · streak *{st.streak}* (best {st.best_streak})"
        )
    )
    if st.weakest:
        blocks.append(_section("*Weakest signatures:* " + ", ".join(f"`{w}`" for w in st.weakest)))
    blocks += image_block(chart_file_id, "Your mean score per week for each signature")
    if home.answers:
        blocks.append({"type": "divider"})
        blocks.append(_section("*Your last answers*"))
    for a in home.answers:
        if a.revealed:
            head = (
                f"*Drill #{a.drill_id}*{' (late)' if a.late else ''} — `{a.signature}`: "
                f"{round(100 * (a.score or 0))}/100, {a.points} pts"
            )
        else:
            head = f"*Drill #{a.drill_id}* — awaiting the reveal"
        wrote = " ".join(a.answer.split())
        blocks.append(_section(f"{head}\n>{escape(clip(wrote, 600))}\n```{escape(a.feedback)}```"))
    if home.settings is not None:
        blocks.append({"type": "divider"})
        blocks.append(
            {
                "type": "context",
                "elements": [
                    {
                        "type": "mrkdwn",
                        "text": clip(
                            f"Settings in #{escape(home.channel_name)}: "
                            f"{escape(home.settings.summary(default_seconds))}"
                        ),
                    }
                ],
            }
        )
    return {"type": "home", "blocks": blocks[:100]}


def _option(value: str, text: str) -> dict[str, Any]:
    return {"text": {"type": "plain_text", "text": text[:75]}, "value": value}


def config_modal(channel_id: str, current: ChannelSettings, default_seconds: int) -> dict[str, Any]:
    return {
        "type": "modal",
        "callback_id": CONFIG_CALLBACK,
        "private_metadata": channel_id,
        "title": {"type": "plain_text", "text": "Channel settings"},
        "submit": {"type": "plain_text", "text": "Save"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": _config_inputs(current, default_seconds),
    }


def _select(options: list[dict[str, Any]], initial: dict[str, Any]) -> dict[str, Any]:
    return {"type": "static_select", "action_id": "value", "options": options, "initial_option": initial}


def _config_inputs(current: ChannelSettings, default_seconds: int) -> list[dict[str, Any]]:
    modes = [_option(m, MODE_LABELS[m]) for m in ANSWER_MODES]
    seconds = {
        "type": "number_input",
        "action_id": "value",
        "is_decimal_allowed": False,
        "min_value": "30",
        "max_value": str(24 * 3600),
        "initial_value": str(current.answer_seconds or default_seconds),
    }
    signatures: dict[str, Any] = {
        "type": "multi_static_select",
        "action_id": "value",
        "options": [_option(s, s) for s in SIGNATURE_IDS],
        "placeholder": {"type": "plain_text", "text": "All ten"},
    }
    if current.signature_mix:
        signatures["initial_options"] = [_option(s, s) for s in current.signature_mix]
    schedule = {
        "type": "plain_text_input",
        "action_id": "value",
        "max_length": 80,
        "initial_value": current.schedule_text(),
    }
    difficulty = _select([_option(d, d) for d in DIFFICULTIES], _option(current.difficulty, current.difficulty))
    return [
        input_block(
            "answer_mode",
            "How people answer",
            _select(modes, _option(current.answer_mode, MODE_LABELS[current.answer_mode])),
        ),
        input_block("answer_seconds", "Answer time (seconds)", seconds),
        input_block("difficulty", "Difficulty", difficulty),
        input_block("signatures", "Signature mix (empty: all ten)", signatures, optional=True),
        input_block("schedule", "Daily drill (e.g. weekdays 09:30 Europe/Berlin, or off)", schedule, optional=True),
    ]


def config_values(view: dict[str, Any]) -> dict[str, Any]:
    """The submitted config modal's values, by block id (missing or empty ones are None)."""
    values = (view.get("state") or {}).get("values") or {}
    out: dict[str, Any] = {}
    for block, fields in values.items():
        v = (fields or {}).get("value") or {}
        if v.get("type") == "static_select":
            out[block] = (v.get("selected_option") or {}).get("value")
        elif v.get("type") == "multi_static_select":
            out[block] = [o.get("value") for o in v.get("selected_options") or []]
        else:
            out[block] = v.get("value")
    return out
