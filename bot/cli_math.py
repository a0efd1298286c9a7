"""`tracedrill math` and `tracedrill interview`: interview prep, registered on the main command group."""

from __future__ import annotations

import asyncio
import json
import random
import sys

import click

from .mathdrill.answers import UnreadableAnswer, check
from .mathdrill.questions import KINDS, MAX_SEED, question


@click.command(name="math")
@click.option("--kind", type=click.Choice(KINDS), default=None, help="Question kind (default: the seed picks).")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=None, help="Fixes the question.")
@click.option("--json", "as_json", is_flag=True, help="Print the question as JSON instead of asking it.")
@click.option(
    "--check",
    "check_value",
    default=None,
    metavar="VALUE",
    help="Judge VALUE against the question fixed by --kind/--seed; prints JSON.",
)
@click.option(
    "--tolerance",
    type=click.FloatRange(0.0, 1.0, min_open=True),
    default=None,
    help="Relative tolerance for --check and answers (default 0.05 = ±5%).",
)
@click.option(
    "--rounds", type=click.IntRange(1, 100), default=1, show_default=True, help="Interactive: how many questions."
)
def math_command(
    kind: str | None, seed: int | None, as_json: bool, check_value: str | None, tolerance: float | None, rounds: int
) -> None:
    """Thirty-second mental math: busbw, bubble, ridge, MFU, intensity, KV cache, ITL floor, all-gather…"""
    if check_value is not None:
        if seed is None:
            raise click.UsageError("--check needs the --seed (and --kind) of the question it answers")
        q = question(kind, seed)
        try:
            result = check(q, check_value, tolerance)
        except UnreadableAnswer as exc:
            raise click.BadParameter(str(exc), param_hint="--check") from None
        click.echo(json.dumps(result.as_json(), ensure_ascii=False))
        return
    if as_json:
        q = question(kind, seed if seed is not None else random.randrange(MAX_SEED))
        data = q.as_json()
        if tolerance is not None:
            data["tolerance"] = tolerance
        click.echo(json.dumps(data, ensure_ascii=False))
        return
    # start-up time: rich and the terminal front end load only for the interactive questions
    from rich.console import Console

    from .adapters.terminal.math_play import MathOptions, run_math

    opts = MathOptions(kind, seed, rounds, tolerance=tolerance)
    sys.exit(asyncio.run(run_math(opts, Console(highlight=False), sys.stdin)))


@click.command()
@click.option(
    "--rounds", type=click.IntRange(1, 10), default=3, show_default=True, help="Drills, rising from easy to hard."
)
@click.option("--user", "user", default=None, help="Your name (default: $USER).")
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=None, help="Fixes the rounds.")
def interview(rounds: int, user: str | None, seed: int | None) -> None:
    """A mock interview: drills of rising difficulty, 5 minutes each, graded plus a narration score, then a
    summary and the model spoken answer for each drill. Piped input: one answer per round, blank-line separated."""
    # start-up time: the interview front end (the grader, the generators) loads only for this command
    from rich.console import Console

    from .adapters.terminal.interview import InterviewOptions, run_interview
    from .adapters.terminal.play import default_user

    name = (user or default_user()).strip()
    if not name or len(name) > 64:
        raise click.BadParameter("give a name of 1–64 characters", param_hint="--user")
    opts = InterviewOptions(name, rounds, seed)
    sys.exit(asyncio.run(run_interview(opts, Console(highlight=False), sys.stdin)))


def play_math(seed: int | None, user: str | None, database_url: str | None) -> int:
    """`tracedrill play --math`: one question, stored with its points on the local math board."""
    # start-up time: the store (SQLAlchemy) and the prep services load only for this command
    from rich.console import Console

    from .adapters.terminal.math_play import play_math as run
    from .adapters.terminal.play import default_user
    from .local import local_engine
    from .mathdrill.service import SEED_RANGE
    from .prep.root import build_prep

    name = (user or default_user()).strip()
    if not name or len(name) > 64:
        raise click.BadParameter("give a name of 1–64 characters", param_hint="--user")
    if seed is not None and seed >= SEED_RANGE:
        raise click.BadParameter(f"math seeds are below {SEED_RANGE}", param_hint="--seed")
    engine, _ = local_engine(database_url, lambda text: None)
    try:
        prep = build_prep(engine)
        return asyncio.run(run(prep.math, name, None, seed, Console(highlight=False), sys.stdin))
    finally:
        engine.db.dispose()


def register(group: click.Group) -> None:
    group.add_command(math_command)
    group.add_command(interview)
