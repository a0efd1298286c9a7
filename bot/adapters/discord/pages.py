"""Long text as Discord messages: split between lines by discord.py's Paginator, never inside one."""

from __future__ import annotations

from discord.ext.commands import Paginator

MESSAGE_CHARS = 1900  # under Discord's 2,000, with room for a code fence around each page


def pages(text: str, size: int = MESSAGE_CHARS) -> list[str]:
    """`text` in pages of at most `size` characters, broken at line ends; a single line longer than a page is
    cut (Paginator refuses it). Always at least one page, empty for empty text."""
    paginator = Paginator(prefix=None, suffix=None, max_size=size)
    room = size - 2  # Paginator keeps two line separators' worth free on every page
    for line in text.split("\n"):
        for start in range(0, max(len(line), 1), room):
            paginator.add_line(line[start : start + room])
    return paginator.pages or [""]
