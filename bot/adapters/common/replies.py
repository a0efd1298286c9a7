"""Texts both chat adapters send, written once: the receipt for an answer, and the reading of a shared trace."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from ...analyze.service import AnalysisResult, analyze_bytes
from ...drills.errors import DrillError

log = logging.getLogger(__name__)
ECHO_CHARS = 500
PREFILL_SECONDS = 1.0  # Slack and Discord want the form within 3 s: a slow lookup skips the pre-fill


class _Feedback(Protocol):
    def feedback(self) -> str: ...


class AnswerOutcome(Protocol):
    """What an answer's receipt needs from the drills layer's submit outcome."""

    @property
    def status(self) -> str: ...
    @property
    def late(self) -> bool: ...
    @property
    def grade(self) -> _Feedback: ...
    def private_text(self) -> str: ...


def answer_receipt(outcome: AnswerOutcome, text: str, quote: Callable[[str], str]) -> str:
    """The private receipt for an answer: what happened, the answer as recorded (clipped, in the platform's
    `quote` markup; a duplicate is not echoed again) and, for a late answer, its feedback at once."""
    reply = outcome.private_text()
    if outcome.status != "duplicate":  # echo what was recorded, so nobody wonders what got through
        reply += quote(text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "…")
    if outcome.late:
        reply += "\n" + outcome.grade.feedback()
    return reply


async def analyze_download(name: str, download: Callable[[], Awaitable[bytes]]) -> AnalysisResult:
    """Fetch a shared trace and read it off the event loop (a bounded worker process does the parsing).
    Raises AnalysisError with one line for the person who shared it."""
    data = await download()
    return await asyncio.to_thread(analyze_bytes, name, data)


async def prefill(last_answer: Awaitable[str | None]) -> str:
    """The person's last answer, to show in a reopened form so they can revise it; blank when there is none or
    when the lookup is slow or refused (the form must open in time either way)."""
    try:
        return await asyncio.wait_for(last_answer, PREFILL_SECONDS) or ""
    except (TimeoutError, DrillError) as exc:
        log.info("answer form opened blank: %s", type(exc).__name__)
        return ""
