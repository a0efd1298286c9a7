"""The rooms of ../shared/DESIGN.md, enforced on the source.

Every module under bot/ is parsed with `ast` (nothing is imported). Each import — at module level, inside a function
or under `if TYPE_CHECKING:` alike, since all of them tie one module to another — becomes an edge between two modules.
The graph must have no cycle, and every edge between rooms must be one the table below allows.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[1] / "bot"

# Modules anyone may import: they import nothing from bot/ themselves.
LEAVES = frozenset({"cleantext"})

_PURE = frozenset({"scenarios", "render", "grading", "analyze"})  # values in, values out
_SERVICES = frozenset({"drills", "prep", "mathdrill", "interview"})
# An adapter's settings class derives from bot/settings.py's base; never the store, the schedule, the app or another
# adapter.
_ADAPTER = _PURE | _SERVICES | {"settings"}

# room → the rooms it may import, besides itself and LEAVES. A room is a package under bot/ (each adapter is a room of
# its own) or a top-level module; the cli*.py modules and reports.py make up the room "cli".
MAY_IMPORT: dict[str, frozenset[str]] = {
    "scenarios": frozenset(),
    "render": frozenset({"scenarios"}),
    "grading": frozenset({"scenarios"}),
    "analyze": frozenset({"scenarios", "render", "grading"}),
    "store": frozenset(),
    "drills": frozenset({"scenarios", "render", "grading", "analyze", "store"}),
    "mathdrill": frozenset({"scenarios", "drills", "store"}),
    "interview": frozenset({"scenarios", "render", "grading", "drills", "store"}),
    "prep": frozenset({"drills", "mathdrill", "interview", "store"}),
    "schedule": frozenset({"drills", "prep", "mathdrill", "interview"}),
    # What the adapters share (the runner, the replies) may import what an adapter may, never an adapter itself nor a
    # platform library (PLATFORM_LIBRARIES below keeps slack_bolt, slack_sdk and discord out of it).
    "adapters.common": _ADAPTER,
    "adapters.terminal": _ADAPTER | {"adapters.common"},
    "adapters.slack": _ADAPTER | {"adapters.common"},
    "adapters.discord": _ADAPTER | {"adapters.common"},
    "migrations": frozenset({"store"}),
    "health": frozenset({"store"}),
    "settings": frozenset(),
    "local": frozenset({"settings", "store", "drills", "adapters.terminal"}),
}
EVERYTHING = frozenset({"app", "cli"})  # the composition root and the command line may import any room
ROOMS = frozenset(MAY_IMPORT) | EVERYTHING | LEAVES | {"bot"}

# Outside libraries a room may use, where the design restricts them.
LIBRARIES_BESIDES_STDLIB = {"scenarios": frozenset({"numpy", "orjson"})}  # orjson: the export's event lists
PLATFORM_LIBRARIES = {"slack_bolt": "adapters.slack", "slack_sdk": "adapters.slack", "discord": "adapters.discord"}
# Who may talk SQL: the store (every transaction), migrations and health (the schema, a ping), the scheduler
# (APScheduler's job store and the leader's lock connection), Slack's installation store (slack_sdk's own tables) and
# the CLI's error mapping (SQLAlchemy's exception types). Above the store nobody holds a Session or a row.
SQL_ROOMS = frozenset({"store", "migrations", "health", "schedule", "adapters.slack"}) | EVERYTHING
ORM_MODULES = ("bot.store.models", "bot.store.prep_models", "bot.store.repo")


def _module_name(path: Path) -> str:
    parts = path.relative_to(BOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(BOT.rglob("*.py")) if "versions" not in p.parts}


def _target(name: str) -> str:
    """The module an imported name lives in: `bot.a.b.func` → `bot.a.b`."""
    modules = _modules()
    while name not in modules and "." in name:
        name = name.rpartition(".")[0]
    return name


def _imported(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """Absolute names of what `node` imports (a submodule where `from package import sub` names one)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = module if _modules()[module].name == "__init__.py" else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    for alias in node.names:
        yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in _modules() else base


