"""Does the project's trace reader (bot.analyze) name the injected signature on exports of unseen seeds?"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from contextlib import nullcontext
from pathlib import Path

from ..scenarios.export import export_scenario
from ..scenarios.families import forced_family
from ..scenarios.ids import DIFFICULTIES, SIGNATURE_IDS
from ..scenarios.registry import generate
from .service import analyze_path


def reader_names(signature: str, seed: int, difficulty: str, family: str | None = None) -> str:
    """The reader's top finding on the exported files of one drill (drawn into `family` where it can be)."""
    with tempfile.TemporaryDirectory() as tmp:
        with forced_family(family) if family else nullcontext():
            scenario = generate(signature, seed, difficulty)
        export_scenario(scenario, Path(tmp))
        return analyze_path(Path(tmp)).signature


def agreement(
    seeds: Iterable[int],
    signatures: Iterable[str] = SIGNATURE_IDS,
    difficulties: Iterable[str] = DIFFICULTIES,
    family: str | None = None,
) -> dict[str, list[tuple[int, str, str]]]:
    """Per signature, every (seed, difficulty, what the reader named)."""
    seeds = list(seeds)
    difficulties = list(difficulties)
    return {
        sig: [(seed, d, reader_names(sig, seed, d, family)) for seed in seeds for d in difficulties]
        for sig in signatures
    }
