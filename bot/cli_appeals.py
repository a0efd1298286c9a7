"""CLI for hints and appeals: `drill hint`, `appeal`, `appeals list|resolve|export` (issue 17)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click

from .cli_errors import writing
from .cli_ops import database_option, echo_for, emit, json_option

PARTS = ("signature", "measurement", "fix")


def _user_name(value: str, hint: str = "--user") -> str:
    value = value.strip()
    if not value or len(value) > 64:
        raise click.BadParameter("give a name of 1–64 characters", param_hint=hint)
    return value


def _workspace(value: str) -> tuple[str, str]:
    platform, _, external = value.partition(":")
    if platform not in ("terminal", "slack", "discord") or not external or len(external) > 64:
        raise click.BadParameter(
            "use PLATFORM:ID, e.g. terminal:local, slack:T0123, discord:123456", param_hint="--workspace"
        )
    return platform, external


workspace_option = click.option(
    "--workspace",
    "workspace",
    default="terminal:local",
    show_default=True,
    help="PLATFORM:ID of the workspace (the local terminal one by default).",
)


@click.command("hint")
@click.argument("drill_id", type=click.IntRange(1, 2**31 - 1))
@click.option("--user", "user", required=True)
@database_option
@json_option
def drill_hint(drill_id: int, user: str, database_url: str | None, as_json: bool) -> None:
    """Ask for the next hint on an open drill (level 1, then 2); each costs points on your attempt."""
    # start-up time: the drill engine (SQLAlchemy, the generators, the grader) loads only for these commands
    from .adapters.terminal.chat import user_ref
    from .drills.hint_service import HintService
    from .local import local_engine

    name = _user_name(user)
    engine, _ = local_engine(database_url, echo_for(as_json))
    try:
        given = asyncio.run(HintService(engine).hint(drill_id, user_ref(name)))
    finally:
        engine.db.dispose()
    emit(given.as_dict(), as_json, given.private_text())


@click.command("appeal")
@click.argument("drill_id", type=click.IntRange(1, 2**31 - 1))
@click.option("--user", "user", required=True)
@click.option("--reason", "reason", required=True, help="Why the grade is wrong (at most 1,000 characters).")
@click.option(
    "--part",
    "part",
    type=click.Choice(("all", *PARTS)),
    default="all",
    show_default=True,
    help="Which part you contest; 'all' lets the reviewer rule on each.",
)
@database_option
@json_option
def appeal(drill_id: int, user: str, reason: str, part: str, database_url: str | None, as_json: bool) -> None:
    """Contest the grade of your answer to a revealed drill (within 7 days of the reveal)."""
    # start-up time: the drill engine (SQLAlchemy, the generators, the grader) loads only for these commands
    from .adapters.terminal.chat import user_ref
    from .drills.appeals import AppealService
    from .local import local_engine

    name = _user_name(user)
    engine, _ = local_engine(database_url, echo_for(as_json))
    try:
        info = asyncio.run(AppealService(engine).file(drill_id, user_ref(name), reason, part))
    finally:
        engine.db.dispose()
    emit(
        {"appeal_id": info.appeal_id, "status": info.status},
        as_json,
        f"Appeal #{info.appeal_id} on drill #{drill_id} is open; a reviewer will rule on it.",
    )


@click.group("appeals")
def appeals() -> None:
    """Review appeals: list, rule, and export accepted ones as grader corpus rows."""


@appeals.command("list")
@click.option("--status", type=click.Choice(("open", "accepted", "rejected")), default=None)
@workspace_option
@database_option
@json_option
def appeals_list(status: str | None, workspace: str, database_url: str | None, as_json: bool) -> None:
    """Appeals in a workspace, oldest first."""
    # start-up time: the drill engine (SQLAlchemy, the generators, the grader) loads only for these commands
    from .drills.appeals import AppealService
    from .local import local_engine

    platform, external = _workspace(workspace)
    engine, _ = local_engine(database_url, echo_for(as_json))
    try:
        rows = asyncio.run(AppealService(engine).list_appeals(platform, external, status))
    finally:
        engine.db.dispose()
    human = (
        "\n".join(
            f"#{r.appeal_id} drill #{r.drill_id} {r.user} [{r.status}] part {r.part}: {r.reason}\n"
            f"    answer: {r.answer[:200]}"
            for r in rows
        )
        or "no appeals"
    )
    emit([r.as_dict() for r in rows], as_json, human)


@appeals.command("resolve")
@click.argument("appeal_id", type=click.IntRange(1, 2**31 - 1))
@click.option("--accept/--reject", "accept", default=None, help="The ruling.")
@click.option("--part", "part", type=click.Choice(PARTS), required=True)
@click.option(
    "--credit",
    type=click.Choice(("0", "0.5", "1")),
    default=None,
    help="Credit for the part when accepting (default 1).",
)
@click.option("--reviewer", "reviewer", required=True)
@click.option("--note", "note", default="", help="A note for the appellant.")
@click.option(
    "--remember",
    "remember",
    default=None,
    help="Remember this short wording from the reply as a synonym for the part, in this workspace.",
)
@workspace_option
@database_option
@json_option
def appeals_resolve(
    appeal_id: int,
    accept: bool | None,
    part: str,
    credit: str | None,
    reviewer: str,
    note: str,
    remember: str | None,
    workspace: str,
    database_url: str | None,
    as_json: bool,
) -> None:
    """Rule on one part of an appeal; accepting regrades the attempt (points and boards move)."""
    # start-up time: the drill engine (SQLAlchemy, the generators, the grader) loads only for these commands
    from .drills.appeals import AppealService
    from .local import local_engine

    if accept is None:
        raise click.UsageError("give --accept or --reject")
    name = _user_name(reviewer, "--reviewer")
    platform, external = _workspace(workspace)
    engine, _ = local_engine(database_url, echo_for(as_json))
    service = AppealService(engine)
    try:
        ruling = asyncio.run(
            service.resolve(
                platform,
                external,
                appeal_id,
                accept=accept,
                part=part,
                reviewer=name,
                credit=None if credit is None else float(credit),
                note=note,
                remember=remember,
                told=platform == "terminal",
            )
        )  # the terminal reads it here
    finally:
        engine.db.dispose()
    emit(ruling.as_dict(), as_json, ruling.appellant_text(note))


@appeals.command("export")
@click.option("--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option(
    "--workspace",
    "workspace",
    default=None,
    help="PLATFORM:ID to export one workspace (default: every workspace in the database).",
)
@database_option
def appeals_export(out_file: Path, workspace: str | None, database_url: str | None) -> None:
    """Write accepted appeals as labelled replies in the grader corpus format (JSON lines)."""
    # start-up time: the drill engine (SQLAlchemy, the generators, the grader) loads only for these commands
    from .drills.appeals import AppealService
    from .local import local_engine

    platform, external = _workspace(workspace) if workspace else (None, None)
    engine, _ = local_engine(database_url, lambda text: click.echo(text, err=True))
    try:
        rows = asyncio.run(AppealService(engine).export_rows(platform, external))
    finally:
        engine.db.dispose()
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    with writing(str(out_file)):
        out_file.write_text(body, encoding="utf-8")
    click.echo(f"wrote {len(rows)} labelled repl{'y' if len(rows) == 1 else 'ies'} to {out_file}")


@appeals.command("reviewers")
@click.argument("action", type=click.Choice(("list", "add")))
@click.argument("who", required=False)
@click.option("--group", "is_group", is_flag=True, help="WHO is a group (Slack user group, Discord role id).")
@workspace_option
@database_option
@json_option
def appeals_reviewers(
    action: str, who: str | None, is_group: bool, workspace: str, database_url: str | None, as_json: bool
) -> None:
    """Who may rule besides workspace admins: list, or add a person (platform user id) or --group."""
    # start-up time: the drill engine (SQLAlchemy, the generators, the grader) loads only for these commands
    from .drills.appeals import AppealService
    from .local import local_engine

    platform, external = _workspace(workspace)
    if action == "add" and (not who or not who.strip() or len(who) > 64):
        raise click.BadParameter("give the reviewer's id (1–64 characters)", param_hint="WHO")
    engine, _ = local_engine(database_url, echo_for(as_json))
    service = AppealService(engine)
    try:
        if action == "add":
            assert who is not None
            asyncio.run(service.add_reviewer(platform, external, "group" if is_group else "user", who.strip()))
        rows = asyncio.run(service.reviewers(platform, external))
    finally:
        engine.db.dispose()
    emit(
        [{"kind": r.kind, "id": r.external_id} for r in rows],
        as_json,
        "\n".join(f"{r.kind} {r.external_id}" for r in rows) or "no reviewers set: workspace admins rule",
    )


def register(main: click.Group) -> None:
    drill = main.commands.get("drill")
    if isinstance(drill, click.Group):
        drill.add_command(drill_hint)
    main.add_command(appeal)
    main.add_command(appeals)
