"""Block Kit checked against Slack's published limits (api.slack.com/reference/block-kit): the fake Slack API
answers `invalid_blocks` / `invalid_arguments` for what the real one would refuse."""

from __future__ import annotations

from typing import Any

MAX_BLOCKS = {"message": 50, "modal": 100, "home": 100}
TEXT_LIMITS = {"header": 150, "section": 3000}


def _text(obj: Any, limit: int, where: str) -> str | None:
    if not isinstance(obj, dict) or obj.get("type") not in ("plain_text", "mrkdwn"):
        return f"{where}: not a text object"
    text = obj.get("text")
    if not isinstance(text, str) or not text:
        return f"{where}: empty text"
    if len(text) > limit:
        return f"{where}: {len(text)} characters, limit {limit}"
    return None


def _element(el: dict[str, Any], where: str) -> str | None:
    kind = el.get("type")
    if len(str(el.get("action_id", ""))) > 255:
        return f"{where}: action_id over 255"
    if kind == "button":
        if el.get("url") is None and len(str(el.get("value", ""))) > 2000:
            return f"{where}: button value over 2000"
        return _text(el.get("text"), 75, f"{where}.text")
    if kind == "plain_text_input":
        max_len = el.get("max_length", 3000)
        if not isinstance(max_len, int) or not 1 <= max_len <= 3000:
            return f"{where}: max_length {max_len} outside 1..3000"
        if len(str(el.get("initial_value", ""))) > max_len:
            return f"{where}: initial_value longer than max_length"
        return None
    if kind in ("static_select", "multi_static_select", "radio_buttons", "checkboxes"):
        options = el.get("options") or []
        most = 100 if kind.endswith("select") else 10  # radio buttons and checkboxes take at most 10
        if not 1 <= len(options) <= most:
            return f"{where}: {len(options)} options, 1..{most} allowed"
        for i, opt in enumerate(
            options
            + ([el["initial_option"]] if el.get("initial_option") else [])
            + list(el.get("initial_options") or [])
        ):
            err = _text(opt.get("text"), 75, f"{where}.options[{i}]")
            if err or len(str(opt.get("value", ""))) > 150:
                return err or f"{where}.options[{i}]: value over 150"
        return None
    if kind == "number_input":
        return None
    if kind in ("mrkdwn", "plain_text"):
        return _text(el, 3000, where)
    if kind == "image":
        return _image(el, where)
    return f"{where}: unknown element type {kind!r}"


def _image(block: dict[str, Any], where: str) -> str | None:
    if (block.get("image_url") is None) == (block.get("slack_file") is None):
        return f"{where}: exactly one of image_url and slack_file"
    sf = block.get("slack_file")
    if sf is not None and not (isinstance(sf, dict) and (sf.get("id") or sf.get("url"))):
        return f"{where}: slack_file needs an id or url"
    alt = block.get("alt_text")
    if not isinstance(alt, str) or not alt or len(alt) > 2000:
        return f"{where}: alt_text must be 1..2000 characters"
    return None


def check_blocks(blocks: Any, surface: str = "message") -> str | None:
    """None when Slack would accept these blocks on this surface, else why not."""
    if not isinstance(blocks, list):
        return "blocks is not a list"
    if len(blocks) > MAX_BLOCKS[surface]:
        return f"{len(blocks)} blocks, limit {MAX_BLOCKS[surface]} on a {surface}"
    for i, b in enumerate(blocks):
        where = f"blocks[{i}]"
        kind = b.get("type")
        if len(str(b.get("block_id", ""))) > 255:
            return f"{where}: block_id over 255"
        if kind in TEXT_LIMITS:
            err = _text(b.get("text"), TEXT_LIMITS[kind], f"{where}.text")
            if kind == "header" and not err and b["text"]["type"] != "plain_text":
                err = f"{where}: header text must be plain_text"
            if err:
                return err
            fields = b.get("fields") or []
            if len(fields) > 10:
                return f"{where}: {len(fields)} fields, limit 10"
            for j, f in enumerate(fields):
                if err := _text(f, 2000, f"{where}.fields[{j}]"):
                    return err
        elif kind == "context":
            elements = b.get("elements") or []
            if not 1 <= len(elements) <= 10:
                return f"{where}: {len(elements)} context elements, 1..10 allowed"
            for j, el in enumerate(elements):
                if err := _element(el, f"{where}.elements[{j}]"):
                    return err
        elif kind == "actions":
            elements = b.get("elements") or []
            if not 1 <= len(elements) <= 25:
                return f"{where}: {len(elements)} actions, 1..25 allowed"
            for j, el in enumerate(elements):
                if err := _element(el, f"{where}.elements[{j}]"):
                    return err
        elif kind == "image":
            if err := _image(b, where):
                return err
        elif kind == "input":
            if surface == "message":
                return f"{where}: input blocks only in modals and App Home"
            if err := _text(b.get("label"), 2000, f"{where}.label") or _element(
                b.get("element") or {}, f"{where}.element"
            ):
                return err
        elif kind == "divider":
            continue
        else:
            return f"{where}: unknown block type {kind!r}"
    return None


def check_view(view: Any, surface: str) -> str | None:
    if not isinstance(view, dict) or view.get("type") != surface:
        return f"view type must be {surface}"
    if surface == "modal":
        for key in ("title", "submit", "close"):
            if key in view and (err := _text(view[key], 24, key)):
                return err
        if "title" not in view:
            return "a modal needs a title"
    if len(str(view.get("private_metadata", ""))) > 3000:
        return "private_metadata over 3000"
    if len(str(view.get("callback_id", ""))) > 255:
        return "callback_id over 255"
    return check_blocks(view.get("blocks"), surface)
