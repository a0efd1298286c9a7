"""The ten signatures, by id."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module

import numpy as np

from .common import make_rng
from .families import HOSTS, forced_family
from .ids import DIFFICULTIES, MAX_SEED, SIGNATURE_IDS
from .model import Scenario


@dataclass(frozen=True, slots=True)
class SignatureInfo:
    id: str
    title: str
    summary: str
    twin: str | None
    generate: Callable[[np.random.Generator, str, int], Scenario]


def signature(signature_id: str) -> SignatureInfo:
    if signature_id not in SIGNATURE_IDS:
        raise UnknownSignatureError(signature_id)
    mod = import_module(f"{__package__}.signatures.{signature_id}")
    return SignatureInfo(mod.ID, mod.TITLE, mod.SUMMARY, mod.TWIN, mod.generate)


def all_signatures() -> list[SignatureInfo]:
    return [signature(s) for s in SIGNATURE_IDS]


class UnknownSignatureError(ValueError):
    def __init__(self, value: str) -> None:
        super().__init__(f"unknown signature {value!r}; choose one of: {', '.join(SIGNATURE_IDS)}")


class UnknownDifficultyError(ValueError):
    def __init__(self, value: str) -> None:
        super().__init__(f"unknown difficulty {value!r}; choose one of: {', '.join(DIFFICULTIES)}")


def generate(signature_id: str, seed: int, difficulty: str = "medium") -> Scenario:
    """Build the scenario fixed by (signature, seed, difficulty); the same triple gives the same trace."""
    info = signature(signature_id)
    if difficulty not in DIFFICULTIES:
        raise UnknownDifficultyError(difficulty)
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be between 0 and {MAX_SEED}, got {seed}")
    with _collector_paused():
        return info.generate(make_rng(signature_id, seed, difficulty), difficulty, seed)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """A drill allocates hundreds of thousands of events, none of them garbage until it is built, and the cyclic
    collector would walk them all again at every full pass: pause it while building (cycles made meanwhile are
    collected after). Left off if it was off at entry (a caller's choice, or another drill under way)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def generate_in_family(signature_id: str, family: str, seed: int, difficulty: str = "medium") -> Scenario:
    """The drill of (signature, seed, difficulty) forced into one of the signature's families, to measure a family
    on its own; where the seed draws that family anyway, the same drill as `generate`."""
    if family not in {f for f, _ in HOSTS[signature(signature_id).id]}:
        raise ValueError(f"{signature_id} is not hosted by {family!r}")
    with forced_family(family):
        return generate(signature_id, seed, difficulty)
