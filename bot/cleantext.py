"""Text from outside (argv, stdin, chat payloads) made safe to grade, store and show.

Invalid UTF-8 arrives as lone surrogates (Python's surrogateescape for argv and stdin); PostgreSQL refuses NUL in
text columns forever; terminal control sequences and bidi overrides in a display name rewrite what others see.
"""

from __future__ import annotations

import re

NAME_CHARS = 200  # the display-name columns

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # keeps \t \n \r
_NAME_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]+")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def valid_unicode(text: str | bytes) -> str:
    """Invalid UTF-8 (raw bytes, or the surrogates Python decoded it to) as U+FFFD."""
    if isinstance(text, bytes):
        return text.decode("utf-8", "replace")
    if not _SURROGATE.search(text):
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # surrogates that were never bytes (e.g. a JSON \\ud800)
        return _SURROGATE.sub("\ufffd", text)


def clean_text(text: str | bytes) -> str:
    """Free text (an answer): valid Unicode, line breaks as \\n, no NUL or other control characters."""
    text = valid_unicode(text).replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text)


def clean_name(text: str | bytes, limit: int = NAME_CHARS) -> str:
    """A display name: one line, no control or direction-override characters, at most `limit` characters."""
    text = _NAME_CONTROL.sub("", valid_unicode(text))
    return " ".join(text.split())[:limit].rstrip()  # tabs and line breaks become single spaces


def trace_label(text: str, limit: int = 1000) -> str:
    """A name read from an uploaded trace (kernel, thread, device, file): no backticks, so it can never close
    the code block it is shown in, and no control characters; long C++ names cut to `limit`."""
    text = _NAME_CONTROL.sub("", valid_unicode(text)).replace("`", "'")
    return re.sub(r"[\t\n\v\f\r]+", " ", text)[:limit]  # one line


def in_code_block(text: str) -> str:
    """Text for a chat code block (``` … ```): backticks become quotes, so nothing inside can end the block
    and turn the rest into markdown (links, mentions, headings) in a public message."""
    return "```\n" + _CONTROL.sub("", text).replace("`", "'") + "\n```"
