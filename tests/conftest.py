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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests first (a stable sort): a worker that drew one near the end would finish alone."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


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
