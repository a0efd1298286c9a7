"""Render speed (targets: typical ≤ 250 ms end to end, 5,000-kernel launch_bound ≤ 400 ms, ≤ 4× the floor).

The floor is encoding an empty figure of the same size through the same encoder, measured in this run.
"""

from __future__ import annotations

import statistics
import time

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from bot.render.png import DPI, HEIGHT_IN, WIDTH_IN, encode_png, render_png
from bot.scenarios.ids import SIGNATURE_IDS
from bot.scenarios.registry import generate

REPEATS = 5


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def floor() -> None:
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)
    FigureCanvasAgg(fig)
    encode_png(fig)


def main() -> None:
    render_png(generate("healthy", 0))  # warm up imports and font caches
    floor_ms = timed(floor)
    print(f"floor (empty {int(WIDTH_IN * DPI)}×{int(HEIGHT_IN * DPI)} figure, encode): {floor_ms:.1f} ms")
    rows = []
    for sig in SIGNATURE_IDS:
        ms = timed(lambda sig=sig: render_png(generate(sig, 3, "medium")))
        rows.append(ms)
        print(f"  {sig:<24} build + draw + encode {ms:7.1f} ms   {ms / floor_ms:4.1f}× floor")
    typical = statistics.median(rows)
    print(f"typical scenario (median over signatures): {typical:.1f} ms (target ≤ 250)   "
          f"{typical / floor_ms:.1f}× floor (target ≤ 4×)")
    seed = next(s for s in range(200) if len(generate("launch_bound", s, "easy").trace.ranks[0].kernels()) >= 5000)
    scenario = generate("launch_bound", seed, "easy")
    n = len(scenario.trace.ranks[0].kernels())
    heavy = timed(lambda: render_png(generate("launch_bound", seed, "easy")))
    print(f"launch_bound with {n:,} kernels (seed {seed}): {heavy:.1f} ms (target ≤ 400)   "
          f"{heavy / floor_ms:.1f}× floor")


if __name__ == "__main__":
    main()
