"""Render speed. Targets (issue 14):

1. typical drill, in process (build + draw + encode, median over the ten signatures): ≤ 250 ms;
2. a drill with ≥ 5,000 kernels, in process: ≤ 400 ms;
3. whole process: `tracedrill render` of a typical drill ≤ 2× a process that only encodes an empty figure of the
   same size through the same encoder (both pay interpreter start-up and imports; measured in this run).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot.render.png import render_png
from bot.render.rows import layout
from bot.scenarios.ids import SIGNATURE_IDS
from bot.scenarios.registry import generate

REPEATS = 5
PROCESS_REPEATS = 5
ROOT = Path(__file__).resolve().parent.parent
EMPTY = ("from matplotlib.backends.backend_agg import FigureCanvasAgg\n"
         "from matplotlib.figure import Figure\n"
         "from bot.render.png import DPI, HEIGHT_IN, WIDTH_IN, encode_png\n"
         "fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)\n"
         "FigureCanvasAgg(fig)\n"
         "open({out!r}, 'wb').write(encode_png(fig))\n")


def timed(fn, repeats: int = REPEATS) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def in_process() -> None:
    render_png(generate("healthy", 0))  # warm up imports and font caches
    totals, draws = [], []
    for sig in SIGNATURE_IDS:
        s = generate(sig, 3, "medium")
        total = timed(lambda sig=sig: render_png(generate(sig, 3, "medium")))
        draw = timed(lambda s=s: render_png(s))
        totals.append(total)
        draws.append(draw)
        n = sum(len(r.events) for r in layout(s).rows)
        print(f"  {sig:<24} build + draw + encode {total:6.1f} ms   draw + encode {draw:6.1f} ms   {n:5,} bars")
    print(f"1. typical drill, in process (median): {statistics.median(totals):.1f} ms (target ≤ 250); "
          f"draw + encode alone {statistics.median(draws):.1f} ms")
    seed = next(s for s in range(200) if len(generate("launch_bound", s, "easy").trace.ranks[0].kernels()) >= 5000)
    s = generate("launch_bound", seed, "easy")
    lo, hi = layout(s).window
    n = len(s.trace.ranks[0].kernels())
    drawn = sum(1 for k in s.trace.ranks[0].kernels() if k.end > lo and k.start < hi)
    heavy = timed(lambda: render_png(generate("launch_bound", seed, "easy")))
    print(f"2. {n:,}-kernel drill (launch_bound seed {seed}, {drawn:,} kernels drawn), in process: {heavy:.1f} ms "
          "(target ≤ 400)")


def _run(args: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    t0 = time.perf_counter()
    subprocess.run(args, check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1000


def whole_process() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        empty_png, drill_png = str(Path(tmp) / "empty.png"), str(Path(tmp) / "drill.png")
        empty = [sys.executable, "-c", EMPTY.format(out=empty_png)]
        render = [sys.executable, "-m", "bot.cli", "render", "--signature", "healthy", "--seed", "3",
                  "--out", drill_png]
        _run(empty), _run(render)  # warm the OS file cache
        floors, renders = [], []
        for _ in range(PROCESS_REPEATS):  # interleaved, so machine load hits both alike
            floors.append(_run(empty))
            renders.append(_run(render))
    floor, whole = statistics.median(floors), statistics.median(renders)
    print(f"3. whole process: render {whole:.0f} ms vs empty-figure encode {floor:.0f} ms = {whole / floor:.2f}× "
          "(target ≤ 2×)")


def main() -> None:
    in_process()
    whole_process()


if __name__ == "__main__":
    main()
