"""Reader agreement and kernel counts on unseen seeds: does bot.analyze name the injected signature on the
exported files, per signature and difficulty? Prints figures; asserts nothing (tests/test_reader_agreement.py
holds the bar)."""

from __future__ import annotations

import sys
import time

from bot.analyze.agreement import agreement
from bot.scenarios.ids import DIFFICULTIES, SIGNATURE_IDS


def main(n_seeds: int = 30, first_seed: int = 880_000) -> None:
    seeds = range(first_seed, first_seed + n_seeds)
    total = right = 0
    print(f"{'signature':<24} {'agree':>6} {'n':>4} {'s/drill':>8}  misses (seed, difficulty, named)")
    for sig in SIGNATURE_IDS:
        t0 = time.perf_counter()
        rows = agreement(seeds, [sig], DIFFICULTIES)[sig]
        per = (time.perf_counter() - t0) / len(rows)
        ok = sum(1 for _, _, named in rows if named == sig)
        total += len(rows)
        right += ok
        misses = [r for r in rows if r[2] != sig][:5]
        print(f"{sig:<24} {ok / len(rows):>6.3f} {len(rows):>4} {per:>8.2f}  {misses}", flush=True)
    print(f"{'overall':<24} {right / total:>6.3f} {total:>4}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
