"""Reading a multi-line diagnosis: with a live countdown on a terminal, plainly from a pipe."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent


def read_piped(stream: TextIO) -> str:
    """Lines until an empty line or end of input."""
    lines: list[str] = []
    for line in stream:
        if not line.strip():
            if lines:
                break
            continue
        lines.append(line.rstrip("\n"))
    return "\n".join(lines)


def read_with_countdown(deadline: datetime | None, clock: Callable[[], datetime]) -> str:
    """Multi-line editing with the time left in a toolbar. Enter on an empty line (or Esc-Enter, or Ctrl-D)
    submits; when time runs out, whatever was typed is submitted. Ctrl-C raises KeyboardInterrupt."""
    bindings = KeyBindings()

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        hint = buf.text.strip().lower() == "h"  # a hint request: no second Enter needed
        if hint or (buf.document.current_line.strip() == "" and buf.text.strip()):
            event.app.exit(result=buf.text)
        else:
            buf.insert_text("\n")

    @bindings.add("c-d")
    def _eof(event: KeyPressEvent) -> None:
        event.app.exit(result=event.current_buffer.text)

    def toolbar() -> str:
        if deadline is None:
            return " no timer · empty line to submit · Ctrl-C to quit"
        left = (deadline - clock()).total_seconds()
        if left <= 0:
            app = get_app()
            if app.is_running and app.future is not None and not app.future.done():
                app.exit(result=app.current_buffer.text)
            return " time is up"
        return f" ⏱ {int(left) // 60}:{int(left) % 60:02d} left · empty line to submit · Ctrl-C to quit"

    session: PromptSession[str] = PromptSession(
        multiline=True, key_bindings=bindings, bottom_toolbar=toolbar, refresh_interval=0.5
    )
    return session.prompt("diagnosis> ", prompt_continuation=lambda width, n, soft: " " * (width - 2) + "> ")


def stdin_is_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()
