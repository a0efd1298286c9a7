"""The rooms of the drill core (issue 20): the scheduler reaches the database only through the drill core, and
the core's lifecycle, boards, stats, groups and home run no queries of their own — every transaction is a
store call."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[1] / "bot"
# The drill core's modules that hold no transaction (appeals, hints and prep move onto the store separately).
STORE_FREE = [
    "drills/engine.py",
    "drills/service.py",
    "drills/leaderboard.py",
    "drills/stats.py",
    "drills/groups.py",
    "drills/home.py",
    "drills/reveal.py",
    "drills/calendar.py",
    "drills/scenarios.py",
    "reports.py",
]


def imports(path: Path) -> set[str]:
    """Every module a file imports, resolved to an absolute name."""
    package = ".".join(("bot", *path.relative_to(BOT).parent.parts))
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def test_the_scheduler_imports_no_store_module() -> None:
    for path in (BOT / "schedule").glob("*.py"):
        assert not {m for m in imports(path) if m.startswith("bot.store")}, f"schedule/{path.name} imports bot.store"


def test_the_drill_core_runs_no_queries_of_its_own() -> None:
    for name in STORE_FREE:
        used = imports(BOT / name)
        assert not {m for m in used if m.startswith("sqlalchemy")}, f"{name} imports SQLAlchemy"
        assert not {m for m in used if m.startswith(("bot.store.models", "bot.store.repo"))}, f"{name} reads rows"