@cache
def _imports() -> dict[str, frozenset[str]]:
    """module → every absolute name it imports (bot modules and outside libraries)."""
    found = {}
    for module, path in _modules().items():
        nodes = ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        found[module] = frozenset(
            name for node in nodes if isinstance(node, ast.Import | ast.ImportFrom) for name in _imported(module, node)
        )
    return found


@cache
def _graph() -> dict[str, frozenset[str]]:
    """module → the bot modules it imports."""
    return {
        module: frozenset(_target(n) for n in names if n.split(".")[0] == "bot") - {module}
        for module, names in _imports().items()
    }


def _room(module: str) -> str:
    parts = module.split(".")[1:]
    if parts[:1] == ["adapters"]:
        return ".".join(parts[:2]) if len(parts) > 1 else "bot"  # bot.adapters itself only holds the rooms
    if not parts:
        return "bot"
    if parts[0].startswith("cli") or parts[0] == "reports":
        return "cli"
    return parts[0]


@cache
def _reachable(module: str) -> frozenset[str]:
    """Every bot module that importing `module` leads to."""
    graph = _graph()
    seen: set[str] = set()
    todo = [module]
    while todo:
        for target in graph[todo.pop()] - seen:
            seen.add(target)
            todo.append(target)
    return frozenset(seen)


def test_every_module_is_in_a_room_of_the_table() -> None:
    assert len(_modules()) > 100
    unknown = sorted(m for m in _modules() if _room(m) not in ROOMS)
    assert not unknown, f"modules in no room of MAY_IMPORT (add the room to the table): {unknown}"


def test_no_import_cycles() -> None:
    on_a_cycle = sorted(f"{a} → {b}" for a, targets in _graph().items() for b in targets if a in _reachable(b))
    assert not on_a_cycle, "imports on a cycle (the target leads back to the importer):\n" + "\n".join(on_a_cycle)


@pytest.mark.parametrize("room", sorted(MAY_IMPORT))
def test_room_imports_only_what_the_table_allows(room: str) -> None:
    allowed = MAY_IMPORT[room] | LEAVES | {room}
    wrong = sorted(
        f"{module} → {target}"
        for module, targets in _graph().items()
        if _room(module) == room
        for target in targets
        if _room(target) not in allowed
    )
    assert not wrong, f"{room} may import only {sorted(allowed)}; it imports:\n" + "\n".join(wrong)


def test_nothing_but_the_composition_root_and_the_cli_imports_app() -> None:
    users = sorted(m for m, targets in _graph().items() if "bot.app" in targets and _room(m) not in EVERYTHING)
    assert not users


def test_leaves_import_nothing_from_bot() -> None:
    assert not {m: sorted(_graph()[m]) for m in (f"bot.{leaf}" for leaf in LEAVES) if _graph()[m]}


@pytest.mark.parametrize("room", sorted(LIBRARIES_BESIDES_STDLIB))
def test_room_uses_only_the_outside_libraries_it_may(room: str) -> None:
    allowed = LIBRARIES_BESIDES_STDLIB[room]
    outside = sorted(
        f"{module} → {name}"
        for module, names in _imports().items()
        if _room(module) == room
        for name in names
        if name.split(".")[0] not in {"bot", *sys.stdlib_module_names, *allowed}
    )
    assert not outside, f"{room} may use the standard library and {sorted(allowed)} only:\n" + "\n".join(outside)


def test_only_each_adapter_imports_its_platform_library() -> None:
    wrong = sorted(
        f"{module} → {name}"
        for module, names in _imports().items()
        for name in names
        if (owner := PLATFORM_LIBRARIES.get(name.split(".")[0])) and _room(module) not in {owner, *EVERYTHING}
    )
    assert not wrong


def test_only_the_store_and_its_neighbours_use_sqlalchemy() -> None:
    wrong = sorted(
        f"{module} → {name}"
        for module, names in _imports().items()
        for name in names
        if name.split(".")[0] == "sqlalchemy" and _room(module) not in SQL_ROOMS
    )
    assert not wrong


def test_nothing_above_the_store_reads_rows() -> None:
    wrong = sorted(
        f"{module} → {target}"
        for module, targets in _graph().items()
        if _room(module) not in {"store", "migrations"}
        for target in targets
        if target in ORM_MODULES
    )
    assert not wrong
