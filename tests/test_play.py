"""`tracedrill play` driven with piped input, as a new user would run it: drill, grade, reveal, history."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console
from sqlalchemy import select

from bot.adapters.terminal.chat import TerminalChat
from bot.adapters.terminal.play import PlayOptions, play
from bot.cli import main
from bot.drills.engine import Drills
from bot.store.db import Database
from bot.store.models import Attempt, Drill

from .helpers import Clock
from .memo import PICTURES

ANSWER = (
    "Rank 2 is a straggler: the others wait for it in the all-reduce.\n"
    "Check DCGM clocks and throttle reasons on that GPU; fix the node's cooling.\n\n"
)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("TRACEDRILL_OUT", str(tmp_path / "pictures"))
    return {"DATABASE_URL": f"sqlite:///{tmp_path / 'play.sqlite3'}"}


def test_play_with_piped_input_grades_reveals_and_stores(env: dict[str, str], tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        main, ["play", "--signature", "straggler", "--seed", "4", "--user", "ana"], input=ANSWER, env=env
    )
    assert result.exit_code == 0, result.output
    out = result.output
    for section in (
        "Complaint:",
        "Picture:",
        "Your grade: 100/100",
        "Reveal",
        "Wrong hypothesis",
        "Confirm:",
        "Fix:",
        "In 60 seconds",
        "Annotated picture:",
        "CUDA API",
    ):
        assert section in out, section
    pictures = sorted(p.name for p in (tmp_path / "pictures").iterdir())
    assert pictures == ["drill-1-reveal.png", "drill-1.png"]
    db = Database(env["DATABASE_URL"])
    with db.session() as s:
        attempt = s.scalars(select(Attempt)).one()
        assert attempt.score == 1.0
        assert attempt.points > 100
        assert "straggler" in attempt.answer_text
        assert s.scalars(select(Drill)).one().revealed_at is not None
    db.dispose()
    second = runner.invoke(main, ["play", "--user", "ana", "--no-timer"], input="no idea\n\n", env=env)
    assert second.exit_code == 0, second.output
    stats = runner.invoke(main, ["stats", "--user", "ana", "--json"], env=env)
    data = json.loads(stats.output)
    assert data["answers"] == 2
    assert data["confusion"]["straggler"] == {"straggler": 1}
    board = runner.invoke(main, ["leaderboard", "--period", "all"], env=env)
    assert board.output.strip() == "no answers in this period", "solo play stays off the shared boards"
    solo = runner.invoke(main, ["leaderboard", "--solo", "--period", "all", "--json"], env=env)
    assert [(r["user"], r["answers"]) for r in json.loads(solo.output)] == [("ana", 2)]


def test_play_without_a_timer_earns_no_speed_bonus(env: dict[str, str]) -> None:
    runner = CliRunner()
    for flags in ([], ["--no-timer"]):
        result = runner.invoke(
            main, ["play", "--signature", "straggler", "--seed", "4", "--user", "ana", *flags], input=ANSWER, env=env
        )
        assert result.exit_code == 0, result.output
    db = Database(env["DATABASE_URL"])
    with db.session() as s:
        timed, untimed = s.execute(select(Attempt.score, Attempt.points).order_by(Attempt.id)).all()
    db.dispose()
    assert timed[0] == untimed[0] == 1.0
    assert timed[1] > 100, "answered at once against the clock: a speed bonus"
    assert untimed[1] == 100, "no clock to beat: no bonus"


def test_play_with_empty_input_still_finishes(env: dict[str, str]) -> None:
    result = CliRunner().invoke(main, ["play", "--user", "bo", "--difficulty", "hard"], input="", env=env)
    assert result.exit_code == 0, result.output
    assert "Your grade: 0/100" in result.output
    assert "Nothing to grade" in result.output


def test_play_rejects_bad_options(env: dict[str, str]) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["play", "--signature", "nope"], env=env).exit_code == 2
    assert runner.invoke(main, ["play", "--minutes", "0"], env=env).exit_code == 2
    assert runner.invoke(main, ["play", "--user", " "], input="", env=env).exit_code == 2


class _SlowReader(io.StringIO):
    """Stdin whose reader takes longer than the drill allows (the clock jumps while reading)."""

    def __init__(self, text: str, clock: Clock) -> None:
        super().__init__(text)
        self.clock = clock

    def __iter__(self):  # type: ignore[no-untyped-def]
        self.clock.advance(600)
        return super().__iter__()


async def test_running_out_of_time_grades_what_was_typed_as_late(tmp_path: Path, database: Database) -> None:
    clock = Clock()
    chat = TerminalChat(tmp_path, lambda _t: None)
    engine = Drills(database, {"terminal": chat}, clock=clock, render_cache=PICTURES)
    console = Console(file=io.StringIO(), width=120)
    code = await play(
        engine,
        chat,
        PlayOptions("cy", signature="sync_stall", seed=3, minutes=2.0),
        console,
        _SlowReader("loss.item() syncs every step\n\n", clock),
    )
    assert code == 0
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "late, not scored" in text
    with database.session() as s:
        a = s.scalars(select(Attempt)).one()
        assert a.late
        assert a.points == 0
        assert a.signature_credit == 1.0


class _Interrupting(io.StringIO):
    def __iter__(self):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt


async def test_ctrl_c_stores_nothing_half_written(tmp_path: Path, database: Database) -> None:
    chat = TerminalChat(tmp_path, lambda _t: None)
    engine = Drills(database, {"terminal": chat}, clock=Clock(), render_cache=PICTURES)
    console = Console(file=io.StringIO(), width=120)
    code = await play(engine, chat, PlayOptions("dee"), console, _Interrupting(""))
    assert code == 130
    with database.session() as s:
        assert s.scalars(select(Drill)).all() == []
        assert s.scalars(select(Attempt)).all() == []
