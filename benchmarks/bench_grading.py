"""Grader speed. Targets: ≥ 2,000 grades/s in process with p99 < 10 ms; `tracedrill grade --batch` ≥ 1,000 grades/s
for 4,000 replies, whole process (start-up, rubric compilation and JSON included); import < 300 ms.

Replies: the labelled corpus (tests/data/corpus/*.jsonl) and the project's own set (tests/data/replies.jsonl).
    PYTHONPATH=. python benchmarks/bench_grading.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
BATCH_REPLIES = 4000


def replies() -> list[tuple[str, str]]:
    files = [*sorted((DATA / "corpus").glob("*.jsonl")), DATA / "replies.jsonl"]
    rows = [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(r["signature"], r["answer"]) for r in rows]


def import_ms() -> float:
    code = "import time; t=time.perf_counter(); import bot.grading; print((time.perf_counter()-t)*1000)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                 cwd=ROOT).stdout) for _ in range(5)]
    return statistics.median(runs)


def in_process(items: list[tuple[str, str]]) -> None:
    from bot.grading import grade
    from bot.grading.matcher import clear_caches, engine

    clear_caches()
    t0 = time.perf_counter()
    engine()
    print(f"compile rubrics and vocabulary once: {(time.perf_counter() - t0) * 1000:.0f} ms")
    t0 = time.perf_counter()
    for sig, answer in items:  # first pass: cold stem and typo caches, as a freshly started bot sees them
        grade(sig, answer)
    cold = len(items) / (time.perf_counter() - t0)
    latencies = []
    t0 = time.perf_counter()
    rounds = 3
    for _ in range(rounds):
        for sig, answer in items:
            a = time.perf_counter()
            grade(sig, answer)
            latencies.append((time.perf_counter() - a) * 1000)
    total = time.perf_counter() - t0
    latencies.sort()
    p99 = latencies[int(0.99 * len(latencies)) - 1]
    rate = len(latencies) / total
    print(f"{len(items):,} replies, first pass (cold caches): {cold:,.0f} grades/s")
    print(f"{len(latencies):,} grades (warm): {rate:,.0f} grades/s (target ≥ 2,000; {rate / 2000:.1f}× target), "
          f"median {statistics.median(latencies):.2f} ms, p99 {p99:.2f} ms (target < 10 ms), "
          f"max {latencies[-1]:.1f} ms")


def whole_process(items: list[tuple[str, str]]) -> None:
    lines = [json.dumps({"signature": s, "answer": a}) for s, a in (items * (BATCH_REPLIES // len(items) + 1))]
    lines = lines[:BATCH_REPLIES]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "batch.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "bot.cli", "grade", "--batch", str(path)], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
        seconds = time.perf_counter() - t0
    graded = sum(1 for line in out.splitlines() if line.strip())
    assert graded == BATCH_REPLIES, graded
    rate = graded / seconds
    print(f"tracedrill grade --batch, {graded:,} replies, whole process: {seconds:.2f} s = {rate:,.0f} grades/s "
          f"(target ≥ 1,000; {rate / 1000:.1f}× target)")


def main() -> None:
    items = replies()
    print(f"import bot.grading: {import_ms():.0f} ms (target < 300 ms, fresh process, median of 5)")
    in_process(items)
    whole_process(items)


if __name__ == "__main__":
    main()
