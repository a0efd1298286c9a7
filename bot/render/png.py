"""The Nsight-Systems-style picture, drawn with matplotlib's Agg canvas (no pyplot: thread-safe).

All bars of a picture are one PolyCollection; counters are one filled polygon per row. Text is kept to the
labels a reader needs, because text artists, not bars, are what make matplotlib slow.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator
from PIL import Image

from ..scenarios.model import Annotation, Category, Scenario, TrackKind
from .names import short_name
from .rows import Layout, Row, layout
from .sprites import composite, place
from .theme import Theme, theme

WIDTH_IN, HEIGHT_IN, DPI = 16.0, 9.0, 100
MAX_BAR_LABELS = 14
_LIGHTER_KINDS = {"elementwise", "norm", "optimizer", "tiny"}
_LEGEND = (Category.COMPUTE, Category.NCCL, Category.MEMCPY, Category.LAUNCH, Category.SYNC, Category.MALLOC,
           Category.CPU_OP, Category.DATALOADER)


def render_png(scenario: Scenario, *, theme_name: str = "light", reveal: bool = False) -> bytes:
    """The drill picture (or, with `reveal`, the annotated reveal picture) as PNG bytes."""
    th = theme(theme_name)
    lay = layout(scenario)
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, facecolor=th.background)
    FigureCanvasAgg(fig)
    has_zoom = lay.zoom is not None
    top = 0.80 if reveal else 0.84
    if has_zoom:
        main = fig.add_axes((0.17, 0.36, 0.81, top - 0.36))
        inset = fig.add_axes((0.17, 0.06, 0.81, 0.22))
    else:
        main = fig.add_axes((0.17, 0.07, 0.81, top - 0.07))
        inset = None
    _draw_rows(main, lay.rows, lay.window, th, lay.step_marks, label_bars=True)
    if inset is not None and lay.zoom is not None:
        zoom_rows = [r for r in lay.rows if r.kind in (TrackKind.CUDA_API, TrackKind.GPU_STREAM) and r.rank == 0]
        _draw_rows(inset, _reclip(zoom_rows, lay.zoom), lay.zoom, th, [], label_bars=False)
        pos = inset.get_position()
        place(fig, pos.x0 * fig.bbox.width, pos.y1 * fig.bbox.height + 4,
              f"zoom: {(lay.zoom[1] - lay.zoom[0]) / 1000:.0f} ms", 10, th.text, va="bottom")
        lo = (lay.zoom[0] - lay.window[0]) / 1000
        main.axvspan(lo, lo + (lay.zoom[1] - lay.zoom[0]) / 1000, color=th.muted, alpha=0.18, lw=0)
    _header(fig, scenario, th, reveal)
    _legend(fig, th)
    if reveal:
        _annotate(main, lay, scenario.annotations, th)
        if inset is not None and lay.zoom is not None:
            _annotate(inset, Layout(_reclip(lay.rows, lay.zoom), lay.zoom, [], None),
                      [a for a in scenario.annotations if a.start >= lay.zoom[0] - 1], th)
    return encode_png(fig, th.background)


def encode_png(fig: Figure, facecolor: str = "white") -> bytes:
    """Draw, blend the text sprites in, and encode; the benchmark's floor (an empty figure) goes through here.

    Drawing on the Agg canvas and encoding its buffer with Pillow skips savefig's second render pass."""
    fig.set_facecolor(facecolor)
    canvas = fig.canvas
    canvas.draw()
    pixels = np.array(canvas.buffer_rgba())  # type: ignore[attr-defined]
    composite(fig, pixels)
    buf = io.BytesIO()
    Image.fromarray(pixels[..., :3]).save(buf, format="png", compress_level=3)
    return buf.getvalue()


def _reclip(rows: list[Row], window: tuple[float, float]) -> list[Row]:
    lo, hi = window
    return [Row(r.label, r.group, r.kind, r.rank, r.track, [e for e in r.events if e.end > lo and e.start < hi],
                r.times, r.values, r.unit) for r in rows]


def _row_y(rows: Sequence[Row]) -> tuple[list[float], list[tuple[str, float, float]]]:
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


def _color(th: Theme, category: Category, kind: str) -> str:
    base = th.categories.get(category, th.muted)
    if category is Category.COMPUTE and kind in _LIGHTER_KINDS:
        return _mix(base, th.background, 0.45)
    if category is Category.COMPUTE and kind == "attn":
        return _mix(base, "#7048e8", 0.5)
    return base


@lru_cache(maxsize=256)
def _mix(a: str, b: str, t: float) -> str:
    ca = np.array([int(a[i : i + 2], 16) for i in (1, 3, 5)])
    cb = np.array([int(b[i : i + 2], 16) for i in (1, 3, 5)])
    c = (ca * (1 - t) + cb * t).round().astype(int)
    return "#" + "".join(f"{v:02x}" for v in c)


