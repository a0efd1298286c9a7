"""Operator commands: the database, drills in terminal channels, leaderboards, stats and study groups."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .cleantext import clean_name
from .cli_errors import FriendlyError, friendly
from .scenarios.ids import DIFFICULTIES, MAX_SEED, SIGNATURE_IDS

if TYPE_CHECKING:
    from .drills.engine import StartedDrill

database_option = click.option(
    "--database-url",
    envvar="DATABASE_URL",
    default=None,
    help="SQLAlchemy URL (default: DATABASE_URL, then the embedded SQLite file).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def _channel_name(value: str) -> str:
    platform, _, name = value.partition(":")
    if platform != "terminal" or not name or len(name) > 64:
        raise click.BadParameter("use terminal:NAME (e.g. terminal:team), NAME at most 64 characters")
    return name


def echo_for(as_json: bool) -> Callable[[str], None]:
    """Where the terminal channel's messages go: stderr when stdout carries JSON."""
    return (lambda text: click.echo(text, err=True)) if as_json else click.echo


def emit(data: Any, as_json: bool, human: str) -> None:
    """The result: JSON on stdout with --json, else the human text."""
    click.echo(json.dumps(data, ensure_ascii=False, default=str) if as_json else human)


@click.group()
def db() -> None:
    """Database maintenance."""


@db.command("upgrade")
@database_option
def db_upgrade(database_url: str | None) -> None:
    """Apply migrations up to the newest schema."""
    # start-up time: SQLAlchemy and Alembic load only for the commands that open the database
    from .store.db import Database
    from .store.migrate import upgrade

    upgrade(Database(database_url))
    click.echo("database is at the newest schema")


@click.group()
def drill() -> None:
    """Drills in local terminal channels."""


@drill.command("start")
@click.option("--channel", "channel", required=True, help="terminal:NAME")
@click.option("--signature", type=click.Choice(SIGNATURE_IDS), default=None)
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=None)
@click.option("--difficulty", type=click.Choice(DIFFICULTIES), default=None)
@click.option("--duration", type=click.IntRange(10, 24 * 3600), default=None, help="Seconds to answer.")
@click.option(
    "--from-trace",
    "from_trace",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Make the drill from a real Kineto trace (its analysis gives the answer).",
)
@database_option
@json_option
def drill_start(
    channel: str,
    signature: str | None,
    seed: int | None,
    difficulty: str | None,
    duration: int | None,
    from_trace: Path | None,
    database_url: str | None,
    as_json: bool,
) -> None:
    """Post a drill to a terminal channel (the answer is hidden until the reveal)."""
    # start-up time: the drill engine (SQLAlchemy, the generators, the grader) loads only for drill commands
    from .adapters.terminal.chat import channel_ref
    from .local import local_engine

    name = _channel_name(channel)
    engine, _ = local_engine(database_url, echo_for(as_json))

    async def run() -> StartedDrill:
        trace_id = None
        if from_trace is not None:
            data = await asyncio.to_thread(from_trace.read_bytes)
            trace_id = (await engine.store_trace(channel_ref(name), from_trace.name, data)).id
        return await engine.start(
            channel_ref(name),
            signature=signature,
            seed=seed,
            difficulty=difficulty,
            duration_seconds=duration,
            trace_id=trace_id,
        )

    try:
        started = asyncio.run(run())
    finally:
        engine.db.dispose()  # close pooled connections before exit (PostgreSQL warns about open ones)
    data = {
        "drill_id": started.id,
        "channel": f"terminal:{name}",
        "difficulty": started.difficulty,
        "posted_at": started.posted_at.isoformat(),
        "deadline": started.deadline.isoformat(),
        "image": started.message.message if started.message else None,
    }
    emit(
        data,
        as_json,
        f"Answer before {started.deadline.isoformat()} with: "
        f"tracedrill drill answer {started.id} --user NAME --text '…'",
    )


@drill.command("answer")
@click.argument("drill_id", type=click.IntRange(1, 2**31 - 1))
@click.option("--user", "user", required=True)
@click.option("--text", "text", required=True)
@database_option
@json_option
def drill_answer(drill_id: int, user: str, text: str, database_url: str | None, as_json: bool) -> None:
    """Answer a drill; the last answer before the deadline counts."""
    # start-up time: the drill engine loads only for drill commands
    from .adapters.terminal.chat import user_ref
    from .local import local_engine

    user = clean_name(user)
    if not user or len(user) > 64:
        raise click.BadParameter("give a user name of 1–64 characters", param_hint="--user")
    engine, _ = local_engine(database_url, echo_for(as_json))
    try:
        outcome = asyncio.run(engine.submit(drill_id, user_ref(user), text))
    finally:
        engine.db.dispose()
    # Points stay hidden until the reveal (null), or a player could answer, look, and revise; the key stays.
    data: dict[str, Any] = {
        "drill_id": drill_id,
        "user": user,
        "status": outcome.status,
        "late": outcome.late,
        "points": outcome.points if outcome.late else None,
    }
    if outcome.late:  # graded privately, not scored
        data |= {"score": outcome.grade.score, "feedback": outcome.grade.feedback()}
    human = outcome.private_text() + (f"\n{outcome.grade.feedback()}" if outcome.late else "")
    emit(data, as_json, human)


