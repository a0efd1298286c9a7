"""Analysis speed and memory (targets: a 200,000-event trace analysed in < 10 s; a 50 MB trace loaded in a few
seconds and well under 1 GB). Builds a large Kineto trace, then analyses it in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

N_STEPS = 6
KERNELS_PER_STEP = 16_000  # × (kernel + launch + 2 flow events) ≈ 400k events


def write_trace(path: Path) -> int:
    events: list[dict[str, object]] = [
        {"name": "process_name", "ph": "M", "ts": 0, "pid": 1, "tid": 0, "args": {"name": "python"}}
    ]
    t, gpu, corr = 1000.0, 1000.0, 0
    for step in range(N_STEPS):
        step_start = t
        for i in range(KERNELS_PER_STEP):
            corr += 1
            events.append(
                {
                    "ph": "X",
                    "cat": "cuda_runtime",
                    "name": "cudaLaunchKernel",
                    "pid": 1,
                    "tid": 1,
                    "ts": round(t, 3),
                    "dur": 5.0,
                    "args": {"correlation": corr, "cbid": 211},
                }
            )
            start = max(gpu, t + 6.5)
            dur = 3.0 if i % 7 else 40.0
            events.append(
                {
                    "ph": "X",
                    "cat": "kernel",
                    "name": f"void kernel_{i % 50}<float>",
                    "pid": 0,
                    "tid": 7,
                    "ts": round(start, 3),
                    "dur": dur,
                    "args": {"stream": 7, "device": 0, "correlation": corr, "grid": [1, 1, 1]},
                }
            )
            events.append({"ph": "s", "id": corr, "pid": 1, "tid": 1, "ts": round(t, 3), "cat": "ac2g", "name": "ac2g"})
            events.append(
                {
                    "ph": "f",
                    "id": corr,
                    "pid": 0,
                    "tid": 7,
                    "ts": round(start, 3),
                    "cat": "ac2g",
                    "name": "ac2g",
                    "bp": "e",
                }
            )
            t += 9.0
            gpu = start + dur
        events.append(
            {
                "ph": "X",
                "cat": "user_annotation",
                "name": f"ProfilerStep#{step}",
                "pid": 1,
                "tid": 1,
                "ts": step_start,
                "dur": t - step_start,
            }
        )
    path.write_text(
        json.dumps({"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": events})
    )
    return len(events)


CHILD = """
import resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
from bot.analyze.service import analyze_path
r = analyze_path(Path(sys.argv[1]))
took = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{took:.2f} {peak:.0f} {r.signature}")
"""

# The path `tracedrill analyze` and the chat commands take: a limited worker process (bounded.py), the guard.
BOUNDED = """
import resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
from bot.analyze.bounded import analyze_file
r = analyze_file(Path(sys.argv[1]))
took = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{took:.2f} {peak:.0f} {r.signature}")
"""


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.json"
        n = write_trace(path)
        size = path.stat().st_size / 2**20
        out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=True)
        took, peak, sig = out.stdout.split()
        print(f"trace: {n:,} events, {size:.0f} MB on disk")
        print(
            f"analyze (import + reading order + classification, fresh process): {float(took):.2f} s "
            f"(target < 10 s), peak RSS {float(peak):.0f} MB (target well under 1 GB); top finding: {sig}"
        )
        out = subprocess.run([sys.executable, "-c", BOUNDED, str(path)], capture_output=True, text=True, check=True)
        took_b, peak_b, sig_b = out.stdout.split()
        print(
            f"analyze in the limited worker (as the CLI and chat run it): {float(took_b):.2f} s, worker peak RSS "
            f"{float(peak_b):.0f} MB (limit {2**30 // 2**20} MB address space); top finding: {sig_b}; "
            f"worker/in-process time ratio {float(took_b) / float(took):.2f}"
        )


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"(benchmark wall time {time.perf_counter() - t0:.1f} s)")
