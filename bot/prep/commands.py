"""Parsing `/trace math …` and `/trace interview …` (the rest of `/trace` is bot.drills.commands)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..drills.commands import parse as parse_drill_command
from ..drills.periods import PERIODS
from ..interview.session import MAX_ROUNDS
from ..mathdrill.questions import KINDS

PREP_WORDS = ("math", "interview")
USAGE = (
    "*Interview prep:* `/trace math` (a 30-second question) · `/trace math <kind>` ("
    + ", ".join(KINDS)
    + ") · `/trace math leaderboard [week|month|all]` · `/trace math schedule <days> <HH:MM> [timezone]` · "
    "`/trace math schedule off` · `/trace interview [rounds]` (a mock interview, 5 minutes a round) · "
    "`/trace interview resume` · `/trace interview schedule [group <name>] <days> <HH:MM> [timezone]` · "
    "`/trace interview schedule off`"
)


class PrepAction(StrEnum):
    MATH = "math"
    MATH_BOARD = "math_board"
    INTERVIEW = "interview"
    INTERVIEW_RESUME = "interview_resume"
    SCHEDULE = "schedule"
    SCHEDULE_OFF = "schedule_off"
    USAGE = "usage"  # not understood: `error` says why


@dataclass(frozen=True, slots=True)
class PrepCommand:
    name: PrepAction
    target: str = ""  # math | interview (schedules)
    kind: str | None = None
    period: str = "week"
    rounds: int = 3
    group: str = ""
    weekdays: str = ""
    hour: int = 0
    minute: int = 0
    timezone: str = "UTC"
    error: str = ""


def is_prep(text: str) -> bool:
    words = (text or "").strip().split()
    return bool(words) and words[0].lower() in PREP_WORDS


def parse_prep(text: str) -> PrepCommand:
    words = (text or "").strip().split()
    if not words or words[0].lower() not in PREP_WORDS:
        return PrepCommand(PrepAction.USAGE, error="Not an interview-prep command.")
    head, rest = words[0].lower(), words[1:]
    low = [w.lower() for w in rest]
    if low[:1] == ["schedule"]:
        return _schedule(head, rest[1:])
    if head == "math":
        if not rest:
            return PrepCommand(PrepAction.MATH)
        if low[0] in ("leaderboard", "board"):
            period = low[1] if len(low) > 1 else "week"
            if period not in PERIODS or len(low) > 2:
                return PrepCommand(PrepAction.USAGE, error="The math leaderboard period is week, month or all.")
            return PrepCommand(PrepAction.MATH_BOARD, period=period)
        if low[0] in KINDS and len(low) == 1:
            return PrepCommand(PrepAction.MATH, kind=low[0])
        return PrepCommand(PrepAction.USAGE, error=f"I don't know math `{_clip(rest[0])}`.")
    if not rest:
        return PrepCommand(PrepAction.INTERVIEW)
    if low == ["resume"]:
        return PrepCommand(PrepAction.INTERVIEW_RESUME)
    if len(rest) == 1 and rest[0].isdigit() and 1 <= int(rest[0]) <= MAX_ROUNDS:
        return PrepCommand(PrepAction.INTERVIEW, rounds=int(rest[0]))
    return PrepCommand(PrepAction.USAGE, error=f"An interview has 1 to {MAX_ROUNDS} rounds, e.g. `/trace interview 3`.")


def _schedule(target: str, rest: list[str]) -> PrepCommand:
    if [w.lower() for w in rest] == ["off"]:
        return PrepCommand(PrepAction.SCHEDULE_OFF, target=target)
    group = ""
    if target == "interview" and len(rest) >= 2 and rest[0].lower() == "group":
        group, rest = rest[1][:64], rest[2:]
    cmd = parse_drill_command(" ".join(["schedule", *rest]))  # the same days/time/timezone grammar as drills
    if cmd.name != "schedule":
        return PrepCommand(PrepAction.USAGE, error=cmd.error or "Schedule like `weekdays 09:30 Europe/Berlin`.")
    return PrepCommand(
        PrepAction.SCHEDULE,
        target=target,
        group=group,
        weekdays=cmd.weekdays,
        hour=cmd.hour,
        minute=cmd.minute,
        timezone=cmd.timezone,
    )


def _clip(word: str) -> str:
    return word[:40].replace("`", "'")
