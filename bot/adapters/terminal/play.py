"""`tracedrill play`: one solo drill in the terminal, through the same engine as the chat bots."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from ...drills.engine import Drills, StartedDrill, SubmitOutcome
from ...drills.errors import DrillError
from ...drills.hint_service import HintService
from ...drills.hints import HINT_COSTS
from ...drills.ports import ChannelRef
from ...grading import Grade
from ...render.text import render_text
from ...scenarios.model import Scenario
from .answer_input import read_piped, read_with_countdown, stdin_is_terminal
from .chat import TerminalChat, channel_ref, user_ref

NO_TIMER_SECONDS = 24 * 3600


@dataclass(frozen=True, slots=True)
class PlayOptions:
    user: str
    signature: str | None = None
    difficulty: str | None = None
    seed: int | None = None
    minutes: float = 2.0
    timer: bool = True
    open_picture: bool = False
    trace: Path | None = None  # drill on this real trace instead of a synthetic one


def default_user() -> str:
    return (os.environ.get("USER") or os.environ.get("USERNAME") or "you")[:64]


async def play(engine: Drills, chat: TerminalChat, opts: PlayOptions, console: Console, stdin: TextIO) -> int:
    """Run one drill; returns the process exit code."""
    channel = channel_ref(f"solo-{opts.user}")
    started = await _start(engine, channel, opts)
    scenario = await asyncio.to_thread(engine.scenario_of, started)
    _show(console, scenario, started.message.message if started.message else "", opts)
    try:
        answer = await _read_answer(engine, started, opts, console, stdin)
    except (KeyboardInterrupt, EOFError):
        await engine.abandon(started.id, channel)
        console.print("\nStopped. Nothing was stored.")
        return 130
    try:
        outcome = await engine.submit(started.id, user_ref(opts.user), answer)
    except BaseException:
        await engine.abandon(started.id, channel)  # no answer stored: no unanswered drill left behind either
        raise
    _print_grade(console, outcome)
    await engine.reveal(started.id, force=True)
    console.print(Panel(scenario.reveal.as_text(), title="Reveal", expand=False))
    reveal_path = chat.out_dir / f"drill-{started.id}-reveal.png"
    console.print(f"Annotated picture: {reveal_path}")
    console.print(f"Your history: tracedrill stats --user {opts.user}")
    return 0


async def _start(engine: Drills, channel: ChannelRef, opts: PlayOptions) -> StartedDrill:
    seconds = int(opts.minutes * 60) if opts.timer else NO_TIMER_SECONDS
    trace_id = None
    if opts.trace is not None:
        data = await asyncio.to_thread(opts.trace.read_bytes)
        trace_id = (await engine.store_trace(channel, opts.trace.name, data)).id
    return await engine.start(
        channel,
        signature=opts.signature,
        seed=opts.seed,
        difficulty=opts.difficulty,
        duration_seconds=max(10, seconds),
        trace_id=trace_id,
        solo=True,
        speed_bonus=opts.timer,
    )


def _show(console: Console, scenario: Scenario, picture: str, opts: PlayOptions) -> None:
    console.print(render_text(scenario, min(console.width, 140), header=False), highlight=False, markup=False)
    console.print(Panel("\n".join(scenario.context.lines()), title=scenario.context.title, expand=False))
    console.print(f"Picture: {picture}")
    if opts.open_picture:
        _open(picture, console)
    timer_text = f"{opts.minutes:g} minutes" if opts.timer else "no timer"
    console.print(
        f"Read it in order — step → gaps → overlap → top kernels — then type your diagnosis "
        f"({timer_text}; an empty line submits; a line with just h asks for a hint, "
        f"−{HINT_COSTS[0]} then −{HINT_COSTS[1]} points)."
    )


async def _read_answer(
    engine: Drills, started: StartedDrill, opts: PlayOptions, console: Console, stdin: TextIO
) -> str:
    """The typed answer; a first line of just "h" asks for a hint (and the answer may follow it)."""
    hints = HintService(engine)
    while True:
        if stdin_is_terminal() and stdin is sys.stdin:
            answer = await asyncio.to_thread(
                read_with_countdown, started.deadline if opts.timer else None, engine.clock
            )
        else:
            answer = read_piped(stdin)
        wants_hint, answer = _hint_request(answer)
        if not wants_hint:
            return answer
        try:
            given = await hints.hint(started.id, user_ref(opts.user))
            console.print(given.private_text(), highlight=False, markup=False)
        except DrillError as exc:
            console.print(str(exc), highlight=False, markup=False)
        if answer.strip():
            return answer


def _hint_request(answer: str) -> tuple[bool, str]:
    """A first line that is just "h" asks for a hint; anything typed after it is still the answer."""
    first, _, rest = answer.partition("\n")
    if first.strip().lower() == "h":
        return True, rest
    return False, answer


def _print_grade(console: Console, outcome: SubmitOutcome) -> None:
    g: Grade = outcome.grade
    table = Table(
        title=f"Your grade: {round(100 * g.score)}/100 · {outcome.points} points"
        + (" · late, not scored" if outcome.late else ""),
        show_lines=False,
    )
    table.add_column("")
    table.add_column("Part")
    table.add_column("What earned it — or what would have")
    for name, part in g.parts():
        mark = {1.0: "✓", 0.5: "~"}.get(part.credit, "✗")
        detail = f"“{part.evidence}”" if part.credit > 0 and part.evidence else part.hint
        if part.note:
            detail += f" ({part.note})"
        table.add_row(mark, name, detail)
    console.print(table)
    for note in g.notes:
        console.print(f"• {note}")


def _open(path: str, console: Console) -> None:
    opener = "open" if sys.platform == "darwin" else "xdg-open"
    if shutil.which(opener) is None:
        console.print(f"(no {opener} here; open {path} yourself)")
        return
    subprocess.Popen([opener, path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
