"""Parsing `/trace …` text into a command (shared by the chat adapters): a table of small parsers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..scenarios.ids import SIGNATURE_IDS
from .periods import PERIODS, Period

USAGE = (
    "*Usage:* `/trace` (a drill now) · `/trace <signature>` (e.g. `/trace straggler`) · `/trace list` · "
    "`/trace leaderboard [week|month|all]` · `/trace stats` · `/trace schedule <days> <HH:MM> [timezone]` "
    "(e.g. `weekdays 09:30 Europe/Berlin`) · `/trace schedule off` · "
    "`/trace group create|join|leave|leaderboard <name>` · `/trace group list` · "
    "`/trace analyze` (reads the newest .json/.json.gz trace you shared in this channel) · "
    "`/trace config` (admins: answer mode, answer time, difficulty, signature mix, schedule) · `/trace help`"
)
_DAYS = {"weekdays": "mon-fri", "daily": "mon-sun", "everyday": "mon-sun", "weekends": "sat,sun"}
_DAY_LIST = re.compile(r"^(mon|tue|wed|thu|fri|sat|sun)([,-](mon|tue|wed|thu|fri|sat|sun))*$")
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


@dataclass(frozen=True, slots=True)
class Command:
    name: str  # drill | list | leaderboard | stats | schedule | schedule_off | group | config | help | usage
    signature: str | None = None
    period: str = Period.WEEK
    weekdays: str = ""
    hour: int = 0
    minute: int = 0
    timezone: str = "UTC"
    group_action: str = ""
    group_name: str = ""
    error: str = ""


def parse(text: str) -> Command:
    words = (text or "").strip().split()
    if not words:
        return Command("drill")
    head, rest = words[0].lower(), words[1:]
    parser = _PARSERS.get(head)
    if parser is not None:
        return parser(rest)
    if head in SIGNATURE_IDS and not rest:
        return Command("drill", signature=head)
    return Command("usage", error=f"I don't know `{_clip(head)}`.")


def _clip(word: str) -> str:
    return word[:40].replace("`", "'")


def _list(rest: list[str]) -> Command:
    return Command("list")


def _help(rest: list[str]) -> Command:
    return Command("help")


def _stats(rest: list[str]) -> Command:
    return Command("stats")


def _leaderboard(rest: list[str]) -> Command:
    period = rest[0].lower() if rest else Period.WEEK
    if period not in PERIODS or len(rest) > 1:
        return Command("usage", error="The leaderboard period is week, month or all.")
    return Command("leaderboard", period=Period(period))


def _schedule(rest: list[str]) -> Command:
    if [w.lower() for w in rest] == ["off"]:
        return Command("schedule_off")
    if len(rest) not in (2, 3):
        return Command("usage", error="Schedule like `/trace schedule weekdays 09:30 Europe/Berlin`.")
    days = _DAYS.get(rest[0].lower(), rest[0].lower())
    if not _DAY_LIST.match(days):
        return Command("usage", error="Days are weekdays, daily, weekends or a list like mon,wed,fri.")
    m = _TIME.match(rest[1])
    if not m:
        return Command("usage", error="Time is HH:MM, 24-hour.")
    tz = rest[2] if len(rest) == 3 else "UTC"
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        return Command("usage", error=f"Unknown timezone `{_clip(tz)}` (use an IANA name like America/New_York).")
    return Command("schedule", weekdays=days, hour=int(m.group(1)), minute=int(m.group(2)), timezone=tz)


def _config(rest: list[str]) -> Command:
    return Command("config") if not rest else Command("usage", error="`/trace config` opens the settings form.")


def _analyze(rest: list[str]) -> Command:
    return Command("analyze") if not rest else Command("usage", error="Share a trace file, then `/trace analyze`.")


def _group(rest: list[str]) -> Command:
    if not rest:
        return Command("usage", error="Try `/trace group list`.")
    action = rest[0].lower()
    if action == "list" and len(rest) == 1:
        return Command("group", group_action="list")
    if action in ("create", "join", "leave", "leaderboard") and len(rest) == 2:
        return Command("group", group_action=action, group_name=rest[1])
    return Command("usage", error="Groups: create|join|leave|leaderboard <name>, or list.")


_PARSERS = {
    "list": _list,
    "help": _help,
    "stats": _stats,
    "leaderboard": _leaderboard,
    "schedule": _schedule,
    "group": _group,
    "analyze": _analyze,
    "config": _config,
}
