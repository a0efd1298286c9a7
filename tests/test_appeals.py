"""Appeals on SQLite and PostgreSQL: filing rules, per-part rulings that regrade the attempt and move the boards,
the corpus export, workspace synonyms, and the whole loop from outside with the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select, text, update

from bot.cli import main
from bot.drills.appeals import AppealError, AppealService
from bot.drills.errors import DrillNotFound
from bot.drills.fake import FakeChat
from bot.drills.leaderboard import leaderboard
from bot.drills.policy import points
from bot.drills.synonyms import SynonymError, validate_phrase
from bot.grading import grade
from bot.scenarios.ids import SIGNATURE_IDS
from bot.store import repo
from bot.store.boards import user_stats
from bot.store.db import Database
from bot.store.models import Attempt, Drill

from .dbs import backends, make_database, pg_url
from .helpers import Clock, channel, engine_for, user

# A full answer in words the shipped grader does not know (checked below, so the test says so if it learns them).
# (Missed by the shipped grader and by the concept-rubric rewrite of issue 12, checked on both.)
MISSED = "one card is the tortoise of the job; line the cards up by compute time per iteration; RMA that card"
GOOD = "Rank 2 is a straggler: its compute is longer and everyone waits. Check DCGM clocks; fix the node."
CORPUS_KEYS = {"signature", "answer", "expect", "named", "note", "persona", "writer", "source"}


def test_the_paraphrase_is_missed_by_the_shipped_grader() -> None:
    g = grade("straggler", MISSED)
    assert g.score < 0.5, "the grader learned this paraphrase: pick a wording it misses for the appeal tests"


async def _revealed(
    database: Database, clock: Clock, chat: FakeChat, answers: dict[str, str], ws: str = "T1"
) -> tuple[AppealService, int]:
    e = engine_for(database, chat, clock)
    d = await e.start(channel(ws), signature="straggler", duration_seconds=120)
    clock.advance(20)
    for name, reply in answers.items():
        await e.submit(d.id, user(name, ws), reply)
    clock.advance(101)
    assert await e.reveal(d.id)
    return AppealService(e), d.id


async def test_accepting_all_three_parts_regrades_to_a_full_answer_and_moves_board_and_stats(
    database: Database,
) -> None:
    chat, clock = FakeChat(), Clock()
    appeals, drill_id = await _revealed(database, clock, chat, {"Ana": MISSED, "Bo": GOOD})
    with database.session() as s:
        d = s.get(Drill, drill_id)
        assert d is not None
        ana = s.scalars(select(Attempt).where(Attempt.answer_text == MISSED)).one()
        before, submitted, ws_id, ch_id = ana.points, ana.submitted_at, d.workspace_id, d.channel_id
        posted, deadline = d.posted_at, d.deadline_at
    board = {r.user: r.points for r in leaderboard(database, ws_id, "channel", ch_id, "all", "UTC", clock())}
    assert board["Ana"] == before < board["Bo"]

    info = await appeals.file(drill_id, user("Ana"), "tortoise = one slow rank; that is the check and fix")
    assert (info.status, info.part) == ("open", "all")
    assert [a.appeal_id for a in await appeals.list_appeals("slack", "T1", "open")] == [info.appeal_id]
    rulings = [
        await appeals.resolve("slack", "T1", info.appeal_id, accept=True, part=p, reviewer="rev")
        for p in ("signature", "measurement", "fix")
    ]
    full = points(1.0, posted, deadline, submitted, False)  # the speed bonus as first earned
    assert rulings[-1].points == full >= 90
    assert rulings[0].points_before == before
    assert rulings[-1].status == "accepted"
    board = {r.user: r.points for r in leaderboard(database, ws_id, "channel", ch_id, "all", "UTC", clock())}
    assert board["Ana"] == full
    with database.session() as s:
        u = repo.find_user(s, repo.find_workspace(s, "slack", "T1"), "ana")  # type: ignore[arg-type]
        assert u is not None
        stats = user_stats(s, ws_id, u.id, SIGNATURE_IDS)
        assert stats.mean_score == 1.0
        assert any(k.signature == "straggler" and k.named_right == 1 for k in stats.skills)
    assert await appeals.list_appeals("slack", "T1", "open") == []
    assert [a.status for a in await appeals.list_appeals("slack", "T1", "accepted")] == ["accepted"]

    rows = await appeals.export_rows(None, None)
    assert len(rows) == 1
    row = rows[0]
    assert set(row) == CORPUS_KEYS
    assert (row["signature"], row["answer"], row["expect"]) == (
        "straggler",
        MISSED,
        {"signature": 1, "measurement": 1, "fix": 1},
    )
    assert row["named"] == "straggler"
    assert str(row["source"]).startswith("appeal:")


async def test_filing_rules(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    e = engine_for(database, chat, clock)
    appeals = AppealService(e)
    d = await e.start(channel(), signature="straggler", duration_seconds=120)
    await e.submit(d.id, user("Ana"), MISSED)
    with pytest.raises(AppealError, match="after its reveal"):
        await appeals.file(d.id, user("Ana"), "too harsh")
    clock.advance(121)
    await e.submit(d.id, user("Late"), GOOD)
    assert await e.reveal(d.id)
    with pytest.raises(AppealError, match="no scored answer"):
        await appeals.file(d.id, user("Late"), "I was late but right")
    with pytest.raises(AppealError, match="no scored answer"):
        await appeals.file(d.id, user("Nobody"), "never answered")
    with pytest.raises(AppealError, match="empty"):
        await appeals.file(d.id, user("Ana"), "   ")
    with pytest.raises(AppealError, match="1000 characters"):
        await appeals.file(d.id, user("Ana"), "x" * 1001)
    with pytest.raises(DrillNotFound):
        await appeals.file(d.id, user("Ana", ws="T2"), "another workspace")
    fix = await appeals.file(d.id, user("Ana"), "swapping the card is the fix", part="fix")
    with pytest.raises(AppealError, match="one appeal per part"):
        await appeals.file(d.id, user("Ana"), "again", part="fix")
    with pytest.raises(AppealError, match="one appeal per part"):
        await appeals.file(d.id, user("Ana"), "everything", part="all")
    sig = await appeals.file(d.id, user("Ana"), "tortoise names it", part="signature")
    assert sig.appeal_id != fix.appeal_id
    with pytest.raises(AppealError, match="not the measurement"):
        await appeals.resolve("slack", "T1", fix.appeal_id, accept=True, part="measurement", reviewer="rev")
    with pytest.raises(AppealError, match="own appeal"):
        await appeals.resolve("slack", "T1", fix.appeal_id, accept=True, part="fix", reviewer="ana")
    with pytest.raises(AppealError, match="No appeal"):
        await appeals.resolve("slack", "T2", fix.appeal_id, accept=True, part="fix", reviewer="rev")
    assert await appeals.list_appeals("slack", "T2") == []


async def test_appeals_close_seven_days_after_the_reveal(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    appeals, drill_id = await _revealed(database, clock, chat, {"Ana": MISSED})
    clock.advance(7 * 24 * 3600 + 1)
    with pytest.raises(AppealError, match="closed 7 days"):
        await appeals.file(drill_id, user("Ana"), "too late")


async def test_a_rejection_keeps_the_grade_and_half_credit_is_half(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    appeals, drill_id = await _revealed(database, clock, chat, {"Ana": MISSED, "Bo": "NCCL got slow"})
    ana = await appeals.file(drill_id, user("Ana"), "it is right", part="signature")
    bo = await appeals.file(drill_id, user("Bo"), "NCCL is slow because of a slow rank", part="signature")
    rejected = await appeals.resolve(
        "slack", "T1", ana.appeal_id, accept=False, part="signature", reviewer="rev", note="say which rank"
    )
    assert (rejected.status, rejected.points, rejected.points_before) == ("rejected", ana.points, ana.points)
    assert "rejected" in rejected.appellant_text("say which rank")
    with pytest.raises(AppealError, match="already been ruled"):
        await appeals.resolve("slack", "T1", ana.appeal_id, accept=True, part="signature", reviewer="rev")
    with pytest.raises(AppealError, match=r"0, 0\.5 or 1"):
        await appeals.resolve("slack", "T1", bo.appeal_id, accept=True, part="signature", reviewer="rev", credit=0.7)
    half = await appeals.resolve("slack", "T1", bo.appeal_id, accept=True, part="signature", reviewer="rev", credit=0.5)
    assert half.score == pytest.approx(bo.score + 0.25)
    assert await appeals.export_rows("slack", "T1") == [
        row for row in await appeals.export_rows(None, None) if row["answer"] == "NCCL got slow"
    ]


async def test_a_remembered_wording_earns_credit_in_that_workspace_only(database: Database) -> None:
    chat, clock = FakeChat(), Clock()
    appeals, drill_id = await _revealed(database, clock, chat, {"Ana": MISSED})
    info = await appeals.file(drill_id, user("Ana"), "the tortoise is one slow rank", part="signature")
    with pytest.raises(AppealError, match="words from the appealed reply"):
        await appeals.resolve(
            "slack", "T1", info.appeal_id, accept=True, part="signature", reviewer="rev", remember="lagging behind"
        )
    ruling = await appeals.resolve(
        "slack", "T1", info.appeal_id, accept=True, part="signature", reviewer="rev", remember="Tortoise of the job"
    )
    assert ruling.remembered == "tortoise of the job"
    e = appeals.engine
    new_reply = "card 3 is the tortoise of the job"
    assert grade("straggler", new_reply).signature.credit == 0, "the shipped rubric is unchanged"
    for ws, expected in (("T1", 1.0), ("T2", 0.0)):
        d = await e.start(channel(ws), signature="straggler", duration_seconds=120)
        out = await e.submit(d.id, user("Cy", ws), new_reply)
        assert out.grade.signature.credit == expected, ws
    d = await e.start(channel("T1"), signature="straggler", duration_seconds=120)
    negated = await e.submit(d.id, user("Cy"), "nothing is the tortoise of the job here; NCCL is just slow")
    assert negated.grade.signature.credit == 0
    stuffed = await e.submit(
        d.id,
        user("Dee"),
        "tortoise of the job, straggler, bubbles, launch bound, sync stall, input starvation, alloc stall",
    )
    assert stuffed.grade.score == 0, "stuffing still earns nothing"
    other_sig = await e.start(channel("T1"), signature="sync_stall", duration_seconds=120)
    elsewhere = await e.submit(other_sig.id, user("Cy"), new_reply)
    assert elsewhere.grade.signature.credit == 0, "a synonym belongs to its signature"


@pytest.mark.parametrize(
    ("phrase", "error"),
    [
        ("", "empty"),
        ("one card is the tortoise of the job", "short phrase"),
        ("tortoise of the job, rma", "not a list"),
        ("rma that card", None),
        ("straggler", "another signature"),
    ],
)
def test_a_remembered_phrase_is_one_short_phrase_from_the_reply(phrase: str, error: str | None) -> None:
    answer = MISSED + " (a straggler? no, it is input starvation)"
    if error is None:
        assert validate_phrase("straggler", "fix", phrase, answer) == phrase
    else:
        with pytest.raises(SynonymError, match=error):
            validate_phrase("pipeline_bubbles" if phrase == "straggler" else "straggler", "signature", phrase, answer)


# -- from outside, with the CLI ---------------------------------------------------------------------------------
@pytest.fixture(params=backends())
def cli_env(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[dict[str, str], Database]]:
    monkeypatch.setenv("TRACEDRILL_OUT", str(tmp_path / "pictures"))
    for db in make_database(str(request.param), tmp_path):
        if db.is_sqlite:
            url = str(db.engine.url)
        else:
            with db.engine.connect() as c:
                schema = c.execute(text("SELECT current_schema()")).scalar()
            url = f"{pg_url()}?options=-csearch_path%3D{schema}"
        yield {"DATABASE_URL": url}, db


def _run(env: dict[str, str], *args: str) -> dict | list:  # type: ignore[type-arg]
    result = CliRunner().invoke(main, list(args), env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_cli_hint_appeal_resolve_board_export(cli_env: tuple[dict[str, str], Database], tmp_path: Path) -> None:
    env, db = cli_env
    drill = _run(
        env,
        "drill",
        "start",
        "--channel",
        "terminal:team",
        "--signature",
        "straggler",
        "--seed",
        "5",
        "--duration",
        "120",
        "--json",
    )
    drill_id = str(drill["drill_id"])  # type: ignore[call-overload]
    hint = _run(env, "drill", "hint", drill_id, "--user", "cy", "--json")
    assert hint["cost"] > 0  # type: ignore[call-overload]
    assert not any(w in str(hint["hint"]).lower() for w in ("straggl", "slow rank", "throttl"))  # type: ignore
    for name, reply in (("ana", MISSED), ("bo", GOOD), ("cy", GOOD)):
        _run(env, "drill", "answer", drill_id, "--user", name, "--text", reply, "--json")
    # Time passes: move the drill's clock two minutes back (post, deadline and answers alike).
    with db.session() as s:
        for model, cols in ((Drill, ("posted_at", "deadline_at")), (Attempt, ("submitted_at",))):
            rows = s.scalars(select(model)).all()
            for row in rows:
                for col in cols:
                    setattr(row, col, getattr(row, col) - timedelta(seconds=121))
    assert _run(env, "drill", "reveal-due", "--json") == {"revealed": [int(drill_id)]}
    board = {r["user"]: r["points"] for r in _run(env, "leaderboard", "--period", "all", "--json")}  # type: ignore
    assert board["ana"] < 90 and board["cy"] == board["bo"] - hint["cost"]  # type: ignore[call-overload]

    filed = _run(env, "appeal", drill_id, "--user", "ana", "--reason", "tortoise = one slow rank", "--json")
    assert filed == {"appeal_id": filed["appeal_id"], "status": "open"}  # type: ignore[call-overload]
    appeal_id = str(filed["appeal_id"])  # type: ignore[call-overload]
    listed = _run(env, "appeals", "list", "--status", "open", "--json")
    assert [a["appeal_id"] for a in listed] == [int(appeal_id)]  # type: ignore[index]
    for part in ("signature", "measurement", "fix"):
        ruled = _run(
            env,
            "appeals",
            "resolve",
            appeal_id,
            "--accept",
            "--part",
            part,
            "--credit",
            "1",
            "--reviewer",
            "rev",
            "--note",
            "fair",
            "--json",
        )
        assert ruled["status"] == "accepted"  # type: ignore[call-overload]
    board = {r["user"]: r["points"] for r in _run(env, "leaderboard", "--period", "all", "--json")}  # type: ignore
    assert board["ana"] >= 90
    assert _run(env, "appeals", "list", "--status", "open", "--json") == []

    out = tmp_path / "appeals.jsonl"
    result = CliRunner().invoke(main, ["appeals", "export", "--out", str(out)], env=env)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["signature"], r["answer"], r["expect"]) for r in rows] == [
        ("straggler", MISSED, {"signature": 1, "measurement": 1, "fix": 1})
    ]

    again = CliRunner().invoke(
        main, ["appeals", "resolve", appeal_id, "--accept", "--part", "fix", "--reviewer", "rev"], env=env
    )
    assert again.exit_code == 1
    assert "already been ruled" in again.output
    assert "Traceback" not in again.output
    neither = CliRunner().invoke(main, ["appeals", "resolve", appeal_id, "--part", "fix", "--reviewer", "rev"], env=env)
    assert neither.exit_code == 2
    assert "--accept or --reject" in neither.output
    with db.session() as s:  # the rulings are in the database, not just printed
        assert s.scalar(select(Attempt.score).where(Attempt.answer_text == MISSED)) == 1.0
        s.execute(update(Attempt).values(points=Attempt.points))  # the table is writable: no locks left behind


def test_cli_reviewers_and_bad_input_get_one_clear_line(tmp_path: Path) -> None:
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'r.sqlite3'}"}
    runner = CliRunner()
    assert _run(env, "appeals", "reviewers", "list", "--workspace", "slack:T1", "--json") == []
    _run(env, "appeals", "reviewers", "add", "U42", "--workspace", "slack:T1", "--json")
    listed = _run(env, "appeals", "reviewers", "add", "S7", "--group", "--workspace", "slack:T1", "--json")
    assert sorted(map(str, listed)) == sorted(map(str, [{"kind": "user", "id": "U42"}, {"kind": "group", "id": "S7"}]))
    assert _run(env, "appeals", "reviewers", "list", "--workspace", "slack:T2", "--json") == []
    for args, message in (
        (["appeals", "list", "--workspace", "irc:x"], "PLATFORM:ID"),
        (["appeal", "1", "--user", "ana", "--reason", "x"], "No drill #1"),
        (["appeals", "resolve", "9", "--accept", "--part", "fix", "--reviewer", "r"], "No appeal #9"),
        (
            ["appeals", "resolve", "9", "--reject", "--part", "fix", "--credit", "1", "--reviewer", "r"],
            "go with accepting",
        ),
        (["appeals", "export", "--out", str(tmp_path / "missing" / "x.jsonl")], "cannot write"),
    ):
        result = runner.invoke(main, args, env=env)
        assert result.exit_code != 0, args
        assert message in result.output, (args, result.output)
        assert "Traceback" not in result.output


async def test_rulings_made_outside_chat_are_told_once_by_the_notice_sweep(database: Database) -> None:
    from bot.drills.appeal_notices import send_pending

    chat, clock = FakeChat(), Clock()
    appeals, drill_id = await _revealed(database, clock, chat, {"Ana": MISSED, "Bo": "NCCL got slow"})
    e = appeals.engine
    ana = await appeals.file(drill_id, user("Ana"), "tortoise = a slow rank")
    bo = await appeals.file(drill_id, user("Bo"), "close enough", part="fix")
    await appeals.resolve("slack", "T1", ana.appeal_id, accept=True, part="signature", reviewer="op", note="ok")
    await appeals.resolve("slack", "T1", bo.appeal_id, accept=False, part="fix", reviewer="me", told=True)
    before = len(chat.private)
    chat.fail_next = 1
    assert await send_pending(e) == 0, "a failed send stays pending"
    clock.advance(1)
    assert await send_pending(e) == 1
    told = chat.private[before:]
    assert [(u.user, t) for _, u, t in told] == [
        ("ana", f"Your appeal #{ana.appeal_id} on drill #{drill_id}: signature accepted (ok).")
    ]
    assert told[0][0].channel == "C1"
    assert await send_pending(e) == 0, "told once"
    clock.advance(1)
    await appeals.resolve("slack", "T1", ana.appeal_id, accept=False, part="fix", reviewer="op")
    clock.advance(1)
    assert await send_pending(e) == 1
    assert chat.private[-1][2] == f"Your appeal #{ana.appeal_id} on drill #{drill_id}: fix rejected."


async def test_a_ruling_whose_telling_failed_goes_back_to_the_sweep(database: Database) -> None:
    from bot.drills.appeal_notices import send_pending

    chat, clock = FakeChat(), Clock()
    appeals, drill_id = await _revealed(database, clock, chat, {"Ana": MISSED})
    info = await appeals.file(drill_id, user("Ana"), "tortoise = a slow rank", part="fix")
    ruling = await appeals.resolve("slack", "T1", info.appeal_id, accept=True, part="fix", reviewer="rev", told=True)
    assert await send_pending(appeals.engine) == 0, "told in chat: nothing pending"
    await appeals.untold(ruling.appeal_id)
    assert await send_pending(appeals.engine) == 1
