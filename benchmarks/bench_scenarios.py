"""Time to generate one scenario and median kernels per steady step, per signature; then how much the context
words give away (naive-Bayes top-1 over the ten signatures and within each twin pair). Prints figures; asserts
nothing (tests hold the bars)."""

from __future__ import annotations

import statistics
import sys
import time

from bot.scenarios.figures import RankActivity
from bot.scenarios.ids import SIGNATURE_IDS
from bot.scenarios.leakage import scores
from bot.scenarios.registry import generate

SEEDS = range(20)


def main(leakage: bool = True) -> None:
    generate("healthy", 0)  # import and warm up
    print(f"{'signature':<24} {'median ms':>10} {'p90 ms':>8} {'max ms':>8} {'kernels/step':>13}")
    medians = []
    for sig in SIGNATURE_IDS:
        times, kernels = [], []
        for seed in SEEDS:
            t0 = time.perf_counter()
            s = generate(sig, seed, "medium")
            times.append((time.perf_counter() - t0) * 1000)
            activity = RankActivity(s.trace.ranks[0])
            kernels.append(statistics.median(activity.step(w)["kernels"] for w in s.trace.steps[1:]))
        times.sort()
        med = statistics.median(times)
        medians.append(med)
        p90 = times[int(0.9 * len(times)) - 1]
        print(f"{sig:<24} {med:>10.1f} {p90:>8.1f} {max(times):>8.1f} {statistics.median(kernels):>13.0f}")
    print(f"{'all signatures':<24} {statistics.median(medians):>10.1f}  (median of medians)")
    if leakage:
        got = scores(range(0, 40), range(1000, 1020))
        print("context-only naive-Bayes top-1 (train seeds 0-39, test 1000-1019, all difficulties):")
        for k, v in got.items():
            print(f"  {k:<40} {v:.3f}")


if __name__ == "__main__":
    main(leakage="--no-leakage" not in sys.argv)
