"""The `tracedrill` command.

Heavy modules (numpy's generators, matplotlib, SQLAlchemy, pydantic, Slack and Discord) are imported inside the
commands that use them, so `tracedrill --help` and the light commands start fast. Errors are mapped once, by
FriendlyGroup (cli_errors.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from pathlib import Path
from typing import TextIO

import click

from .cleantext import clean_name
from .cli_appeals import register as register_appeals
from .cli_discord import register as register_discord
from .cli_errors import FriendlyGroup, writing
from .cli_math import play_math
from .cli_math import register as register_interview_prep
from .cli_ops import register as register_operations
from .scenarios.ids import DIFFICULTIES, MAX_SEED, SIGNATURE_IDS

signature_option = click.option(
    "--signature", "signature", type=click.Choice(SIGNATURE_IDS), required=True, help="Signature id."
)
seed_option = click.option("--seed", type=click.IntRange(0, MAX_SEED), required=True, help="Scenario seed.")
difficulty_option = click.option("--difficulty", type=click.Choice(DIFFICULTIES), default="medium", show_default=True)


@click.group(cls=FriendlyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tracedrill")
def main() -> None:
    """Drill GPU performance-trace reading: synthetic traces, a grader, and chat bots."""


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def scenarios(as_json: bool) -> None:
    """List the ten signatures with a one-line description."""
    from .scenarios.registry import all_signatures  # start-up time: loads every generator

    rows = [{"id": s.id, "title": s.title, "summary": s.summary, "twin": s.twin} for s in all_signatures()]
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    width = max(len(str(r["id"])) for r in rows)
    for r in rows:
        click.echo(f"{r['id']:<{width}}  {r['summary']}")


@main.command()
@signature_option
@seed_option
@difficulty_option
def show(signature: str, seed: int, difficulty: str) -> None:
    """Print a scenario's context and its full reveal."""
    from .scenarios.registry import generate  # start-up time: loads every generator

    scenario = generate(signature, seed, difficulty)
    click.echo(scenario.context.title)
    for line in scenario.context.lines():
        click.echo(f"  {line}")
    click.echo("")
    click.echo(scenario.reveal.as_text())


@main.command()
@signature_option
@seed_option
@difficulty_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True)
def export(signature: str, seed: int, difficulty: str, out_dir: Path) -> None:
    """Write rank-<r>.json Kineto traces and scenario.json to a folder."""
    # start-up time: the generators and the exporter load only for this command
    from .scenarios.export import export_scenario
    from .scenarios.registry import generate

    with writing(f"to {out_dir}"):
        written = export_scenario(generate(signature, seed, difficulty), out_dir)
    for path in written:
        click.echo(str(path))


