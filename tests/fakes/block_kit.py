"""Block Kit checked against Slack's published limits (api.slack.com/reference/block-kit): the fake Slack API
answers `invalid_blocks` / `invalid_arguments` for what the real one would refuse."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX_BLOCKS = {"message": 50, "modal": 100, "home": 100}
TEXT_LIMITS = {"header": 150, "section": 3000}

ElementCheck = Callable[[dict[str, Any], str], str | None]
BlockCheck = Callable[[dict[str, Any], str, str], str | None]  # (block, where, surface)


def _text(obj: Any, limit: int, where: str) -> str | None:
    if not isinstance(obj, dict) or obj.get("type") not in ("plain_text", "mrkdwn"):
        return f"{where}: not a text object"
    text = obj.get("text")
    if not isinstance(text, str) or not text:
        return f"{where}: empty text"
    if len(text) > limit:
        return f"{where}: {len(text)} characters, limit {limit}"
    return None


def _button(el: dict[str, Any], where: str) -> str | None:
    if el.get("url") is None and len(str(el.get("value", ""))) > 2000:
        return f"{where}: button value over 2000"
    return _text(el.get("text"), 75, f"{where}.text")


def _text_input(el: dict[str, Any], where: str) -> str | None:
    max_len = el.get("max_length", 3000)
    if not isinstance(max_len, int) or not 1 <= max_len <= 3000:
        return f"{where}: max_length {max_len} outside 1..3000"
    if len(str(el.get("initial_value", ""))) > max_len:
        return f"{where}: initial_value longer than max_length"
    return None


def _choices(el: dict[str, Any], where: str) -> str | None:
    """Selects, radio buttons and checkboxes: their options and initial options."""
    options = el.get("options") or []
    most = 100 if el["type"].endswith("select") else 10  # radio buttons and checkboxes take at most 10
    if not 1 <= len(options) <= most:
        return f"{where}: {len(options)} options, 1..{most} allowed"
    for i, opt in enumerate(
        options + ([el["initial_option"]] if el.get("initial_option") else []) + list(el.get("initial_options") or [])
    ):
        err = _text(opt.get("text"), 75, f"{where}.options[{i}]")
        if err or len(str(opt.get("value", ""))) > 150:
            return err or f"{where}.options[{i}]: value over 150"
    return None


def _unchecked(el: dict[str, Any], where: str) -> str | None:
    """Element types the fake takes as they come."""
    return None


def _text_element(el: dict[str, Any], where: str) -> str | None:
    return _text(el, 3000, where)


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


ELEMENT_CHECKS: dict[str, ElementCheck] = {
    "button": _button,
    "plain_text_input": _text_input,
    "static_select": _choices,
    "multi_static_select": _choices,
    "radio_buttons": _choices,
    "checkboxes": _choices,
    "number_input": _unchecked,
    "mrkdwn": _text_element,
    "plain_text": _text_element,
    "image": _image,
}


def _element(el: dict[str, Any], where: str) -> str | None:
    if len(str(el.get("action_id", ""))) > 255:
        return f"{where}: action_id over 255"
    kind = el.get("type")
    check = ELEMENT_CHECKS.get(kind) if isinstance(kind, str) else None
    if check is None:
        return f"{where}: unknown element type {kind!r}"
    return check(el, where)


def _text_block(block: dict[str, Any], where: str, surface: str) -> str | None:
    """Headers and sections: their text, and a section's fields."""
    err = _text(block.get("text"), TEXT_LIMITS[block["type"]], f"{where}.text")
    if block["type"] == "header" and not err and block["text"]["type"] != "plain_text":
        err = f"{where}: header text must be plain_text"
    if err:
        return err
    fields = block.get("fields") or []
    if len(fields) > 10:
        return f"{where}: {len(fields)} fields, limit 10"
    for j, f in enumerate(fields):
        if err := _text(f, 2000, f"{where}.fields[{j}]"):
            return err
    return None


def _elements(block: dict[str, Any], where: str, most: int, noun: str) -> str | None:
    elements = block.get("elements") or []
    if not 1 <= len(elements) <= most:
        return f"{where}: {len(elements)} {noun}, 1..{most} allowed"
    for j, el in enumerate(elements):
        if err := _element(el, f"{where}.elements[{j}]"):
            return err
    return None


def _context(block: dict[str, Any], where: str, surface: str) -> str | None:
    return _elements(block, where, 10, "context elements")


def _actions(block: dict[str, Any], where: str, surface: str) -> str | None:
    return _elements(block, where, 25, "actions")


def _image_block(block: dict[str, Any], where: str, surface: str) -> str | None:
    return _image(block, where)


def _input(block: dict[str, Any], where: str, surface: str) -> str | None:
    if surface == "message":
        return f"{where}: input blocks only in modals and App Home"
    return _text(block.get("label"), 2000, f"{where}.label") or _element(block.get("element") or {}, f"{where}.element")


def _divider(block: dict[str, Any], where: str, surface: str) -> str | None:
    return None


BLOCK_CHECKS: dict[str, BlockCheck] = {
    "header": _text_block,
    "section": _text_block,
    "context": _context,
    "actions": _actions,
    "image": _image_block,
    "input": _input,
    "divider": _divider,
}


def _block(block: dict[str, Any], where: str, surface: str) -> str | None:
    if len(str(block.get("block_id", ""))) > 255:
        return f"{where}: block_id over 255"
    kind = block.get("type")
    check = BLOCK_CHECKS.get(kind) if isinstance(kind, str) else None
    if check is None:
        return f"{where}: unknown block type {kind!r}"
    return check(block, where, surface)


def check_blocks(blocks: Any, surface: str = "message") -> str | None:
    """None when Slack would accept these blocks on this surface, else why not."""
    if not isinstance(blocks, list):
        return "blocks is not a list"
    if len(blocks) > MAX_BLOCKS[surface]:
        return f"{len(blocks)} blocks, limit {MAX_BLOCKS[surface]} on a {surface}"
    for i, block in enumerate(blocks):
        if err := _block(block, f"blocks[{i}]", surface):
            return err
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
