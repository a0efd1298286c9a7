"""Shared fixtures."""

from __future__ import annotations

import gc
import os

import pytest

from bot.scenarios.ids import SIGNATURE_IDS


@pytest.fixture(params=SIGNATURE_IDS)
def signature_id(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    # A worker keeps dozens of drills (hundreds of thousands of events each) in its memo caches, and every full
    # collection walked them all again: at the default thresholds a quarter of the suite's CPU went to the cyclic
    # collector. Young cycles (figures, event loops) are still collected; the old generation is left alone.
    gc.set_threshold(200_000, 50, 1000)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest tests first, one at the head of each worker's share: xdist's work-stealing hands every worker
    one contiguous slice of this list to start with, so long tests bunched at the front would all run on the first
    worker, one after another, while the others stole the rest."""
    long = [item for item in items if item.get_closest_marker("long")]
    rest = [item for item in items if not item.get_closest_marker("long")]
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    ordered: list[pytest.Item] = []
    for w in range(workers):  # the slices xdist cuts: what is left, shared evenly among the workers still to serve
        share = (len(items) - len(ordered)) // (workers - w)
        mine = long[w::workers]
        take = max(0, share - len(mine))
        ordered += mine + rest[:take]
        rest = rest[take:]
    items[:] = ordered + rest


def pytest_report_header(config: pytest.Config) -> str:
    from .dbs import postgres_url

    return postgres_url()[1]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from .dbs import postgres_url

    url, why = postgres_url()
    if url is None:  # after the results too, where nobody can miss it
        terminalreporter.write_line(why, yellow=True, bold=True)


def pytest_sessionfinish(session: pytest.Session) -> None:
    from .dbs import close_databases

    close_databases()


from .dbs import database, empty_database  # noqa: E402,F401  (fixtures)
