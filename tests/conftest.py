"""Shared fixtures."""

from __future__ import annotations

import os

import pytest

from bot.scenarios.ids import SIGNATURE_IDS


@pytest.fixture(params=SIGNATURE_IDS)
def signature_id(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")


from .dbs import database, empty_database  # noqa: E402,F401  (fixtures)
