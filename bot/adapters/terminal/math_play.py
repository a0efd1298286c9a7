"""Mental math in the terminal (`tracedrill math`, `tracedrill play --math`): a question, 30 seconds, the check."""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from rich.console import Console

from ...drills.ports import ChannelRef, MessageRef, UserRef
from ...mathdrill.answers import CheckResult, UnreadableAnswer, check
from ...mathdrill.ports import MathPost, MathRevealPost
from ...mathdrill.questions import ANSWER_SECONDS, MAX_SEED, Question, question
from ...mathdrill.service import MathService
from .answer_input import stdin_is_terminal
from .chat import PLATFORM, channel_ref, user_ref

# Called after each answered question (e.g. to store points); gets the question, the result and seconds taken.
Recorder = Callable[[Question, CheckResult | None, str, float], Awaitable[int | None]]


@dataclass(frozen=True, slots=True)
class MathOptions:
    kind: str | None = None
    seed: int | None = None
    rounds: int = 1
    seconds: int = ANSWER_SECONDS
    tolerance: float | None = None


def read_line_with_countdown(seconds: int) -> str:
    """One line with the time left in a toolbar; when time runs out whatever was typed is submitted."""
    deadline = time.monotonic() + seconds

    def toolbar() -> str:
        left = deadline - time.monotonic()
        if left <= 0:
            app = get_app()
            if app.is_running and app.future is not None and not app.future.done():
                app.exit(result=app.current_buffer.text)
            return " time is up"
        return f" ⏱ {int(left)} s left · Enter submits · Ctrl-C quits"

    session: PromptSession[str] = PromptSession(bottom_toolbar=toolbar, refresh_interval=0.5)
    return session.prompt("answer> ")


def _read(stdin: TextIO, seconds: int) -> str | None:
    if stdin_is_terminal() and stdin is sys.stdin:
        return read_line_with_countdown(seconds)
    line = stdin.readline()
    return None if line == "" else line.strip()


async def run_math(opts: MathOptions, console: Console, stdin: TextIO, record: Recorder | None = None) -> int:
    """Ask `rounds` questions; returns the exit code (0, or 130 when stopped)."""
    rng = random.Random()
    right = 0
    for n in range(opts.rounds):
        seed = opts.seed + n if opts.seed is not None else rng.randrange(MAX_SEED)
        q = question(opts.kind, min(seed, MAX_SEED))
        console.print(
            f"\n[bold]Q{n + 1}[/bold] ({q.kind}, seed {q.seed}) — {opts.seconds} seconds, ±"
            f"{(opts.tolerance or q.tolerance):.0%}:\n{q.question}"
        )
        started = time.monotonic()
        try:
            text = await asyncio.to_thread(_read, stdin, opts.seconds)
        except (KeyboardInterrupt, EOFError):
            console.print("\nStopped.")
            return 130
        taken = time.monotonic() - started
        if text is None:
            console.print("No answer (end of input).")
            return 0 if n else 1
        result: CheckResult | None
        try:
            result = check(q, text, opts.tolerance)
        except UnreadableAnswer as exc:
            result = None
            console.print(f"✗ {exc}. The answer is {q.answer:,.4g} {q.unit}. {q.explanation}", markup=False)
        late = taken > opts.seconds + 1
        if result is not None:
            right += result.correct
            mark = "✓" if result.correct else "✗"
            console.print(
                f"{mark} {result.explanation}" + (f" (answered after {taken:.0f} s)" if late else ""), markup=False
            )
        if record is not None:
            points = await record(q, result, text, taken)
            if points is not None:
                console.print(f"{points} points")
    if opts.rounds > 1:
        console.print(f"\n{right}/{opts.rounds} right.")
    return 0


class TerminalMathChat:
    """MathChat for `play --math`: the reveal goes to the console; the question is printed by the runner."""

    def __init__(self, console: Console) -> None:
        self.console = console

    async def post_math(self, channel: ChannelRef, post: MathPost) -> MessageRef:
        return MessageRef(channel, f"math-{post.question_id}")

    async def post_math_reveal(self, ref: MessageRef, post: MathRevealPost) -> MessageRef:
        self.console.print(post.text(), markup=False, highlight=False)
        return MessageRef(ref.channel, f"math-{post.question_id}-reveal")

    async def send_private(self, channel: ChannelRef, user: UserRef, text: str) -> None:
        self.console.print(text, markup=False, highlight=False)


async def play_math(
    math: MathService, user: str, kind: str | None, seed: int | None, console: Console, stdin: TextIO, tries: int = 3
) -> int:
    """One question through the same service as chat: stored, pointed, revealed, then the local math board."""
    channel = channel_ref(f"solo-{user}")
    math.chats[PLATFORM] = TerminalMathChat(console)
    started = await math.start(channel, kind=kind, seed=seed)
    q = await math.question_for(user_ref(user), started.id)
    console.print(
        f"Math #{started.id} ({q.kind}) — {math.seconds} seconds, ±{q.tolerance:.0%}:\n{q.question}",
        markup=False,
        highlight=False,
    )
    outcome = None
    for _ in range(tries):  # an unreadable answer is not stored: ask again
        try:
            text = await asyncio.to_thread(_read, stdin, math.seconds)
        except (KeyboardInterrupt, EOFError):
            text = None
        if text is None:
            break
        outcome = await math.answer(started.id, user_ref(user), text)
        console.print(outcome.text, markup=False, highlight=False)
        if outcome.status != "unreadable":
            break
    await math.reveal(started.id, force=True)
    if outcome is not None and outcome.status != "unreadable":
        console.print(f"{'✓' if outcome.correct else '✗'} {outcome.points} points", markup=False)
    console.print(await math.board_text(channel, "all"), markup=False, highlight=False)
    return 0 if outcome is not None else 1
