"""Adaptive choice of the next drill: weak signatures more often, twins and healthy always in rotation,
no signature within the last three drills, and a seed the channel has never seen."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Mapping
from datetime import date, datetime

from ..scenarios.ids import SIGNATURE_IDS, TWINS

RECENT_BLOCK = 3  # a signature does not come back within this many drills
ROTATION_WINDOW = 6  # healthy and the twins are boosted if absent this long
MAX_SEED_DRAW = 2**31 - 1


def choose_signature(
    rng: random.Random,
    recent: list[str],
    accuracy: Mapping[str, tuple[float, int]],
    mix: Iterable[str] | None = None,
) -> str:
    """`recent`: signatures of the latest drills, newest first. `accuracy`: mean score and count per signature."""
    candidates = [s for s in (mix or SIGNATURE_IDS) if s in SIGNATURE_IDS] or list(SIGNATURE_IDS)
    blocked = set(recent[:RECENT_BLOCK])
    allowed = [s for s in candidates if s not in blocked] or [s for s in candidates if s != (recent or [""])[0]]
    allowed = allowed or candidates
    in_rotation = {"healthy", *TWINS}
    recent_window = set(recent[:ROTATION_WINDOW])
    weights = []
    for s in allowed:
        mean, n = accuracy.get(s, (0.5, 0))
        weight = 0.5 + 4.0 * (1.0 - mean) if n else 2.5  # unseen or weak signatures come up more
        if s in in_rotation and s not in recent_window:
            weight *= 2.0
        weights.append(weight)
    return rng.choices(allowed, weights=weights, k=1)[0]


def daily_seed(day: date, signature: str, difficulty: str) -> int:
    """The drill of the day: every channel that draws this signature today shares one trace (and one
    picture, drawn once for all of them)."""
    digest = hashlib.sha256(f"{day.isoformat()}/{signature}/{difficulty}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & MAX_SEED_DRAW


def choose_seed(rng: random.Random, used: set[int]) -> int:
    while True:
        seed = rng.randint(0, MAX_SEED_DRAW)
        if seed not in used:
            return seed


class AdaptivePicker:
    """The store's Picker: adaptive signatures, and the drill of the day for scheduled drills (unless this
    channel has had that seed), else a seed the channel has never seen."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def signature(self, recent: list[str], accuracy: Mapping[str, tuple[float, int]], mix: list[str] | None) -> str:
        return choose_signature(self.rng, recent, accuracy, mix)

    def seed(self, used: set[int], signature: str, difficulty: str, scheduled: bool, now: datetime) -> int:
        today = daily_seed(now.date(), signature, difficulty) if scheduled else None
        return today if today is not None and today not in used else choose_seed(self.rng, used)
