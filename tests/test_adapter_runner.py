"""The shared adapter runner: work after the ack, a reply for every outcome, errors mapped by one table and
logged, background tasks held and cancelled on close."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.adapters.common.replies import answer_receipt
from bot.adapters.common.runner import SOMETHING_WRONG, ErrorRow, Runner, drill_errors
from bot.drills.errors import DrillError

log = logging.getLogger("test.runner")


class Refused(Exception):
    pass


async def test_the_reply_is_the_works_text_or_the_tables_line(caplog: pytest.LogCaptureFixture) -> None:
    runner = Runner(drill_errors().with_rows(ErrorRow(Refused, lambda exc: f"refused: {exc}")), log)
    said: list[str] = []

    async def reply(text: str) -> None:
        said.append(text)

    async def ok() -> str:
        return "done"

    async def drill_error() -> str:
        raise DrillError("Drill #3 is over.")

    async def refused() -> str:
        raise Refused("no")

    async def broken() -> str:
        raise ZeroDivisionError

    async def silent() -> None:
        return None

    with caplog.at_level(logging.INFO, logger="test.runner"):
        for work in (ok(), drill_error(), refused(), broken(), silent()):
            await runner.reply_after("work", work, reply)
    assert said == ["done", "Drill #3 is over.", "refused: no", SOMETHING_WRONG]
    assert len(caplog.records) == 3, "every error leaves a log line"
    assert caplog.records[-1].exc_info is not None, "the unforeseen one with its traceback"


async def test_a_failed_reply_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    runner = Runner(drill_errors(), log)

    async def reply(text: str) -> None:
        raise ConnectionError

    async def ok() -> str:
        return "done"

    await runner.reply_after("work", ok(), reply)
    assert "the reply failed" in caplog.text


async def test_close_cancels_what_still_runs() -> None:
    runner = Runner(drill_errors(), log)
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    runner.spawn(forever())
    await started.wait()
    await runner.close(grace_seconds=0.05)
    assert cancelled.is_set()


async def test_close_lets_short_work_finish_first() -> None:
    runner = Runner(drill_errors(), log)
    stored = asyncio.Event()

    async def store_an_answer() -> None:
        await asyncio.sleep(0.05)
        stored.set()

    runner.spawn(store_an_answer())
    await runner.close()
    assert stored.is_set(), "an answer acked before shutdown is stored, not cancelled"


async def test_a_background_failure_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    runner = Runner(drill_errors(), log)

    async def boom() -> None:
        raise ValueError("lost")

    task = runner.spawn(boom())
    await asyncio.gather(task, return_exceptions=True)
    await asyncio.sleep(0)
    assert "background task" in caplog.text


class _Grade:
    def feedback(self) -> str:
        return "Signature: ✓"


class _Outcome:
    def __init__(self, status: str, late: bool = False) -> None:
        self.status, self.late, self.grade = status, late, _Grade()

    def private_text(self) -> str:
        return f"{self.status}."


def test_the_answer_receipt() -> None:
    def quote(echo: str) -> str:
        return f" [{echo}]"

    assert answer_receipt(_Outcome("scored"), "it's a straggler", quote) == "scored. [it's a straggler]"
    assert answer_receipt(_Outcome("duplicate"), "same", quote) == "duplicate.", "a duplicate is not echoed"
    assert answer_receipt(_Outcome("late", late=True), "x", quote) == "late. [x]\nSignature: ✓"
    long = answer_receipt(_Outcome("scored"), "y" * 600, quote)
    assert long.endswith("y" * 500 + "…]")