@main.command()
@signature_option
@seed_option
@difficulty_option
@click.option("--reveal", is_flag=True, help="Draw the annotated reveal picture instead of the drill.")
@click.option("--theme", type=click.Choice(("light", "dark")), default="light", show_default=True)
@click.option("--format", "fmt", type=click.Choice(("png", "text")), default="png", show_default=True)
@click.option(
    "--width", type=click.IntRange(50, 400), default=100, show_default=True, help="Columns for --format text."
)
@click.option("--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), required=True)
def render(
    signature: str, seed: int, difficulty: str, reveal: bool, theme: str, fmt: str, width: int, out_file: Path
) -> None:
    """Draw a scenario as a PNG timeline (or a Unicode text timeline) into a file."""
    # start-up time: the generators (numpy) and the renderers load only for this command
    from .render.text import render_text
    from .scenarios.registry import generate

    scenario = generate(signature, seed, difficulty)
    with writing(str(out_file)):
        if fmt == "png":
            from .render.png import render_png  # matplotlib: only when a PNG is asked for

            out_file.write_bytes(render_png(scenario, theme_name=theme, reveal=reveal))
        else:
            text = render_text(scenario, width) + ("\n\n" + scenario.reveal.as_text() if reveal else "")
            out_file.write_text(text + "\n", encoding="utf-8")
    click.echo(str(out_file))


@main.command(name="grade")
@click.option("--signature", "signature", type=click.Choice(SIGNATURE_IDS), help="The true signature.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), help="Grade against this scenario's own figures.")
@difficulty_option
@click.option(
    "--batch",
    "batch",
    type=click.File("r", encoding="utf-8", errors="replace"),
    help="JSON lines {signature, answer, seed?, difficulty?}; '-' for stdin.",
)
@click.option("--human", is_flag=True, help="Print the feedback table instead of JSON.")
@click.option("--explain", is_flag=True, help="Print the grade and which concepts and rules matched where.")
@click.argument("answer", required=False)
def grade_command(
    signature: str | None,
    seed: int | None,
    difficulty: str,
    batch: TextIO | None,
    human: bool,
    explain: bool,
    answer: str | None,
) -> None:
    """Grade a free-text diagnosis (or a batch of them) and print JSON."""
    # start-up time: the rubrics, the matcher and the generators load only for this command
    from .grading.batch import grade_lines, grade_one
    from .grading.explain import explain as explain_grade

    if batch is not None:
        # One buffered write per line, flushed at the end (click.echo flushes every line: a syscall per reply).
        out = sys.stdout
        for row in grade_lines(batch):
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        out.flush()
        return
    if signature is None:
        raise click.UsageError("give --signature ID and an answer, or --batch FILE")
    if answer is None or answer == "-":
        answer = sys.stdin.read()
    if explain:
        click.echo(explain_grade(signature, answer))
        return
    result = grade_one(signature, answer, seed, difficulty)
    click.echo(result.feedback() if human else json.dumps(result.as_dict(), ensure_ascii=False))


@main.command()
@click.option("--signature", type=click.Choice(SIGNATURE_IDS), default=None, help="Drill this signature.")
@click.option("--difficulty", type=click.Choice(DIFFICULTIES), default=None)
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=None)
@click.option("--minutes", type=click.FloatRange(0.5, 60), default=2.0, show_default=True)
@click.option("--no-timer", is_flag=True, help="No countdown and no deadline.")
@click.option("--user", "user", default=None, help="Your name on the leaderboard (default: $USER).")
@click.option("--open", "open_picture", is_flag=True, help="Open the picture in the system viewer.")
@click.option(
    "--from-trace",
    "from_trace",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Drill on your own Kineto trace (.json / .json.gz) instead of a synthetic one.",
)
@click.option("--math", "math_drill", is_flag=True, help="A 30-second mental-math question instead of a trace.")
@click.option("--database-url", envvar="DATABASE_URL", default=None)
def play(
    signature: str | None,
    difficulty: str | None,
    seed: int | None,
    minutes: float,
    no_timer: bool,
    user: str | None,
    open_picture: bool,
    from_trace: Path | None,
    math_drill: bool,
    database_url: str | None,
) -> None:
    """Solo practice: one drill, your diagnosis, the grade and the full reveal."""
    if math_drill:
        sys.exit(play_math(seed, user, database_url))
    # start-up time: the drill engine (SQLAlchemy, the generators, the grader) loads only for this command
    from rich.console import Console

    from .adapters.terminal.play import PlayOptions, default_user
    from .adapters.terminal.play import play as run_play
    from .local import local_engine

    name = clean_name(user or default_user())
    if not name or len(name) > 64:
        raise click.BadParameter("give a name of 1–64 characters", param_hint="--user")
    engine, chat = local_engine(database_url, lambda text: None)
    opts = PlayOptions(name, signature, difficulty, seed, minutes, not no_timer, open_picture, from_trace)
    if not sys.stdin.isatty() and hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")  # piped binary: U+FFFD, not a UnicodeDecodeError mid-drill
    try:
        code = asyncio.run(run_play(engine, chat, opts, Console(highlight=False), sys.stdin))
    finally:
        engine.db.dispose()
    sys.exit(code)


@main.command()
@click.option(
    "--platform",
    "platforms",
    default=None,
    help="Comma-separated chat platforms: slack, discord, or slack,discord.  [env: TRACEDRILL_PLATFORM; "
    "default: slack]",
)
@click.option(
    "--http/--socket-mode",
    "http",
    default=None,
    help="Slack: serve HTTP (/slack/events) or use Socket Mode.  [default: HTTP when TRACEDRILL_HTTP_PORT is set]",
)
@click.option("--host", default=None, help="Address to listen on.  [env: TRACEDRILL_HOST; default: 0.0.0.0]")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Slack HTTP port (implies --http).  [env: TRACEDRILL_HTTP_PORT; default: 3000]",
)
@click.option(
    "--health-port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Serve /healthz and /readyz on this port too.  [env: TRACEDRILL_HEALTH_PORT]",
)
def serve(
    platforms: str | None, http: bool | None, host: str | None, port: int | None, health_port: int | None
) -> None:
    """Run the bot: scheduler, drills and the chat adapters (configured by environment variables)."""
    # start-up time: the whole application (Slack, Discord, the scheduler, the store) loads only to serve
    from .app import plan_serve
    from .app import serve as run_serve
    from .grading.matcher import engine
    from .settings import ServeSettings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    engine()  # compile the rubrics once at start-up, before any answer arrives (and fail here if one is broken)
    settings = ServeSettings(platform=platforms) if platforms else ServeSettings()  # the flag wins, checked alike
    plan = plan_serve(settings, http=http, host=host, port=port, health_port=health_port)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is how a terminal stops the bot
        asyncio.run(run_serve(plan))


@main.command()
def healthcheck() -> None:
    """Exit 0 if this machine's bot answers /healthz (for Docker's HEALTHCHECK); reads TRACEDRILL_*_PORT."""
    # start-up time: pydantic and urllib's HTTP client load only for this command
    import urllib.request

    from .settings import ServeSettings

    settings = ServeSettings()
    port = settings.health_port or settings.http_port
    if port is None:
        raise click.ClickException("set TRACEDRILL_HEALTH_PORT or TRACEDRILL_HTTP_PORT")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=3) as response:
            click.echo(response.read().decode("utf-8", "replace"))
    except OSError as exc:
        raise click.ClickException(f"no answer on port {port}: {exc}") from exc


@main.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the figures and findings as JSON.")
@click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also draw the trace (a representative stretch, annotated) to this PNG.",
)
def analyze(path: Path, as_json: bool, out_file: Path | None) -> None:
    """Run the reading order on a Kineto / Chrome trace (file, .json.gz, or a folder of rank files)."""
    from .analyze.bounded import analyze_file  # start-up time: the analyzer loads only for this command

    # in a worker process with memory / CPU / time limits: the file may be hostile
    result = analyze_file(path, picture=out_file is not None)
    if out_file is not None and result.png is not None:
        with writing(str(out_file)):
            out_file.write_bytes(result.png)
    click.echo(json.dumps(result.json, ensure_ascii=False) if as_json else result.text)


register_operations(main)
register_appeals(main)
register_interview_prep(main)
register_discord(main)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
