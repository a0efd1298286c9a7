"""The timeline axes: rows of bars, counter rows with scales, step marks, labels.

All bars of one colour are one compound path (bars.py); adjacent bars wide enough to count are separated by a
one-pixel gap cut into the earlier bar, so back-to-back kernels, collectives, ranges and API calls stay
countable. Text goes on the picture's text layer (labels.py), each label kept only where it overlaps no other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgb
from matplotlib.ticker import MaxNLocator

from ..scenarios.model import Category, TrackKind
from .bars import add_bars, boxes, extents
from .frame import Frame, set_up
from .labels import Box, axis_labels, bar_labels, group_labels, row_labels
from .names import short_name
from .rows import Row
from .sprites import TextLayer
from .theme import Theme

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


_KEY = attrgetter("category", "kind")
BarLabel = tuple[float, float, float, str, str]  # width ms, centre ms, row y, name, ink


@dataclass(slots=True)
class _Queued:
    """What the rows put on the axes, gathered so each kind goes on once: one path per colour, one marker
    scatter, one collection of guide lines; colour codes are given in first-drawn order."""

    verts: list[np.ndarray] = field(default_factory=list)  # per row: (n, 4, 2) bar corners in data units
    codes: list[np.ndarray] = field(default_factory=list)  # per row: each bar's colour code
    colours: dict[str, int] = field(default_factory=dict)  # colour → code
    palette: dict[tuple[Category, str], int] = field(default_factory=dict)  # (category, kind) → code
    labels: list[BarLabel] = field(default_factory=list)
    markers_x: list[float] = field(default_factory=list)
    markers_y: list[float] = field(default_factory=list)
    guides: list[list[tuple[float, float]]] = field(default_factory=list)

    def code_of(self, keys: list[tuple[Category, str]], th: Theme) -> np.ndarray:
        for key in dict.fromkeys(keys):
            if key not in self.palette:
                self.palette[key] = self.colours.setdefault(bar_color(th, *key), len(self.colours))
        return np.fromiter(map(self.palette.__getitem__, keys), np.intp, len(keys))


def draw_rows(
    ax: Axes,
    rows: list[Row],
    window: tuple[float, float],
    th: Theme,
    step_marks: list[tuple[float, str]],
    layer: TextLayer,
    *,
    label_bars: bool,
) -> Drawn:
    ys, groups = row_y(rows)
    frame = set_up(ax, window, ys[-1] + 0.5 if ys else 1.0, th)
    drawn = Drawn(row_y=ys)
    queued = _Queued()
    for row, y in zip(rows, ys, strict=True):
        if row.kind is TrackKind.COUNTER:
            _counter(ax, row, y, frame.lo, th, drawn, queued.guides, frame.span_ms)
            drawn.bars_px.append(np.array([[frame.left, frame.to_py(y + 0.45), frame.right, frame.to_py(y - 0.45)]]))
        else:
            drawn.bars_px.append(_event_row(queued, row, y, frame, th, drawn, label_bars))
    ticks = _ticks(frame.span_ms)
    _add_artists(ax, queued, groups, step_marks, ticks, frame, th, drawn)
    taken: list[Box] = []
    row_labels(layer, rows, ys, frame, th, taken)
    group_labels(layer, groups, frame, th, taken)
    axis_labels(layer, step_marks, ticks, frame, th, taken)
    bar_labels(layer, queued.labels, frame, taken)
    for spine in ax.spines.values():
        spine.set_color(th.grid)
    return drawn


def _event_row(
    queued: _Queued, row: Row, y: float, frame: Frame, th: Theme, drawn: Drawn, label_bars: bool
) -> np.ndarray:
    """Queue a row's bars (and its instants as markers); returns the bars' boxes in figure px."""
    if not row.events:
        return np.zeros((0, 4))
    starts, ends = extents(row, frame.lo, frame.hi)
    point = ends - starts <= 0
    if point.any():
        queued.markers_x.extend(starts[point].tolist())
        queued.markers_y.extend([y] * int(point.sum()))
        drawn.legend[LEGEND_NAMES[Category.MARKER]] = (th.categories[Category.MARKER], "marker")
    keep = ~point
    keys = list(map(_KEY, row.events))
    codes = queued.code_of(keys, th)
    drawn_keys = keys if keep.all() else [k for k, p in zip(keys, point.tolist(), strict=True) if not p]
    for key in dict.fromkeys(drawn_keys):  # an instant is a marker, not a bar of its category
        drawn.legend.setdefault(legend_label(*key), (bar_color(th, *key), "bar"))
    height = 0.62 if row.kind in (TrackKind.GPU_STREAM, TrackKind.CUDA_API) else 0.5
    y0, y1 = y - height / 2, y + height / 2
    bs, bt, bc = boxes(starts[keep], ends[keep], codes[keep], frame.px_per_ms)
    corners = np.empty((len(bs), 4, 2))
    corners[:, 0:2, 0] = bs[:, None]
    corners[:, 2:4, 0] = bt[:, None]
    corners[:, (0, 3), 1] = y0
    corners[:, (1, 2), 1] = y1
    queued.verts.append(corners)
    queued.codes.append(bc)
    if label_bars:
        for i in np.flatnonzero(ends - starts > frame.span_ms * 0.045).tolist():
            e, a, b = row.events[i], float(starts[i]), float(ends[i])
            queued.labels.append((b - a, (a + b) / 2, y, short_name(e.name), _ink(bar_color(th, e.category, e.kind))))
    px = np.empty((len(bs), 4))
    px[:, 0], px[:, 2] = frame.left + bs * frame.px_per_ms, frame.left + bt * frame.px_per_ms
    px[:, 1], px[:, 3] = frame.to_py(y1), frame.to_py(y0)
    return px


def _add_artists(
    ax: Axes,
    queued: _Queued,
    groups: list[tuple[str, float, float]],
    step_marks: list[tuple[float, str]],
    ticks: list[float],
    frame: Frame,
    th: Theme,
    drawn: Drawn,
) -> None:
    """Bars, markers, counter guides, group bands, step boundaries and tick lines, in that order."""
    if queued.verts:
        add_bars(ax, np.concatenate(queued.verts), np.concatenate(queued.codes), list(queued.colours))
    if queued.markers_x:
        ax.scatter(queued.markers_x, queued.markers_y, marker="v", s=36, color=th.categories[Category.MARKER], zorder=3)
    if queued.guides:
        ax.add_collection(LineCollection(queued.guides, colors=th.grid, linewidths=0.8, linestyles="dotted", zorder=1))
    for _name, top, bottom in groups:
        ax.axhspan(top - 0.1, bottom + 0.1, color=th.row_alt, zorder=0, lw=0)
    total = frame.total
    if step_marks:
        segs = [[((t - frame.lo) / 1000, -0.2), ((t - frame.lo) / 1000, total + 0.2)] for t, _ in step_marks]
        ax.add_collection(LineCollection(segs, colors=th.muted, linewidths=1.0, linestyles="dashed", zorder=2))
        drawn.legend["step boundary (GPU)"] = (th.muted, "dashed")
    ax.add_collection(
        LineCollection([[(t, -0.6), (t, total + 0.2)] for t in ticks], colors=th.grid, linewidths=0.6, zorder=0)
    )


@lru_cache(maxsize=64)
def _ink(color: str) -> str:
    """White text on dark bars, near-black on light ones."""
    r, g, b = to_rgb(color)
    return "#ffffff" if 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.55 else "#1a1b1e"


def _ticks(span_ms: float) -> list[float]:
    return [float(t) for t in MaxNLocator(nbins=8).tick_values(0, span_ms) if 0 <= t <= span_ms]


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
