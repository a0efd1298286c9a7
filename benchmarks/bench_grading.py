"""Grader speed (targets: ≥ 2,000 grades/s on one core for typical replies, p99 < 10 ms, import < 300 ms)."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPLIES = Path(__file__).resolve().parent.parent / "tests" / "data" / "replies.jsonl"


def import_ms() -> float:
    code = "import time; t=time.perf_counter(); import bot.grading; print((time.perf_counter()-t)*1000)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
            for _ in range(5)]
    return statistics.median(runs)


def main() -> None:
    print(f"import bot.grading: {import_ms():.0f} ms (target < 300 ms, fresh process, median of 5)")
    from bot.grading import grade

    rows = [json.loads(line) for line in REPLIES.read_text(encoding="utf-8").splitlines() if line.strip()]
    grade(rows[0]["signature"], rows[0]["answer"])  # load rubrics once, as a running bot has
    latencies = []
    t0 = time.perf_counter()
    rounds = 10
    for _ in range(rounds):
        for r in rows:
            a = time.perf_counter()
            grade(r["signature"], r["answer"])
            latencies.append((time.perf_counter() - a) * 1000)
    total = time.perf_counter() - t0
    latencies.sort()
    p99 = latencies[int(0.99 * len(latencies)) - 1]
    rate = len(latencies) / total
    print(f"{len(latencies)} grades of the labelled replies: {rate:,.0f} grades/s (target ≥ 2,000; "
          f"{rate / 2000:.1f}× target), median {statistics.median(latencies):.2f} ms, p99 {p99:.2f} ms "
          f"(target < 10 ms)")
    cold = [f"fresh reply number {i}: the dataloader can't keep up, add workers" for i in range(2000)]
    t0 = time.perf_counter()
    for text in cold:
        grade("input_starvation", text)
    rate_cold = 2000 / (time.perf_counter() - t0)
    print(f"2,000 never-seen replies (no warm caches for their words): {rate_cold:,.0f} grades/s")


if __name__ == "__main__":
    main()
