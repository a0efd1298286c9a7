"""Time to generate one scenario, per signature (target: < 50 ms). Prints figures; asserts nothing."""

from __future__ import annotations

import statistics
import time

from bot.scenarios.ids import SIGNATURE_IDS
from bot.scenarios.registry import generate

SEEDS = range(20)
TARGET_MS = 50.0


def main() -> None:
    generate("healthy", 0)  # import and warm up
    print(f"{'signature':<24} {'median ms':>10} {'p90 ms':>8} {'max ms':>8}  target < {TARGET_MS:.0f} ms")
    medians = []
    for sig in SIGNATURE_IDS:
        times = []
        for seed in SEEDS:
            t0 = time.perf_counter()
            generate(sig, seed, "medium")
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        med = statistics.median(times)
        medians.append(med)
        p90 = times[int(0.9 * len(times)) - 1]
        print(f"{sig:<24} {med:>10.1f} {p90:>8.1f} {max(times):>8.1f}  {'ok' if med < TARGET_MS else 'SLOW'}")
    print(f"{'all signatures':<24} {statistics.median(medians):>10.1f}  (median of medians; "
          f"ratio to target {statistics.median(medians) / TARGET_MS:.2f})")


if __name__ == "__main__":
    main()
