"""`tracedrill interview`: a mock interview in the terminal — the same rounds, clock and scores as in chat."""

from __future__ import annotations

import asyncio
import random
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TextIO

from rich.console import Console
from rich.panel import Panel

from ...interview import ROUND_SECONDS, RoundResult, judge, model_answer, plan, scenario_for, summary_lines
from ...interview.session import SEED_RANGE
from ...render.text import render_text
from .answer_input import read_piped, read_with_countdown, stdin_is_terminal


@dataclass(frozen=True, slots=True)
class InterviewOptions:
    user: str
    rounds: int = 3
    seed: int | None = None
    seconds: int = ROUND_SECONDS


def _now() -> datetime:
    return datetime.now(UTC)


async def run_interview(opts: InterviewOptions, console: Console, stdin: TextIO) -> int:
    """Run the rounds; returns the exit code. A piped run reads one answer per round (ended by an empty line)."""
    seed = opts.seed if opts.seed is not None else random.randrange(SEED_RANGE)
    specs = plan(opts.rounds, seed)
    console.print(
        f"Mock interview for {opts.user}: {len(specs)} round(s), {opts.seconds // 60} minutes each "
        f"(seed {seed}). Narrate it the way you would out loud: step → gaps → overlap → top kernels, "
        "quote this trace's numbers, name the lookalike and say why it is not that."
    )
    results: list[RoundResult] = []
    interactive = stdin_is_terminal() and stdin is sys.stdin
    for spec in specs:
        scenario = await asyncio.to_thread(scenario_for, spec)
        console.rule(f"Round {spec.number}/{len(specs)} · {spec.difficulty}")
        timeline = await asyncio.to_thread(render_text, scenario, min(console.width, 140), header=False)
        console.print(timeline, highlight=False, markup=False)
        console.print(Panel("\n".join(scenario.context.lines()), title=scenario.context.title, expand=False))
        console.print(f"Your read ({opts.seconds // 60}:{opts.seconds % 60:02d} on the clock; an empty line submits):")
        started = time.monotonic()
        try:
            if interactive:
                answer = await asyncio.to_thread(read_with_countdown, _now() + timedelta(seconds=opts.seconds), _now)
            else:
                answer = read_piped(stdin)
        except (KeyboardInterrupt, EOFError):
            console.print("\nStopped.")
            break
        result = await asyncio.to_thread(judge, spec, scenario, answer, time.monotonic() - started)
        results.append(result)
        console.print(
            f"Grade {result.grade.score:.0%} · narration {result.narration.score:.0%}"
            + (" · over time, half credit" if result.over_time else "")
        )
        console.print(result.grade.feedback(), markup=False, highlight=False)
        for note in result.narration.notes:
            console.print(f"• {note}", markup=False, highlight=False)
    console.rule("Summary")
    for line in summary_lines(results):
        console.print(line, markup=False, highlight=False)
    for r in results:
        scenario = await asyncio.to_thread(scenario_for, r.spec)
        console.print(
            Panel(model_answer(scenario), title=f"Model answer, round {r.spec.number}: {r.title}", expand=False),
            markup=False,
            highlight=False,
        )
    return 0 if results else 130
