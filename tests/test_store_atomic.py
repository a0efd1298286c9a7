"""The appeal and hint stores on both databases. An operation is one transaction: when it fails after a savepoint
(the one that makes a double click harmless), nothing it wrote stays — on SQLite too, where a savepoint opened
first would otherwise be the outermost transaction and commit on its own. And a regrade scores as the drill did."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from bot.drills.appeals import AppealService
from bot.drills.fake import FakeChat
from bot.drills.hint_service import HintService
from bot.store import appeals as appeal_store
from bot.store import hints as hint_store
from bot.store.db import Database
from bot.store.models import AppealRuling, HintTaken

from .helpers import Clock, channel, engine_for, user
from .test_appeals import MISSED


def _fail(*_: object) -> None:
    raise RuntimeError("the disk filled up")


async def test_a_ruling_that_fails_after_its_row_is_written_leaves_nothing(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    e = engine_for(database, FakeChat(), clock)
    d = await e.start(channel(), signature="straggler", duration_seconds=120)
    clock.advance(20)
    await e.submit(d.id, user("Ana"), MISSED)
    clock.advance(101)
    assert await e.reveal(d.id)
    appeals = AppealService(e)
    info = await appeals.file(d.id, user("Ana"), "the tortoise is the slow rank")
    with monkeypatch.context() as m:
        m.setattr(appeal_store, "remember_phrase", _fail)
        with pytest.raises(RuntimeError):
            await appeals.resolve(
                "slack", "T1", info.appeal_id, accept=True, part="signature", reviewer="rev", remember="tortoise"
            )
    with database.session() as s:
        assert s.scalar(select(func.count()).select_from(AppealRuling)) == 0
    ruling = await appeals.resolve("slack", "T1", info.appeal_id, accept=True, part="signature", reviewer="rev")
    assert ruling.status == "accepted", "the part can still be ruled on"


async def test_a_hint_that_fails_after_its_row_is_written_leaves_nothing(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    e = engine_for(database, FakeChat(), clock)
    d = await e.start(channel(), signature="straggler", duration_seconds=120)
    await e.submit(d.id, user("Ana"), MISSED)
    hints = HintService(e)
    with monkeypatch.context() as m:
        m.setattr(hint_store, "hints_cost", _fail)
        with pytest.raises(RuntimeError):
            await hints.hint(d.id, user("Ana"))
    with database.session() as s:
        assert s.scalar(select(func.count()).select_from(HintTaken)) == 0
    assert (await hints.hint(d.id, user("Ana"))).level == 1, "the level was not used up"


async def test_regrading_an_untimed_drill_adds_no_speed_bonus(database: Database) -> None:
    """The points an appeal or a hint recomputes follow the drill's own rule, as the first scoring did."""
    clock = Clock()
    e = engine_for(database, FakeChat(), clock)
    d = await e.start(channel(), signature="straggler", duration_seconds=120, speed_bonus=False)
    clock.advance(5)
    first = await e.submit(d.id, user("Ana"), MISSED)
    assert first.points == round(100 * first.grade.score), "no timer, no speed bonus"
    clock.advance(200)
    assert await e.reveal(d.id)
    appeals = AppealService(e)
    info = await appeals.file(d.id, user("Ana"), "the tortoise is the slow rank")
    rulings = [
        await appeals.resolve("slack", "T1", info.appeal_id, accept=True, part=p, reviewer="rev")
        for p in ("signature", "measurement", "fix")
    ]
    assert (rulings[-1].score, rulings[-1].points) == (1.0, 100)
