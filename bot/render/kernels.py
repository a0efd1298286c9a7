"""The top-kernels table (like `nsys stats`' cuda_gpu_kern_sum) for the drawn window of rank 0."""

from __future__ import annotations

from dataclasses import dataclass

from ..scenarios.model import Scenario
from .names import table_name
from .rows import Layout

TOP = 6
NAME_CHARS = 30


@dataclass(frozen=True, slots=True)
class KernelLine:
    name: str  # shortened
    count: int
    ms_per_step: float
    share_pct: float  # of rank 0's GPU kernel time in the window
    mean_us: float


def top_kernels(s: Scenario, lay: Layout, n: int = TOP) -> list[KernelLine]:
    """The `n` kernels with the most GPU time in the drawn window (time clipped to it), grouped by table name."""
    lo, hi = lay.window
    totals: dict[str, list[float]] = {}
    grand = 0.0
    for k in s.trace.ranks[0].kernels():
        if k.end <= lo or k.start >= hi:
            continue
        t = min(k.end, hi) - max(k.start, lo)
        name = table_name(k.name, NAME_CHARS)
        entry = totals.setdefault(name, [0.0, 0.0, 0.0])
        entry[0] += t
        entry[1] += 1
        entry[2] += k.dur
        grand += t
    ranked = sorted(totals.items(), key=lambda kv: -kv[1][0])[:n]
    return [
        KernelLine(name, int(count), t / 1000 / lay.steps_in_window, 100 * t / grand if grand else 0.0, full / count)
        for name, (t, count, full) in ranked
    ]


def _clip(name: str, chars: int) -> str:
    return name if len(name) <= chars else name[: chars - 1] + "…"


def fmt_us(us: float) -> str:
    return f"{us / 1000:.1f} ms" if us >= 1000 else f"{us:.1f} µs" if us < 100 else f"{us:.0f} µs"


def table_lines(lines: list[KernelLine], width: int = 80) -> list[str]:
    """Monospace rows no wider than `width` (≥ 50): name, count, ms/step, % of GPU time, mean."""
    n = max(12, min(NAME_CHARS, width - 34))
    out = [f"{'kernel':<{n}} {'count':>6} {'ms/step':>8} {'GPU %':>6} {'mean':>9}"]
    out += [
        f"{_clip(k.name, n):<{n}} {k.count:>6,} {k.ms_per_step:>8.2f} {k.share_pct:>5.1f}% {fmt_us(k.mean_us):>9}"
        for k in lines
    ]
    return out
