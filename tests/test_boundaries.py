"""Bad input at the CLI and database boundaries: one clear line (plus a hint), exit code 1, nothing half-written."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from bot.cleantext import clean_name, clean_text
from bot.cli import main
from bot.drills.fake import FakeChat
from bot.drills.ports import UserRef
from bot.store import repo
from bot.store.db import Database
from bot.store.models import Attempt, Drill, User

from .dbs import LOCAL_POSTGRES
from .helpers import Clock, channel, engine_for

PG = os.environ.get("TEST_DATABASE_URL", LOCAL_POSTGRES)
PG_BASE = PG.rsplit("/", 1)[0]


def _run(args: list[str], **kw: object) -> tuple[int, list[str], BaseException | None]:
    result = CliRunner().invoke(main, args, **kw)  # type: ignore[arg-type]
    lines = [line for line in result.output.splitlines() if line.strip()]
    unexpected = result.exception if not isinstance(result.exception, SystemExit) else None
    return result.exit_code, lines, unexpected


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("sqlite:////nonexistent-folder/sub/x.sqlite3", "cannot open the SQLite database"),
        ("postgresql+psycopg://no_such_role@" + PG_BASE.split("@", 1)[-1] + "/test", "no_such_role"),
        (PG_BASE + "/no_such_database", "no_such_database"),
        ("postgresql+psycopg://postgres@127.0.0.1:1/test", "cannot connect"),
        ("mysql://u:p@localhost/db", "not supported"),
        ("this is not a url", "malformed"),
        ("postgresql://u@[bad/x", "URL"),
    ],
)
def test_database_errors_are_one_line_and_a_hint(url: str, says: str) -> None:
    for args in (["drill", "reveal-due"], ["leaderboard"], ["drill", "answer", "1", "--user", "a", "--text", "x"]):
        code, lines, unexpected = _run([*args, "--database-url", url])
        assert unexpected is None, f"{args}: {unexpected!r}"
        assert code == 1
        assert 1 <= len(lines) <= 3, lines
        assert lines[0].startswith("Error:") and says in " ".join(lines), lines
        assert any(line.startswith("Hint:") for line in lines)
        assert "Traceback" not in " ".join(lines) and "sqlalche.me" not in " ".join(lines)
        assert ":p@" not in " ".join(lines), "no password in the message"


def _due_drill(tmp_path: Path) -> Path:
    path = tmp_path / "due.sqlite3"
    code, _, unexpected = _run(
        [
            "drill",
            "start",
            "--channel",
            "terminal:team",
            "--signature",
            "straggler",
            "--seed",
            "1",
            "--database-url",
            f"sqlite:///{path}",
        ]
    )
    assert code == 0 and unexpected is None
    with sqlite3.connect(path) as conn:  # the deadline has passed
        conn.execute("UPDATE drills SET deadline_at = '2020-01-01 00:00:00.000000'")
    return path


def test_reveal_due_exits_non_zero_when_a_reveal_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEDRILL_OUT", str(tmp_path / "pictures"))
    path = _due_drill(tmp_path)
    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"  # the reveal's write fails (works as root too)
    code, lines, unexpected = _run(["drill", "reveal-due", "--database-url", read_only])
    assert unexpected is None
    assert code == 1
    assert len(lines) <= 3 and any("not revealed (#1)" in line and "read-only" in line for line in lines), lines
    code, lines, _ = _run(["drill", "reveal-due", "--database-url", f"sqlite:///{path}"])
    assert code == 0 and lines[-1] == "revealed 1 drill(s)", "nothing was lost: the next run reveals it"


def test_clean_text_and_names() -> None:
    assert clean_text("a\x00b\x01c\r\nd\te\udcff") == "abc\nd\te\ufffd"
    assert clean_text(b"ok \xff\xfe") == "ok \ufffd\ufffd"
    assert clean_text("\ud800 lone") == "\ufffd lone"
    assert clean_name("  Ada\x00 \u202eLove\tlace\n ") == "Ada Love lace"
    assert clean_name("x" * 250) == "x" * 200


def test_invalid_utf8_in_drill_answer_is_replaced_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRACEDRILL_OUT", str(tmp_path / "pictures"))
    url = f"sqlite:///{tmp_path / 'a.sqlite3'}"
    assert (
        _run(
            [
                "drill",
                "start",
                "--channel",
                "terminal:t",
                "--signature",
                "straggler",
                "--seed",
                "1",
                "--database-url",
                url,
            ]
        )[0]
        == 0
    )
    # what Python makes of the bytes ff fe in argv: lone surrogates
    code, lines, unexpected = _run(
        [
            "drill",
            "answer",
            "1",
            "--user",
            "bo\x00b",
            "--text",
            "\udcff\udcfe rank 2 is a straggler\x00 \x1b[31m",
            "--database-url",
            url,
        ]
    )
    assert unexpected is None and code == 0, lines
    db = Database(url)
    with db.session() as s:
        stored = s.scalars(select(Attempt.answer_text)).one()
        names = list(s.scalars(select(User.display_name)))
    db.dispose()
    assert stored == "\ufffd\ufffd rank 2 is a straggler [31m"
    assert names == ["bob"]


def test_binary_piped_into_play_gives_no_traceback_and_nothing_half_written(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TRACEDRILL_OUT", str(tmp_path / "pictures"))
    url = f"sqlite:///{tmp_path / 'p.sqlite3'}"
    junk = bytes(random.Random(7).randrange(256) for _ in range(4000))
    code, lines, unexpected = _run(
        ["play", "--user", "cy", "--no-timer", "--signature", "sync_stall", "--seed", "2", "--database-url", url],
        input=junk,
    )
    assert unexpected is None and code == 0, lines[-3:]
    db = Database(url)
    with db.session() as s:
        drills = s.execute(select(Drill.id, Drill.revealed_at)).all()
        answers = s.execute(select(Attempt.drill_id, Attempt.answer_text)).all()
    db.dispose()
    assert len(drills) == 1 and drills[0][1] is not None, "the drill was revealed"
    assert [a[0] for a in answers] == [drills[0][0]]
    assert "\x00" not in answers[0][1]


def test_a_failed_operation_leaves_no_half_written_rows(database: Database) -> None:
    """The user is created inside a savepoint; when the rest of the operation fails, it must go too."""
    clock = Clock()

    class Boom(Exception):
        pass

    def half_then_fail() -> None:
        with database.session() as s:
            ws = repo.workspace(s, "slack", "T9", "", clock())
            repo.user(s, ws, "U9", "Half Written")
            raise Boom

    with pytest.raises(Boom):
        half_then_fail()
    with database.session() as s:
        assert s.scalar(select(func.count()).select_from(User)) == 0


async def test_long_or_dirty_display_names_are_recorded_cleaned(database: Database) -> None:
    clock = Clock()
    e = engine_for(database, FakeChat(), clock)
    d = await e.start(channel(), signature="straggler", seed=1)
    long_name = "N\x00" + "é" * 250
    out = await e.submit(
        d.id, UserRef("slack", "T1", "U42", long_name), "rank 2 is a straggler\x00 waiting in the all-reduce"
    )
    assert out.status == "scored"
    with database.session() as s:
        name = s.scalars(select(User.display_name)).one()
        text = s.scalars(select(Attempt.answer_text)).one()
    assert name == "N" + "é" * 199 and len(name) == 200
    assert "\x00" not in text and "straggler" in text


@pytest.mark.parametrize(
    ("args", "env", "says"),
    [
        (["drill", "list"], {"TRACEDRILL_ANSWER_SECONDS": "5"}, "TRACEDRILL_ANSWER_SECONDS: Input should be greater"),
        (["healthcheck"], {"TRACEDRILL_HEALTH_PORT": "0"}, "TRACEDRILL_HEALTH_PORT: Input should be greater"),
        (["serve"], {"TRACEDRILL_PLATFORM": "irc"}, "choose platforms from: slack, discord"),
        (["serve", "--platform", "discord"], {"DISCORD_TOKEN": " "}, "DISCORD_TOKEN is set but empty"),
    ],
)
def test_a_bad_setting_is_one_line_naming_the_variable(
    args: list[str], env: dict[str, str], says: str, tmp_path: Path
) -> None:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 's.sqlite3'}", **env}
    code, lines, unexpected = _run(args, env=env)
    assert unexpected is None and code == 1
    assert len(lines) == 1 and lines[0].startswith(f"Error: {says}"), lines
