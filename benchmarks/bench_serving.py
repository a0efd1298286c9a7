"""The online-serving family measured alone: with every signature that serving can host drawn into it, does the
reader name the injected signature, how many kernels does an iteration run, and how long does a drill take to
build and draw? Prints figures; tests/test_serving.py holds the bars on a small sample."""

from __future__ import annotations

import statistics
import sys
import time

from bot.analyze.agreement import agreement
from bot.render.png import Renderer
from bot.scenarios.families import HOSTS, SERVING, forced_family
from bot.scenarios.ids import DIFFICULTIES
from bot.scenarios.registry import generate

SERVING_SIGNATURES = tuple(sig for sig, hosts in HOSTS.items() if any(f == SERVING for f, _ in hosts))


def main(n_seeds: int = 30, first_seed: int = 770_000) -> None:
    seeds = range(first_seed, first_seed + n_seeds)
    render = Renderer().png
    total = right = 0
    print(f"{'signature':<24} {'agree':>6} {'n':>4} {'kernels/iter':>13} {'build+draw ms':>14}  misses")
    for sig in SERVING_SIGNATURES:
        rows = agreement(seeds, [sig], DIFFICULTIES, family=SERVING)[sig]
        ok = sum(1 for _, _, named in rows if named == sig)
        total, right = total + len(rows), right + ok
        kernels, times = [], []
        with forced_family(SERVING):
            for seed in list(seeds)[:5]:
                t0 = time.perf_counter()
                s = generate(sig, seed, "medium")
                render(s)
                times.append(1000 * (time.perf_counter() - t0))
                kernels.append(s.figures["kernels_per_step"])
        misses = [r for r in rows if r[2] != sig][:5]
        print(
            f"{sig:<24} {ok / len(rows):>6.3f} {len(rows):>4} {statistics.median(kernels):>13,.0f} "
            f"{statistics.median(times):>14.0f}  {misses}",
            flush=True,
        )
    print(f"{'overall':<24} {right / total:>6.3f} {total:>4}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