def _draw_rows(ax, rows: list[Row], window: tuple[float, float], th: Theme,  # type: ignore[no-untyped-def]
               step_marks: list[tuple[float, str]], *, label_bars: bool) -> None:
    lo, hi = window
    span_ms = (hi - lo) / 1000
    ys, groups = _row_y(rows)
    ax.set_facecolor(th.background)
    verts: list[np.ndarray] = []
    colors: list[str] = []
    labels: list[tuple[float, float, float, str]] = []
    markers_x: list[float] = []
    markers_y: list[float] = []
    for row, y in zip(rows, ys, strict=True):
        if row.kind is TrackKind.COUNTER:
            _counter(ax, row, y, lo, th)
            continue
        height = 0.62 if row.kind in (TrackKind.GPU_STREAM, TrackKind.CUDA_API) else 0.5
        if not row.events:
            continue
        starts = np.fromiter(((max(e.start, lo) - lo) / 1000 for e in row.events), float, len(row.events))
        ends = np.fromiter(((min(e.end, hi) - lo) / 1000 for e in row.events), float, len(row.events))
        point = ends - starts <= 0
        if point.any():
            markers_x.extend(starts[point].tolist())
            markers_y.extend([y] * int(point.sum()))
        # Sub-pixel bars still need a pixel to be seen: widen them to ~0.6 px.
        min_w = span_ms / 1300 * 0.6
        ends = np.maximum(ends, starts + min_w)
        y0, y1 = y - height / 2, y + height / 2
        box = np.empty((len(starts), 4, 2))
        box[:, 0, 0] = starts
        box[:, 1, 0] = starts
        box[:, 2, 0] = ends
        box[:, 3, 0] = ends
        box[:, 0, 1] = y0
        box[:, 1, 1] = y1
        box[:, 2, 1] = y1
        box[:, 3, 1] = y0
        keep = ~point
        verts.append(box[keep])
        colors.extend(_color(th, e.category, e.kind) for e, k in zip(row.events, keep, strict=True) if k)
        if label_bars:
            for e, s, t in zip(row.events, starts, ends, strict=True):
                if t - s > span_ms * 0.045:
                    labels.append((t - s, (s + t) / 2, y, short_name(e.name)))
    if verts:
        ax.add_collection(PolyCollection(np.concatenate(verts), facecolors=colors, linewidths=0,  # type: ignore[arg-type]
                                         antialiaseds=False))
    if markers_x:
        ax.scatter(markers_x, markers_y, marker="v", s=36, color=th.categories[Category.MARKER], zorder=3)
    for _name, top, bottom in groups:
        ax.axhspan(top - 0.1, bottom + 0.1, color=th.row_alt, zorder=0, lw=0)
    total = ys[-1] + 0.5 if ys else 1.0
    if step_marks:
        segs = [[((t - lo) / 1000, -0.2), ((t - lo) / 1000, total + 0.2)] for t, _ in step_marks]
        ax.add_collection(LineCollection(segs, colors=th.muted, linewidths=1.0, linestyles="dashed", zorder=2))
    ax.set_xlim(0, span_ms)
    ax.set_ylim(total + 0.2, -0.6)
    ax.set_yticks([])
    ticks = [t for t in MaxNLocator(nbins=8).tick_values(0, span_ms) if 0 <= t <= span_ms]
    ax.set_xticks([])
    ax.add_collection(LineCollection([[(t, -0.6), (t, total + 0.2)] for t in ticks], colors=th.grid,
                                     linewidths=0.6, zorder=0))
    # Text goes on as cached sprites now that the axes' transform is fixed (see sprites.py).
    fig = ax.figure
    to_px = ax.transData.transform
    left = ax.get_position().x0 * fig.bbox.width
    x_max = ax.get_position().x1 * fig.bbox.width
    for row, y in zip(rows, ys, strict=True):
        place(fig, left - 6, to_px((0, y))[1], row.label, 8.5, th.text, ha="right")
    for name, top, bottom in groups:
        place(fig, 0.012 * fig.bbox.width + 45, to_px((0, (top + bottom) / 2))[1], name, 10, th.muted, bold=True)
    for t, label in step_marks:
        x, y = to_px(((t - lo) / 1000, -0.35))
        if x < x_max - 30:
            place(fig, x + 2, y, label, 8, th.muted, va="bottom")
    bottom = ax.get_position().y0 * fig.bbox.height
    digits = 0 if span_ms >= 20 else (1 if span_ms >= 2 else 2)
    for t in ticks:
        place(fig, to_px((t, 0))[0], bottom - 4, f"{t:.{digits}f}", 9, th.muted, ha="center", va="top")
    place(fig, (left + x_max) / 2, bottom - 20, "time (ms)", 9, th.muted, ha="center", va="top")
    labels.sort(reverse=True)
    px_per_ms = (x_max - left) / span_ms
    for width, x, y, text in labels[:MAX_BAR_LABELS]:
        fit = int(width * px_per_ms / 6.2)
        if fit >= 6:
            shown = text if len(text) <= fit else text[: fit - 1] + "…"
            px, py = to_px((x, y))
            place(fig, px, py, shown, 7.5, "#ffffff", ha="center")
    for spine in ax.spines.values():
        spine.set_color(th.grid)


