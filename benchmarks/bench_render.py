"""Render speed. Targets (issue 14):

1. typical drill, in process (build + draw + encode, median over the ten signatures): ≤ 250 ms;
2. a drill with ≥ 5,000 kernels, in process: ≤ 400 ms;
3. whole process: `tracedrill render` of a typical drill ≤ 2× a process that only encodes an empty figure of the
   same size through the same encoder (both pay interpreter start-up and imports; measured in this run).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot.render.png import Renderer
from bot.render.rows import layout
from bot.scenarios.ids import SIGNATURE_IDS
from bot.scenarios.model import Event, Scenario, TrackKind
from bot.scenarios.registry import generate

REPEATS = 5
PROCESS_REPEATS = 5
ROOT = Path(__file__).resolve().parent.parent
EMPTY = (
    "from matplotlib.backends.backend_agg import FigureCanvasAgg\n"
    "from matplotlib.figure import Figure\n"
    "from bot.render.encode import encode_png\n"
    "from bot.render.png import DPI, HEIGHT_IN, WIDTH_IN\n"
    "fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)\n"
    "FigureCanvasAgg(fig)\n"
    "open({out!r}, 'wb').write(encode_png(fig))\n"
)


def timed(fn, repeats: int = REPEATS) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Median wall and CPU milliseconds. On a shared machine wall time swings with other load; CPU time of
    this single-threaded work is the steadier figure, so both are printed."""
    walls, cpus = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append((time.perf_counter() - t0) * 1000)
        cpus.append((time.process_time() - c0) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def in_process() -> None:
    # One renderer for every picture, as the render cache keeps one: its glyphs stay warm between pictures.
    render_png = Renderer().png
    render_png(generate("healthy", 0))  # warm up imports and glyphs
    totals, draws, cpu_totals = [], [], []
    for sig in SIGNATURE_IDS:
        s = generate(sig, 3, "medium")
        total, total_cpu = timed(lambda sig=sig: render_png(generate(sig, 3, "medium")))
        draw, draw_cpu = timed(lambda s=s: render_png(s))
        totals.append(total)
        cpu_totals.append(total_cpu)
        draws.append(draw_cpu)
        n = sum(len(r.events) for r in layout(s).rows)
        print(
            f"  {sig:<24} build + draw + encode {total:6.1f} ms wall {total_cpu:6.1f} ms CPU   "
            f"draw + encode {draw:6.1f} ms wall {draw_cpu:6.1f} ms CPU   {n:5,} bars"
        )
    print(
        f"1. typical drill, in process (median over signatures): {statistics.median(totals):.1f} ms wall, "
        f"{statistics.median(cpu_totals):.1f} ms CPU (target ≤ 250); draw + encode alone "
        f"{statistics.median(draws):.1f} ms CPU"
    )
    seed = next(s for s in range(200) if len(generate("launch_bound", s, "easy").trace.ranks[0].kernels()) >= 5000)
    s = generate("launch_bound", seed, "easy")
    lo, hi = layout(s).window
    n = len(s.trace.ranks[0].kernels())
    drawn = sum(1 for k in s.trace.ranks[0].kernels() if k.end > lo and k.start < hi)
    heavy, heavy_cpu = timed(lambda: render_png(generate("launch_bound", seed, "easy")))
    print(
        f"2. {n:,}-kernel drill (launch_bound seed {seed}, {drawn:,} kernels drawn), in process: {heavy:.1f} ms "
        f"wall, {heavy_cpu:.1f} ms CPU (target ≤ 400)"
    )
    dense = _split_kernels(generate("healthy", 3, "medium"), 8)
    lo, hi = layout(dense).window
    drawn = sum(1 for k in dense.trace.ranks[0].kernels() if k.end > lo and k.start < hi)
    steps = layout(dense).steps_in_window
    wall, cpu = timed(lambda: render_png(dense))
    print(
        f"   stress: healthy with each kernel split in 8, {drawn:,} kernels drawn ({drawn / steps:,.0f} per step), "
        f"draw + encode: {wall:.1f} ms wall, {cpu:.1f} ms CPU"
    )


def _split_kernels(s: Scenario, parts: int) -> Scenario:
    """Several thousand kernels per step without touching the generators: each kernel becomes `parts` back to
    back pieces (the first keeps its launch correlation)."""
    for rank in s.trace.ranks:
        for track in rank.tracks_of(TrackKind.GPU_STREAM):
            track.events = [
                Event(
                    e.name,
                    e.start + i * e.dur / parts,
                    e.dur / parts,
                    e.category,
                    e.correlation if i == 0 else 0,
                    e.args,
                    e.kind,
                )
                for e in track.events
                for i in range(parts)
            ]
    return s


def _run(args: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system of the child) milliseconds of one process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(args, check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def whole_process() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        empty_png, drill_png = str(Path(tmp) / "empty.png"), str(Path(tmp) / "drill.png")
        empty = [sys.executable, "-c", EMPTY.format(out=empty_png)]
        render = [
            sys.executable,
            "-m",
            "bot.cli",
            "render",
            "--signature",
            "healthy",
            "--seed",
            "3",
            "--out",
            drill_png,
        ]
        _run(empty), _run(render)  # warm the OS file cache
        floors, renders = [], []
        for _ in range(PROCESS_REPEATS):  # interleaved, so machine load hits both alike
            floors.append(_run(empty))
            renders.append(_run(render))
    floor, whole = statistics.median(f[0] for f in floors), statistics.median(r[0] for r in renders)
    floor_cpu, whole_cpu = statistics.median(f[1] for f in floors), statistics.median(r[1] for r in renders)
    print(
        f"3. whole process: render {whole:.0f} ms vs empty-figure encode {floor:.0f} ms = {whole / floor:.2f}× wall; "
        f"CPU {whole_cpu:.0f} vs {floor_cpu:.0f} ms = {whole_cpu / floor_cpu:.2f}× (target ≤ 2×)"
    )


def main() -> None:
    in_process()
    whole_process()


if __name__ == "__main__":
    main()