@drill.command("reveal-due")
@database_option
@json_option
def drill_reveal_due(database_url: str | None, as_json: bool) -> None:
    """Reveal every drill whose deadline has passed (each exactly once)."""
    from .local import local_engine  # start-up time: the drill engine loads only for drill commands

    engine, chat = local_engine(database_url, echo_for(as_json))
    try:
        report = asyncio.run(engine.reveal_due_report())
    finally:
        engine.db.dispose()
    revealed, failed = report.revealed, report.failed
    if not as_json:
        for user, text in chat.private:
            click.echo(f"— to {user} —\n{text}")
    emit({"revealed": revealed}, as_json, f"revealed {len(revealed)} drill(s)")
    if failed:  # a cron job must see this: exit code 1, the reason in one line
        ids = ", ".join(f"#{drill_id}" for drill_id, _ in failed)
        first = failed[0][1]
        nice = friendly(first)
        reason = nice.message if nice else " ".join(str(first).split())[:160]
        raise FriendlyError(
            f"{len(failed)} due drill(s) not revealed ({ids}): {reason}",
            nice.hint if nice else "run `tracedrill drill reveal-due` again; nothing was lost",
        )


@drill.command("list")
@database_option
@json_option
def drill_list(database_url: str | None, as_json: bool) -> None:
    """Drills in terminal channels, newest first (signatures only once revealed)."""
    # start-up time: SQLAlchemy and the store load only for the commands that open the database
    from .local import open_database
    from .reports import list_terminal_drills

    rows = list_terminal_drills(open_database(database_url))
    human = (
        "\n".join(
            f"#{r['drill_id']} {r['channel']} posted {r['posted_at']} answers {r['answers']} "
            f"{'revealed: ' + str(r['signature']) if r['revealed'] else 'open until ' + r['deadline']}"
            for r in rows
        )
        or "no drills yet"
    )
    emit(rows, as_json, human)


@click.command()
@click.option("--channel", "channel", default=None, help="terminal:NAME (default: every terminal channel)")
@click.option("--solo", is_flag=True, help="The solo board: points from `tracedrill play` (kept off channel boards).")
@click.option("--period", type=click.Choice(("week", "month", "all")), default="week", show_default=True)
@database_option
@json_option
def leaderboard(channel: str | None, solo: bool, period: str, database_url: str | None, as_json: bool) -> None:
    """Points by user for a terminal channel (or the whole local workspace), revealed drills only."""
    # start-up time: SQLAlchemy and the store load only for the commands that open the database
    from .local import open_database
    from .reports import terminal_leaderboard

    if solo and channel:
        raise click.UsageError("give --channel or --solo, not both")
    name = _channel_name(channel) if channel else None
    db = open_database(database_url)
    try:
        rows = terminal_leaderboard(db, name, period, solo=solo)
    finally:
        db.dispose()
    human = (
        "\n".join(
            f"{r.rank:>2}. {r.user:<20} {r.points:>6} pts  {r.answers} answers  mean {r.mean_score:.2f}" for r in rows
        )
        or "no answers in this period"
    )
    emit([asdict(r) for r in rows], as_json, human)


@click.command()
@click.option("--user", "user", required=True)
@database_option
@json_option
def stats(user: str, database_url: str | None, as_json: bool) -> None:
    """A player's history: per-signature accuracy, streak, weakest signatures, confusion matrix."""
    # start-up time: SQLAlchemy and the store load only for the commands that open the database
    from .local import open_database
    from .reports import format_stats, terminal_stats

    st = terminal_stats(open_database(database_url), user)
    if st is None:
        emit({"user": user, "answers": 0}, as_json, f"No answers from {user} yet.")
        return
    data = asdict(st) | {"user": user, "weakest": st.weakest}
    emit(data, as_json, format_stats(user, st))


@click.group()
def group() -> None:
    """Study groups in the local workspace."""


def _group_call(action: str, name: str | None, user: str, database_url: str | None, as_json: bool) -> None:
    # start-up time: SQLAlchemy and the store load only for the commands that open the database
    from .local import open_database
    from .reports import group_action

    result = group_action(open_database(database_url), action, name, user)
    emit(
        result,
        as_json,
        json.dumps(result, ensure_ascii=False)
        if action != "list"
        else "\n".join(f"{g['name']} ({g['members']} members)" for g in result) or "no groups yet",
    )


for _action in ("create", "join", "leave"):

    @group.command(_action)
    @click.argument("name")
    @click.option("--user", "user", required=True)
    @database_option
    @json_option
    def _cmd(name: str, user: str, database_url: str | None, as_json: bool, _a: str = _action) -> None:
        _group_call(_a, name, user, database_url, as_json)

    _cmd.__doc__ = f"{_action.capitalize()} a study group."


@group.command("list")
@database_option
@json_option
def group_list(database_url: str | None, as_json: bool) -> None:
    """List study groups."""
    _group_call("list", None, "", database_url, as_json)


def register(main: click.Group) -> None:
    for command in (db, drill, leaderboard, stats, group):
        main.add_command(command)
