"""Game integrity: nothing of a drill's scoring shows before its reveal, and a stray empty revision loses nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from bot.cli import main
from bot.drills.errors import EmptyRevision
from bot.drills.fake import FakeChat
from bot.drills.leaderboard import leaderboard
from bot.store.db import Database
from bot.store.models import Attempt

from .helpers import Clock, channel, engine_for, user

GOOD = "Rank 2 is a straggler: the others wait in the all-reduce. Check its clocks with DCGM; fix the node's cooling."


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("TRACEDRILL_OUT", str(tmp_path / "pictures"))
    return {"DATABASE_URL": f"sqlite:///{tmp_path / 'team.sqlite3'}"}


def test_nothing_of_a_drill_shows_before_its_reveal(env: dict[str, str], tmp_path: Path) -> None:
    run = CliRunner().invoke
    started = run(
        main,
        ["drill", "start", "--channel", "terminal:team", "--signature", "straggler", "--seed", "4", "--json"],
        env=env,
    )
    drill_id = json.loads(started.stdout)["drill_id"]
    answered = run(main, ["drill", "answer", str(drill_id), "--user", "ana", "--text", GOOD, "--json"], env=env)
    data = json.loads(answered.stdout)
    assert set(data) == {"drill_id", "user", "status", "late", "points"}, "the JSON keys are unchanged"
    assert data["status"] == "scored" and data["points"] is None
    human = run(main, ["drill", "answer", str(drill_id), "--user", "bo", "--text", GOOD], env=env)
    assert human.output.startswith("Recorded.") and "pts" not in human.output and "points" not in human.output
    for board_args in (
        ["leaderboard", "--period", "all", "--json"],
        ["leaderboard", "--channel", "terminal:team", "--period", "all", "--json"],
    ):
        assert json.loads(run(main, board_args, env=env).stdout) == [], board_args
    stats = json.loads(run(main, ["stats", "--user", "ana", "--json"], env=env).stdout)
    assert stats["answers"] == 0, "stats would tell the signature and the score"

    with sqlite3.connect(tmp_path / "team.sqlite3") as conn:  # the deadline passes
        conn.execute("UPDATE drills SET deadline_at = '2020-01-01 00:00:00.000000'")
    assert run(main, ["drill", "reveal-due"], env=env).exit_code == 0
    board = json.loads(
        run(main, ["leaderboard", "--channel", "terminal:team", "--period", "all", "--json"], env=env).stdout
    )
    assert {r["user"] for r in board} == {"ana", "bo"} and all(r["points"] >= 100 for r in board)


def test_an_empty_revision_is_refused_and_keeps_the_scored_answer(env: dict[str, str]) -> None:
    run = CliRunner().invoke
    started = run(
        main,
        ["drill", "start", "--channel", "terminal:team", "--signature", "straggler", "--seed", "4", "--json"],
        env=env,
    )
    drill_id = str(json.loads(started.stdout)["drill_id"])
    assert run(main, ["drill", "answer", drill_id, "--user", "ana", "--text", GOOD], env=env).exit_code == 0
    for blank in ("", "   \n\t ", "\x00\x01"):
        refused = run(main, ["drill", "answer", drill_id, "--user", "ana", "--text", blank], env=env)
        assert refused.exit_code == 1
        assert "empty" in refused.output and "earlier answer" in refused.output
    db = Database(env["DATABASE_URL"])
    with db.session() as s:
        attempt = s.scalars(select(Attempt)).one()
    db.dispose()
    assert attempt.score == 1.0 and attempt.revisions == 0 and "straggler" in attempt.answer_text


async def test_empty_revision_on_every_backend(database: Database) -> None:
    clock = Clock()
    e = engine_for(database, FakeChat(), clock)
    d = await e.start(channel(), signature="straggler", seed=4)
    first = await e.submit(d.id, user("Ana"), GOOD)
    with pytest.raises(EmptyRevision):
        await e.submit(d.id, user("Ana"), "  \n ")
    clock.advance(10_000)
    await e.reveal_due()
    with database.session() as s:
        ws_id, ch_id = s.execute(select(Attempt.workspace_id, Attempt.channel_id)).one()
    board = leaderboard(database, ws_id, "channel", ch_id, "all", "UTC", clock())
    assert [(r.user, r.points) for r in board] == [("Ana", first.points)]
