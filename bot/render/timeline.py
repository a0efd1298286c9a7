"""The timeline axes: rows of bars, counter rows with scales, step marks, labels.

All bars of one colour are one compound path (the fast path); adjacent bars wide enough to count are separated
by a one-pixel gap cut into the earlier bar, so back-to-back kernels, collectives, ranges and API calls stay
countable. Text goes on as cached sprites (see sprites.py), each label kept only where it overlaps no other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import PathPatch
from matplotlib.path import Path

from ..scenarios.model import Category, TrackKind
from .names import short_name
from .rows import Row
from .sprites import Placed, measure, place
from .theme import Theme

MAX_BAR_LABELS = 14
SEPARATOR_PX = 1.3  # gap cut between touching bars
COUNTABLE_PX = 3.0  # bars narrower than this are not separated (there would be nothing left to see)
_LIGHTER_KINDS = {"elementwise", "norm", "optimizer", "tiny"}

LEGEND_NAMES = {
    Category.COMPUTE: "compute kernel",
    Category.NCCL: "NCCL collective",
    Category.MEMCPY: "memcpy",
    Category.LAUNCH: "kernel launch (API)",
    Category.SYNC: "synchronize (API)",
    Category.MALLOC: "cudaMalloc / cudaFree",
    Category.CPU_OP: "CPU op",
    Category.DATALOADER: "dataloader",
    Category.STEP: "ProfilerStep (NVTX)",
    Category.RANGE: "NVTX range",
    Category.MARKER: "request arrives",
}
LIGHT_COMPUTE = "elementwise / norm / optimizer"


@dataclass(slots=True)
class Drawn:
    """What one axes drew: legend entries (label → (colour, style)), bar boxes per row in pixels, for placing
    callouts off the evidence."""

    legend: dict[str, tuple[str, str]] = field(default_factory=dict)
    row_y: list[float] = field(default_factory=list)  # data y of each row's centre
    bars_px: list[np.ndarray] = field(default_factory=list)  # per row: (n, 4) x0, y0, x1, y1 in figure px


def bar_color(th: Theme, category: Category, kind: str) -> str:
    if category is Category.COMPUTE and kind in _LIGHTER_KINDS:
        return th.compute_light
    return th.categories.get(category, th.muted)


def legend_label(category: Category, kind: str) -> str:
    if category is Category.COMPUTE and kind in _LIGHTER_KINDS:
        return LIGHT_COMPUTE
    return LEGEND_NAMES.get(category, category.value)


def row_y(rows: Sequence[Row]) -> tuple[list[float], list[tuple[str, float, float]]]:
    """y of each row's centre (top = 0, growing down) and (group, top, bottom) bands, with a gap per group."""
    ys: list[float] = []
    groups: list[tuple[str, float, float]] = []
    y = 0.0
    current = None
    for row in rows:
        if row.group != current:
            if current is not None:
                groups[-1] = (groups[-1][0], groups[-1][1], y)
                y += 0.35
            groups.append((row.group, y, y))
            current = row.group
        ys.append(y + 0.5)
        y += 1.0
    if groups:
        groups[-1] = (groups[-1][0], groups[-1][1], y)
    return ys, groups


@lru_cache(maxsize=64)
def _rgba(color: str) -> tuple[float, float, float, float]:
    return (int(color[1:3], 16) / 255, int(color[3:5], 16) / 255, int(color[5:7], 16) / 255, 1.0)


_START, _DUR, _KEY = attrgetter("start"), attrgetter("dur"), attrgetter("category", "kind")


