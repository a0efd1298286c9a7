"""Hints: they follow the reading order, point at rows and times in the picture, never name the answer, and cost
points on that person's attempt (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import re

import pytest
from sqlalchemy import func, select

from bot.drills.errors import DrillError
from bot.drills.fake import FakeChat
from bot.drills.hint_service import HintService
from bot.drills.hints import HINT_COSTS, MAX_LEVEL, READING_ORDER, hint_for
from bot.drills.policy import points
from bot.render.rows import layout, window_of
from bot.scenarios.ids import SIGNATURE_IDS
from bot.store.db import Database
from bot.store.models import Attempt, HintTaken

from . import memo
from .giveaways import words_for
from .helpers import Clock, channel, engine_for, user

GOOD = "Rank 2 is a straggler: its compute is longer and everyone waits. Check DCGM clocks; fix the node."


@pytest.mark.parametrize("seed", [1, 7, 23])
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_no_hint_contains_its_signatures_own_words(signature_id: str, seed: int, difficulty: str) -> None:
    drill = memo.scenario(signature_id, seed, difficulty)
    for level in range(1, MAX_LEVEL + 1):
        text = hint_for(drill, level).text.lower()
        leaked = [w for w in words_for(signature_id) if w.lower() in text]
        assert not leaked, f"level {level} hint for {signature_id} says {leaked}: {text}"
        # Nor does it steer by naming any other signature (a hint for a twin must not name the twin).
        others = [w for o in SIGNATURE_IDS for w in words_for(o) if w.lower() in text]
        assert not others, f"level {level} hint for {signature_id} names {others}"


def test_level_one_names_a_reading_step_and_level_two_rows_and_a_time_range_in_the_picture(signature_id: str) -> None:
    scenario = memo.scenario(signature_id, 5, "medium")
    one, two = hint_for(scenario, 1), hint_for(scenario, 2)
    assert (one.level, one.cost, two.level, two.cost) == (1, HINT_COSTS[0], 2, HINT_COSTS[1])
    step = re.search(r"step (\d) \(([^)]+)\)", one.text)
    assert step is not None, one.text
    assert step.group(2) in (*READING_ORDER, "iteration boundary")
    rows_shown = {r.label for r in layout(scenario).rows}
    named = re.match(r"Rows: (.+?)\. Time: ([\d.]+)–([\d.]+) ms on the picture's axis \(of (\d+) ms\)", two.text)
    assert named is not None, two.text
    for row in named.group(1).split(", "):
        assert row in rows_shown, f"{row!r} is not a row of the picture"
    lo, hi = window_of(scenario)
    start, end, span = float(named.group(2)), float(named.group(3)), float(named.group(4))
    assert 0 <= start < end <= (hi - lo) / 1000 + 0.5
    assert abs(span - (hi - lo) / 1000) <= 0.5


async def test_hints_cost_points_once_each_and_the_reveal_marks_the_hinted(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    hints = HintService(e)
    d = await e.start(channel(), signature="straggler", duration_seconds=120)
    first = await hints.hint(d.id, user("Ana"))  # before answering: the cost waits for the answer
    clock.advance(30)
    out = await e.submit(d.id, user("Ana"), GOOD)
    base = points(1.0, d.posted_at, d.deadline, clock(), False)
    assert out.points == base - first.cost
    second = await hints.hint(d.id, user("Ana"))  # after answering: the cost comes off the stored attempt
    assert (first.level, second.level) == (1, 2)
    with pytest.raises(DrillError, match="No more hints"):
        await hints.hint(d.id, user("Ana"))
    await e.submit(d.id, user("Bo"), GOOD)
    with database.session() as s:
        ana = s.scalars(select(Attempt).where(Attempt.points < base - 30)).one()
        assert (ana.points, ana.hint_cost) == (base - sum(HINT_COSTS), sum(HINT_COSTS))
    clock.advance(91)
    with pytest.raises(DrillError, match="is over"):
        await hints.hint(d.id, user("Bo"))
    assert await e.reveal(d.id)
    scores = {line.user: line for line in chat.reveals[0][1].scores}
    assert scores["Ana"].hinted and not scores["Bo"].hinted
    assert scores["Ana"].points == base - 40
    assert scores["Bo"].points > scores["Ana"].points


async def test_concurrent_hint_clicks_never_give_a_level_twice(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    hints = HintService(e)
    d = await e.start(channel(), signature="sync_stall", duration_seconds=300)
    await hints.hint(d.id, user("Ana"))  # create the user row first; the race is on the level
    results = await asyncio.gather(*(hints.hint(d.id, user("Ana")) for _ in range(4)), return_exceptions=True)
    given = [r for r in results if not isinstance(r, BaseException)]
    assert [g.level for g in given] == [2]
    assert all(isinstance(r, DrillError) for r in results if isinstance(r, BaseException))
    with database.session() as s:
        assert s.scalar(select(func.count()).select_from(HintTaken)) == 2


async def test_hints_are_workspace_scoped(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    d = await e.start(channel("T1"), signature="launch_bound", duration_seconds=120)
    with pytest.raises(DrillError, match="No drill"):
        await HintService(e).hint(d.id, user("Eve", ws="T2"))


@pytest.mark.parametrize("signature", SIGNATURE_IDS[:1])
def test_cli_hint_json_shape(signature: str, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import json

    from click.testing import CliRunner

    from bot.cli import main

    monkeypatch.setenv("TRACEDRILL_OUT", str(tmp_path / "pictures"))
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'h.sqlite3'}"}
    runner = CliRunner()
    started = runner.invoke(
        main,
        ["drill", "start", "--channel", "terminal:team", "--signature", signature, "--duration", "600", "--json"],
        env=env,
    )
    drill_id = json.loads(started.stdout)["drill_id"]
    got = runner.invoke(main, ["drill", "hint", str(drill_id), "--user", "ana", "--json"], env=env)
    assert got.exit_code == 0, got.output
    data = json.loads(got.stdout)
    assert set(data) == {"hint", "level", "cost"}
    assert (data["level"], data["cost"]) == (1, HINT_COSTS[0])
    bad = runner.invoke(main, ["drill", "hint", "999", "--user", "ana"], env=env)
    assert bad.exit_code == 1
    assert "No drill #999" in bad.output
    assert "Traceback" not in bad.output


def test_h_in_play_gives_the_hints_and_the_points_pay_for_them(tmp_path, monkeypatch) -> None:  # type: ignore
    from click.testing import CliRunner

    from bot.cli import main

    monkeypatch.setenv("TRACEDRILL_OUT", str(tmp_path / "pictures"))
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'p.sqlite3'}"}
    answer = (
        "Rank 2 is a straggler: the others wait for it in the all-reduce.\n"
        "Check DCGM clocks and throttle reasons on that GPU; fix the node's cooling.\n\n"
    )
    runner = CliRunner()
    plain = runner.invoke(
        main, ["play", "--signature", "straggler", "--seed", "4", "--user", "ana", "--no-timer"], input=answer, env=env
    )
    hinted = runner.invoke(
        main,
        ["play", "--signature", "straggler", "--seed", "4", "--user", "bo", "--no-timer"],
        input="h\n\nH\n\nh\n" + answer,
        env=env,
    )
    assert plain.exit_code == 0, plain.output
    assert hinted.exit_code == 0, hinted.output
    out = hinted.output
    assert "Hint 1 for drill" in out and "Hint 2 for drill" in out
    assert "No more hints" in out
    got = [int(m) for m in re.findall(r"Your grade: 100/100 · (\d+) points", plain.output + out)]
    assert len(got) == 2
    assert got[0] - got[1] == sum(HINT_COSTS), "the hints cost 15 + 25 on an answer worth the same otherwise"