def _counter(ax, row: Row, y: float, lo: float, th: Theme) -> None:  # type: ignore[no-untyped-def]
    if not row.times:
        return
    t = (np.asarray(row.times) - lo) / 1000
    v = np.asarray(row.values)
    scale = 100.0 if row.unit == "%" else max(float(v.max()), 1e-9)
    base = y + 0.42
    heights = base - 0.84 * np.clip(v / scale, 0, 1)
    if row.unit == "%":
        xs = np.repeat(t, 2)[1:]
        xs = np.append(xs, t[-1] + (t[-1] - t[-2] if len(t) > 1 else 0))
        hs = np.repeat(heights, 2)
        ax.fill_between(xs, base, hs, color=th.counter, alpha=0.75, lw=0, step=None)
    else:
        ax.vlines(t, base, heights, color=th.counter, linewidth=2.0)
        peak = int(np.argmax(v))
        ax.text(t[peak], heights[peak] - 0.05, f"{v[peak]:.0f} {row.unit}", fontsize=8, color=th.text,
                ha="left", va="bottom")  # drawn after the limits are known; one label, plain text is fine


def header_lines(s: Scenario) -> list[str]:
    """What the drill picture tells the reader: the interview context, never the answer."""
    c = s.context
    return [c.title, f"Hardware: {c.hardware}    Model: {c.model}", f"Parallelism: {c.parallelism}",
            *c.details, f"Complaint: {c.complaint}", DRILL_PROMPT]


DRILL_PROMPT = "What is wrong? Read: step → gaps → overlap → top kernels"


def _header(fig: Figure, s: Scenario, th: Theme, reveal: bool) -> None:
    title, *lines, _prompt = header_lines(s)
    width, height = fig.bbox.width, fig.bbox.height
    x = 0.012 * width
    place(fig, x, 0.975 * height, title, 17, th.text, bold=True, va="top")
    y = 0.935 * height
    for line in lines:
        place(fig, x, y, line, 10.5, th.text, va="top")
        y -= 10.5 * 1.45 * DPI / 72
    if reveal:
        place(fig, x, 0.835 * height, "Reveal: " + s.reveal.headline, 12, th.highlight, bold=True, va="top")
    else:
        place(fig, 0.988 * width, 0.975 * height, DRILL_PROMPT, 10, th.muted, ha="right", va="top")


def _legend(fig: Figure, th: Theme) -> None:
    """Colour keys along the bottom right: patches plus sprite labels (matplotlib's legend is slow text)."""
    width = fig.bbox.width
    x = 0.985 * width
    y = 10.0
    for c in reversed(_LEGEND):
        w, _ = place(fig, x, y, c.value, 8, th.muted, ha="right", va="bottom")
        x -= w + 4
        fig.add_artist(Rectangle((x - 14, y + 2), 14, 9, transform=None, color=th.categories[c], lw=0))
        x -= 26


def _annotate(ax, lay: Layout, annotations: list[Annotation], th: Theme) -> None:  # type: ignore[no-untyped-def]
    ys, _ = _row_y(lay.rows)
    lo, hi = lay.window
    placed = 0
    for a in annotations:
        y = _find_row(lay.rows, ys, a)
        if y is None:
            continue
        s, e = max(a.start, lo), min(a.end, hi)
        if e <= s:
            continue
        x0, x1 = (s - lo) / 1000, (e - lo) / 1000
        ax.add_patch(Rectangle((x0, y - 0.5), x1 - x0, 1.0, facecolor=th.highlight, alpha=0.22,
                               edgecolor=th.highlight, linewidth=1.8, zorder=5))
        ax.annotate(a.label, xy=((x0 + x1) / 2, y - 0.5), xytext=(0.5, 1.0 - 0.09 * placed),
                    textcoords="axes fraction", ha="center", va="top", fontsize=11, fontweight="bold",
                    color=th.text, zorder=6,
                    bbox={"boxstyle": "round,pad=0.35", "fc": th.callout_bg, "ec": th.highlight, "lw": 1.5},
                    arrowprops={"arrowstyle": "->", "color": th.highlight, "lw": 1.6})
        placed += 1


def _find_row(rows: list[Row], ys: list[float], a: Annotation) -> float | None:
    for row, y in zip(rows, ys, strict=True):
        if row.rank == a.rank and row.track == a.track:
            return y
    return None
