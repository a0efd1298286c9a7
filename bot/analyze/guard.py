"""A byte-level guard in front of the JSON parser: caps decompressed size and nesting depth before ijson sees a byte.

A 300-byte gzip of `[[[[…` makes a streaming parser build hundreds of thousands of nested containers (gigabytes in
under a second); a small gzip of repeated text inflates to gigabytes. Both are refused here, chunk by chunk, with
one line a person can act on.
"""

from __future__ import annotations

import re
from typing import IO

import numpy as np

MAX_DEPTH = 64  # a Kineto event nests 3–4 deep (traceEvents → event → args → list)
MAX_STRING = 2**20  # one JSON string longer than this is not a trace (kernel names run to a few kB)


class TraceLimitError(Exception):
    """The input is over a limit; the message is one line."""


# A complete JSON string. Possessive quantifiers: an unterminated string at the end of a chunk must fail in
# linear time, not backtrack through every way of splitting it.
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.S)  # unrolled: ~15% faster than alternation
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_NOT_BRACKETS_OR_QUOTES = bytes(b for b in range(256) if b not in b'[]{}"')
_QUOTE = ord('"')
_OPEN = np.zeros(256, dtype=np.int64)
_OPEN[[ord("["), ord("{")]] = 1
_OPEN[[ord("]"), ord("}")]] = -1


def _outside_strings(buf: bytes) -> tuple[bytes, bytes]:
    """`buf` without its complete JSON strings, and the string it leaves open (from its quote on; empty if none).

    With complete strings gone, a quote left over opens a string that ends in a later chunk: no quote after it is
    unescaped, so nothing after it was removed either, and it is carried over byte for byte."""
    if b"\\" not in buf:
        # No escapes (most chunks of a trace): every quote opens or closes a string, so the text between the
        # 2k-th and (2k+1)-th quote is outside them: what the regex leaves, at a third of its cost.
        parts = buf.split(b'"')
        stripped = b"".join(parts[::2])
        return stripped, (b'"' + parts[-1] if len(parts) % 2 == 0 else b"")
    stripped = _STRING.sub(b"", buf)
    open_at = stripped.find(b'"')
    if open_at < 0:
        return stripped, b""
    return stripped[:open_at], stripped[open_at:]


class GuardedReader:
    """A read-only byte stream that raises TraceLimitError once the data nests deeper than `max_depth` or grows
    past `max_bytes`. The bytes handed on are unchanged; only the scan keeps state across chunks."""

    def __init__(self, raw: IO[bytes], name: str, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> None:
        self._raw = raw
        self._name = name
        self._max_bytes = max_bytes
        self._max_depth = max_depth
        self._seen = 0
        self._depth = 0
        self._carry = b""

    def read(self, size: int = -1) -> bytes:
        want = 2**16 if size is None or size < 0 else size
        chunk = self._raw.read(want)
        self._seen += len(chunk)
        if self._seen > self._max_bytes:
            raise TraceLimitError(
                f"{self._name}: more than {self._max_bytes // 2**20} MB of JSON once decompressed "
                "(trim the profile to a few steps)"
            )
        if chunk:
            self._scan(chunk)
        return chunk

    def _scan(self, chunk: bytes) -> None:
        buf = self._carry + chunk if self._carry else chunk
        if b"\\" in buf:
            stripped, self._carry = _outside_strings(buf)
            steps = _OPEN[np.frombuffer(stripped.translate(None, _NOT_BRACKETS), dtype=np.uint8)]
        else:
            # No escapes (most chunks): every quote opens or closes a string, so brackets and quotes alone tell
            # what is outside strings. Drop every other byte (one C pass), then keep the brackets after an even
            # number of quotes, as _outside_strings would, without building a bytes object per string.
            marks = np.frombuffer(buf.translate(None, _NOT_BRACKETS_OR_QUOTES), dtype=np.uint8)
            quotes = np.cumsum(marks == _QUOTE, dtype=np.int64)
            self._carry = buf[buf.rfind(b'"') :] if quotes.size and quotes[-1] % 2 else b""
            steps = _OPEN[marks[quotes % 2 == 0]]
        if self._carry and len(self._carry) > MAX_STRING:
            raise TraceLimitError(f"{self._name}: a JSON string longer than {MAX_STRING // 2**20} MB; not a trace")
        if not steps.size:
            return
        if self._depth + int(np.count_nonzero(steps > 0)) > self._max_depth:  # only then is the exact peak needed
            peak = self._depth + int(np.cumsum(steps).max())
            if peak > self._max_depth:
                raise TraceLimitError(
                    f"{self._name}: JSON nested deeper than {self._max_depth} levels; not a Chrome / Kineto trace"
                )
        self._depth += int(steps.sum())

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> GuardedReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
