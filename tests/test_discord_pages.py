"""Long Discord messages: split between lines by discord.py's Paginator, each page under the limit."""

from __future__ import annotations

from bot.adapters.discord.pages import MESSAGE_CHARS, pages


def test_short_and_empty_text_is_one_page() -> None:
    assert pages("") == [""]
    assert pages("one\ntwo") == ["one\ntwo"]


def test_pages_break_between_lines() -> None:
    lines = [f"rank {i:>3}: 12.5 ms in all-reduce" for i in range(400)]
    parts = pages("\n".join(lines))
    assert len(parts) > 1
    assert all(len(p) <= MESSAGE_CHARS for p in parts)
    assert "\n".join(parts).split("\n") == lines, "no line is cut"


def test_a_line_longer_than_a_page_is_cut() -> None:
    parts = pages("x" * 5000)
    assert all(len(p) <= MESSAGE_CHARS for p in parts)
    assert "".join(parts) == "x" * 5000