def _extents(row: Row, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """Each event's start and end in ms from `lo`, clipped to the window (numpy, no per-event Python)."""
    n = len(row.events)
    starts = np.fromiter(map(_START, row.events), float, n)
    ends = starts + np.fromiter(map(_DUR, row.events), float, n)
    return (np.maximum(starts, lo) - lo) / 1000, (np.minimum(ends, hi) - lo) / 1000


def _boxes(
    starts: np.ndarray, ends: np.ndarray, codes: np.ndarray, px_per_ms: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bars (start, end in ms, colour code) to fill, from events that are not instants: separators cut between
    touching bars wide enough to count, then runs of same-colour bars closer than a pixel merged into one
    (thousands of sub-pixel kernels would otherwise be thousands of rectangles Agg fills to the same pixels)."""
    order = np.argsort(starts, kind="stable")
    s, t, c = starts[order], ends[order].copy(), codes[order]
    wide = (t - s) * px_per_ms >= COUNTABLE_PX
    if len(s) > 1:
        gap_px = (s[1:] - t[:-1]) * px_per_ms
        touching = (gap_px > -1.0) & (gap_px < SEPARATOR_PX)  # back to back, not nested (a range inside another)
        cut = touching & wide[:-1] & wide[1:]
        t[:-1] = np.where(cut, np.minimum(t[:-1], s[1:] - SEPARATOR_PX / px_per_ms), t[:-1])
    # Merge runs of one colour: time-order neighbours of the same colour less than a pixel apart, unless both
    # are wide enough to count (those keep the separator cut above); overlapping ones always (a nested range
    # adds nothing). A bar of another colour between them keeps them apart, so interleaved kinds still show.
    if len(s) > 1:
        gap_px = (s[1:] - t[:-1]) * px_per_ms
        join = (c[1:] == c[:-1]) & (gap_px < 1.0) & (~(wide[1:] & wide[:-1]) | (gap_px <= -1.0))
        first = np.flatnonzero(np.concatenate(([True], ~join)))
        s, c = s[first], c[first]
        t = np.maximum.reduceat(t, first)
    # Sub-pixel bars still need a pixel to be seen: widen them to ~0.7 px.
    return s, np.maximum(t, s + 0.7 / px_per_ms), c


def draw_rows(
    ax: Axes,
    rows: list[Row],
    window: tuple[float, float],
    th: Theme,
    step_marks: list[tuple[float, str]],
    *,
    label_bars: bool,
) -> Drawn:
    lo, hi = window
    span_ms = (hi - lo) / 1000
    ys, groups = row_y(rows)
    total = ys[-1] + 0.5 if ys else 1.0
    ax.set_facecolor(th.background)
    ax.set_xlim(0, span_ms)
    ax.set_ylim(total + 0.2, -0.6)
    ax.set_yticks([])
    ax.set_xticks([])
    fig = ax.get_figure(root=True)
    assert fig is not None
    pos = ax.get_position()
    left, x_max = pos.x0 * fig.bbox.width, pos.x1 * fig.bbox.width
    y_top, y_bottom = pos.y1 * fig.bbox.height, pos.y0 * fig.bbox.height
    px_per_ms = (x_max - left) / span_ms
    px_per_row = (y_top - y_bottom) / (total + 0.8)

    def to_py(y: float) -> float:  # data y → figure px
        return y_top - (y + 0.6) * px_per_row

    drawn = Drawn(row_y=ys)
    verts: list[np.ndarray] = []
    colors: list[np.ndarray] = []  # per bar, an index into color_code
    palette: dict[tuple[Category, str], int] = {}
    color_code: dict[str, int] = {}
    labels: list[tuple[float, float, float, str, str]] = []
    markers_x: list[float] = []
    markers_y: list[float] = []
    guides: list[list[tuple[float, float]]] = []
    for row, y in zip(rows, ys, strict=True):
        if row.kind is TrackKind.COUNTER:
            _counter(ax, row, y, lo, th, drawn, guides, span_ms)
            drawn.bars_px.append(np.array([[left, to_py(y + 0.45), x_max, to_py(y - 0.45)]]))
            continue
        height = 0.62 if row.kind in (TrackKind.GPU_STREAM, TrackKind.CUDA_API) else 0.5
        if not row.events:
            drawn.bars_px.append(np.zeros((0, 4)))
            continue
        starts, ends = _extents(row, lo, hi)
        point = ends - starts <= 0
        if point.any():
            markers_x.extend(starts[point].tolist())
            markers_y.extend([y] * int(point.sum()))
            drawn.legend[LEGEND_NAMES[Category.MARKER]] = (th.categories[Category.MARKER], "marker")
        keep = ~point
        keys = list(map(_KEY, row.events))
        drawn_keys = keys if keep.all() else [k for k, p in zip(keys, point.tolist(), strict=True) if not p]
        for key in dict.fromkeys(keys):
            if key not in palette:
                palette[key] = color_code.setdefault(bar_color(th, *key), len(color_code))
        for key in dict.fromkeys(drawn_keys):  # an instant is a marker, not a bar of its category
            drawn.legend.setdefault(legend_label(*key), (bar_color(th, *key), "bar"))
        codes = np.fromiter(map(palette.__getitem__, keys), np.intp, len(keys))
        y0, y1 = y - height / 2, y + height / 2
        bs, bt, bc = _boxes(starts[keep], ends[keep], codes[keep], px_per_ms)
        box = np.empty((len(bs), 4, 2))
        box[:, 0:2, 0] = bs[:, None]
        box[:, 2:4, 0] = bt[:, None]
        box[:, (0, 3), 1] = y0
        box[:, (1, 2), 1] = y1
        verts.append(box)
        colors.append(bc)
        px = np.empty((len(bs), 4))
        px[:, 0], px[:, 2] = left + bs * px_per_ms, left + bt * px_per_ms
        px[:, 1], px[:, 3] = to_py(y1), to_py(y0)
        drawn.bars_px.append(px)
        if label_bars:
            for i in np.flatnonzero(ends - starts > span_ms * 0.045).tolist():
                e, a, b = row.events[i], float(starts[i]), float(ends[i])
                labels.append((b - a, (a + b) / 2, y, short_name(e.name), _ink(bar_color(th, e.category, e.kind))))
    if verts:
        _add_bars(ax, np.concatenate(verts), np.concatenate(colors), list(color_code))
    if markers_x:
        ax.scatter(markers_x, markers_y, marker="v", s=36, color=th.categories[Category.MARKER], zorder=3)
    if guides:
        ax.add_collection(LineCollection(guides, colors=th.grid, linewidths=0.8, linestyles="dotted", zorder=1))
    for _name, top, bottom in groups:
        ax.axhspan(top - 0.1, bottom + 0.1, color=th.row_alt, zorder=0, lw=0)
    if step_marks:
        segs = [[((t - lo) / 1000, -0.2), ((t - lo) / 1000, total + 0.2)] for t, _ in step_marks]
        ax.add_collection(LineCollection(segs, colors=th.muted, linewidths=1.0, linestyles="dashed", zorder=2))
        drawn.legend["step boundary (GPU)"] = (th.muted, "dashed")
    ticks = _ticks(span_ms)
    ax.add_collection(
        LineCollection([[(t, -0.6), (t, total + 0.2)] for t in ticks], colors=th.grid, linewidths=0.6, zorder=0)
    )
    taken: list[tuple[float, float, float, float]] = []
    _row_labels(fig, rows, ys, groups, to_py, left, th, taken)
    for t, label in step_marks:
        x = left + (t - lo) / 1000 * px_per_ms
        if x < x_max - 30:
            _keep(place(fig, x + 2, to_py(-0.35), label, 8, th.muted, va="bottom"), taken, fig)
    digits = 0 if span_ms >= 20 else (1 if span_ms >= 2 else 2)
    for t in ticks:
        place(fig, left + t * px_per_ms, y_bottom - 4, f"{t:.{digits}f}", 9, th.muted, ha="center", va="top")
    place(fig, (left + x_max) / 2, y_bottom - 20, "time (ms)", 9, th.muted, ha="center", va="top")
    labels.sort(reverse=True)
    shown = 0
    for width, x, y, text, ink in labels:
        if shown >= MAX_BAR_LABELS:
            break
        fit = int(width * px_per_ms / 6.2)
        if fit < 6:
            continue
        text = text if len(text) <= fit else text[: fit - 1] + "…"
        if _keep(place(fig, left + x * px_per_ms, to_py(y), text, 7.5, ink, ha="center", role="bar"), taken, fig):
            shown += 1
    for spine in ax.spines.values():
        spine.set_color(th.grid)
    return drawn


def _add_bars(ax: Axes, boxes: np.ndarray, codes: np.ndarray, names: list[str]) -> None:
    """One compound path per colour: Agg fills thousands of rectangles from a single path much faster than
    a collection builds a Path object for each."""
    for code, color in enumerate(names):
        rects = boxes[codes == code]
        if not len(rects):
            continue
        verts = np.concatenate([rects, rects[:, :1]], axis=1).reshape(-1, 2)
        ops = np.full(len(rects) * 5, Path.LINETO, dtype=np.uint8)
        ops[::5] = Path.MOVETO
        ops[4::5] = Path.CLOSEPOLY
        path = Path(verts, ops)
        path.should_simplify = False  # simplification would merge touching rectangles and lose the separators
        patch = PathPatch(
            path, facecolor=color, edgecolor="none", linewidth=0, antialiased=False, zorder=1, transform=ax.transData
        )
        ax.add_artist(patch)  # not add_patch: its data-limit update walks every vertex in Python


@lru_cache(maxsize=64)
def _ink(color: str) -> str:
    """White text on dark bars, near-black on light ones."""
    r, g, b, _ = _rgba(color)
    return "#ffffff" if 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.55 else "#1a1b1e"


def _ticks(span_ms: float) -> list[float]:
    from matplotlib.ticker import MaxNLocator

    return [float(t) for t in MaxNLocator(nbins=8).tick_values(0, span_ms) if 0 <= t <= span_ms]


def _keep(item: Placed, taken: list[tuple[float, float, float, float]], fig: Figure) -> bool:
    """Keep a just-queued label only if it overlaps none kept before (else drop it from the picture)."""
    x0, y0, x1, y1 = item.box
    if any(x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1 for b in taken):
        from .sprites import placed

        placed(fig).remove(item)
        return False
    taken.append((x0, y0, x1, y1))
    return True


def _row_labels(
    fig: Figure,
    rows: list[Row],
    ys: list[float],
    groups: list[tuple[str, float, float]],
    to_py: Callable[[float], float],
    left: float,
    th: Theme,
    taken: list[tuple[float, float, float, float]],
) -> None:
    """Row names right-aligned against the axes, a second muted line for counters (mean, scale); group names
    at the far left, moved to the group's top row if they would touch a row name."""
    pitch = to_py(0.0) - to_py(1.0)
    for row, y in zip(rows, ys, strict=True):
        py = to_py(y)
        if row.kind is TrackKind.COUNTER and row.values and pitch >= 27:
            _keep(place(fig, left - 6, py + 1, row.label, 8.5, th.text, ha="right", va="bottom"), taken, fig)
            _keep(place(fig, left - 6, py - 1, _counter_note(row), 7.5, th.muted, ha="right", va="top"), taken, fig)
        elif row.kind is TrackKind.COUNTER and row.values:
            text = f"{row.label} · {_counter_note(row, short=True)}"
            _keep(place(fig, left - 6, py, text, 8, th.text, ha="right"), taken, fig)
        else:
            _keep(place(fig, left - 6, py, row.label, 8.5, th.text, ha="right"), taken, fig)
    for name, top, bottom in groups:
        x0 = 10
        y = to_py((top + bottom) / 2)
        h = measure(name, 9.5, bold=True)[1]
        parts = [name] if " · " not in name else name.split(" · ")
        if len(parts) > 1:
            h = 2 * h
        box = (x0, y - h / 2, x0 + max(measure(p, 9.5, bold=True)[0] for p in parts), y + h / 2)
        if len(parts) == 1 and any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in taken):
            continue  # no room beside the row names: the rows say enough
        for i, part in enumerate(parts):
            _keep(place(fig, x0, y + h / 2 - i * h / len(parts), part, 9.5, th.muted, bold=True, va="top"), taken, fig)


def _counter_note(row: Row, *, short: bool = False) -> str:
    mean = float(np.mean(row.values))
    if row.unit == "%":
        return f"mean {mean:.0f}%" if short else f"mean {mean:.0f}% · guides 50/100%"
    if row.unit == "GB/s":
        return f"mean {mean:.0f}" if short else f"mean {mean:.0f} · peak {max(row.values):.0f} of {row.scale:.0f}"
    return f"mean {mean:.1f}" if short else f"mean {mean:.1f} · max {max(row.values):.0f} {row.unit}"


def _counter(
    ax: Axes,
    row: Row,
    y: float,
    lo: float,
    th: Theme,
    drawn: Drawn,
    guides: list[list[tuple[float, float]]],
    span_ms: float,
) -> None:
    if not row.times:
        return
    t = (np.asarray(row.times) - lo) / 1000
    v = np.asarray(row.values)
    base = y + 0.42
    heights = base - 0.84 * np.clip(v / row.scale, 0, 1)
    if row.unit in ("%", "GB/s"):
        xs = np.repeat(t, 2)[1:]
        xs = np.append(xs, t[-1] + (t[-1] - t[-2] if len(t) > 1 else 0))
        ax.fill_between(xs, base, np.repeat(heights, 2), color=th.counter, alpha=0.85, lw=0)
        for frac in (0.5, 1.0):  # 0 is the row's baseline
            guides.append([(0.0, base - 0.84 * frac), (span_ms, base - 0.84 * frac)])
        key = "interconnect, 0 → link peak" if row.unit == "GB/s" else "GPU metric, 0–100%"
        drawn.legend[key] = (th.counter, "area")
    else:
        ax.vlines(t, base, heights, color=th.counter, linewidth=2.0)
        drawn.legend[f"{row.label.split(' (')[0]} per token"] = (th.counter, "bar")
