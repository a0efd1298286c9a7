"""Does the project's trace reader (bot.analyze) name the injected signature on exports of unseen seeds?"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..scenarios.export import export_scenario
from ..scenarios.ids import DIFFICULTIES, SIGNATURE_IDS
from ..scenarios.registry import generate
from .service import analyze_path


def reader_names(signature: str, seed: int, difficulty: str) -> str:
    """The reader's top finding on the exported files of one drill."""
    with tempfile.TemporaryDirectory() as tmp:
        export_scenario(generate(signature, seed, difficulty), Path(tmp))
        return analyze_path(Path(tmp)).signature


def agreement(
    seeds: Iterable[int], signatures: Iterable[str] = SIGNATURE_IDS, difficulties: Iterable[str] = DIFFICULTIES
) -> dict[str, list[tuple[int, str, str]]]:
    """Per signature, every (seed, difficulty, what the reader named)."""
    seeds = list(seeds)
    difficulties = list(difficulties)
    return {sig: [(seed, d, reader_names(sig, seed, d)) for seed in seeds for d in difficulties] for sig in signatures}
