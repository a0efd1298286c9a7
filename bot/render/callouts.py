"""Reveal callouts placed off the evidence.

The evidence (a time span on one row) gets a highlight at least MIN_HIGHLIGHT_PX wide. Its callout box goes
where it covers the least: every candidate position in the axes is scored against a cost image of what is
already drawn (bars, counter rows, text, highlights, earlier callouts) with a summed-area table, plus a small
pull towards the evidence. Text sprites a callout still covers are dropped, so nothing prints over a box.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle
from matplotlib.transforms import IdentityTransform

from ..scenarios.model import Annotation
from .rows import Row
from .sprites import TextLayer
from .theme import Theme
from .timeline import Drawn

MIN_HIGHLIGHT_PX = 10.0
CELL = 3  # the cost image is kept at 3 × 3 px cells: placement to a few pixels is plenty
PAD = 6
FONT = 11
_COST_BAR, _COST_TEXT, _COST_BLOCK = 3.0, 8.0, 400.0
_PULL = 0.35  # cost per pixel of distance from the evidence
Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in figure px (origin bottom-left)


@dataclass(frozen=True, slots=True)
class Callout:
    box: Box
    evidence: Box
    label: str


def annotate(
    ax: Axes,
    layer: TextLayer,
    rows: list[Row],
    drawn: Drawn,
    window: tuple[float, float],
    annotations: list[Annotation],
    th: Theme,
    taken: list[Callout],
    room_right: float,
) -> list[Callout]:
    """Highlight each annotation's evidence and put its callout where it covers least, anywhere from the axes'
    left edge to `room_right` (figure px) at the axes' height."""
    fig = ax.get_figure(root=True)
    assert fig is not None
    W, H = int(fig.bbox.width), int(fig.bbox.height)
    left, bottom, right, top = _axes_px(ax, W, H)
    evidence = _evidence(ax, (left, bottom, right, top), rows, drawn, window, annotations)
    cost = _cost_image(W, H, drawn, layer, [ev for ev, _ in evidence], taken)
    out: list[Callout] = []
    for ev, a in evidence:
        fig.add_artist(_highlight(ev, th, wide=ev[2] - ev[0] > 0.4 * (right - left)))
        lines = _wrap(layer, a.label)
        sizes = [layer.measure(line, FONT, bold=True) for line in lines]
        bw = max(w for w, _ in sizes) + 2 * PAD
        bh = sum(h for _, h in sizes) + 2 * PAD
        bx0, by0 = _best_spot(cost, (left, bottom, room_right, top), bw, bh, ((ev[0] + ev[2]) / 2, (ev[1] + ev[3]) / 2))
        call = Callout((bx0, by0, bx0 + bw, by0 + bh), ev, a.label)
        _block(cost, call.box, _COST_BLOCK)
        out.append(call)
        fig.add_artist(_box(bx0, by0, bw, bh, th))
        fig.add_artist(_arrow(ev, bx0, by0, bw, bh, th))
        _drop_covered(layer, call.box)
        y = by0 + bh - PAD
        for line, (_, h) in zip(lines, sizes, strict=True):
            layer.place(bx0 + PAD, y, line, FONT, th.text, bold=True, va="top", role="callout")
            y -= h
    taken.extend(out)
    return out


def _axes_px(ax: Axes, W: int, H: int) -> Box:
    """The axes' left, bottom, right, top in figure px."""
    pos = ax.get_position()
    return pos.x0 * W, pos.y0 * H, pos.x1 * W, pos.y1 * H


def _evidence(
    ax: Axes,
    area: Box,
    rows: list[Row],
    drawn: Drawn,
    window: tuple[float, float],
    annotations: list[Annotation],
) -> list[tuple[Box, Annotation]]:
    """Each annotation's evidence box in figure px (x0, y0, x1, y1), at least MIN_HIGHLIGHT_PX wide; annotations
    on a row not drawn or outside the window are left out."""
    lo, hi = window
    left, bottom, right, top = area
    px_per_ms = (right - left) / ((hi - lo) / 1000)
    y_lo, y_hi = ax.get_ylim()  # inverted: y_lo is the bottom
    px_per_row = (top - bottom) / (y_lo - y_hi)

    def to_py(y: float) -> float:
        return float(top - (y - y_hi) * px_per_row)

    out: list[tuple[Box, Annotation]] = []
    for a in annotations:
        idx = next((i for i, r in enumerate(rows) if r.rank == a.rank and r.track == a.track), None)
        s, e = max(a.start, lo), min(a.end, hi)
        if idx is None or e <= s:
            continue
        x0, x1 = left + (s - lo) / 1000 * px_per_ms, left + (e - lo) / 1000 * px_per_ms
        if x1 - x0 < MIN_HIGHLIGHT_PX:  # a 0.2 ms sliver must still be seen
            mid = (x0 + x1) / 2
            x0, x1 = max(left, mid - MIN_HIGHLIGHT_PX / 2), min(right, mid + MIN_HIGHLIGHT_PX / 2)
        y = drawn.row_y[idx]
        out.append(((x0, to_py(y + 0.5), x1, to_py(y - 0.5)), a))
    return out


def _highlight(ev: Box, th: Theme, *, wide: bool) -> Rectangle:
    """The evidence's fill; a wide span keeps its bars readable under a fainter one."""
    x0, y0, x1, y1 = ev
    return Rectangle(
        (x0, y0),
        x1 - x0,
        y1 - y0,
        transform=IdentityTransform(),
        facecolor=th.highlight,
        alpha=0.08 if wide else 0.25,
        edgecolor=th.highlight,
        linewidth=2.0,
        zorder=5,
    )


def _box(bx0: float, by0: float, bw: float, bh: float, th: Theme) -> FancyBboxPatch:
    return FancyBboxPatch(
        (bx0, by0),
        bw,
        bh,
        boxstyle="round,pad=0,rounding_size=5",
        transform=IdentityTransform(),
        facecolor=th.callout_bg,
        edgecolor=th.highlight,
        linewidth=1.6,
        zorder=7,
    )


def _arrow(ev: Box, bx0: float, by0: float, bw: float, bh: float, th: Theme) -> FancyArrowPatch:
    """From the box's edge facing the evidence to the middle of the evidence's facing edge."""
    ex0, ey0, ex1, ey1 = ev
    target = ((ex0 + ex1) / 2, ey1 if by0 >= ey1 else ey0)
    source = (min(max(target[0], bx0 + 8), bx0 + bw - 8), by0 if by0 >= ey1 else by0 + bh)
    return FancyArrowPatch(
        source,
        target,
        transform=IdentityTransform(),
        arrowstyle="-|>",
        mutation_scale=12,
        color=th.highlight,
        linewidth=1.6,
        zorder=6,
    )


def _wrap(layer: TextLayer, label: str, max_px: float = 330.0) -> list[str]:
    """One line, or two split at the space nearest the middle when the line would be wider than `max_px`."""
    if layer.measure(label, FONT, bold=True)[0] <= max_px or " " not in label:
        return [label]
    spaces = [i for i, c in enumerate(label) if c == " "]
    cut = min(spaces, key=lambda i: abs(i - len(label) / 2))
    return [label[:cut], label[cut + 1 :]]


def _cost_image(
    W: int, H: int, drawn: Drawn, layer: TextLayer, evidence: list[Box], taken: list[Callout]
) -> np.ndarray:
    """Per-pixel cost (rows bottom-up, like figure px)."""
    cost = np.zeros((H // CELL + 1, W // CELL + 1), dtype=np.float32)
    for boxes in drawn.bars_px:
        for x0, y0, x1, y1 in boxes:
            _block(cost, (x0, y0, x1, y1), _COST_BAR)
    for item in layer.items:
        _block(cost, item.box, _COST_BLOCK if item.role in ("header", "callout") else _COST_TEXT)
    for ev in evidence:
        _block(cost, (ev[0] - 4, ev[1] - 4, ev[2] + 4, ev[3] + 4), _COST_BLOCK)
    for c in taken:
        _block(cost, c.box, _COST_BLOCK)
    return cost


def _block(cost: np.ndarray, box: Box, value: float) -> None:
    H, W = cost.shape
    x0, y0 = max(int(box[0] // CELL), 0), max(int(box[1] // CELL), 0)
    x1, y1 = min(int(np.ceil(box[2] / CELL)), W), min(int(np.ceil(box[3] / CELL)), H)
    if x1 > x0 and y1 > y0:
        region = cost[y0:y1, x0:x1]
        np.maximum(region, value, out=region)


def _best_spot(cost: np.ndarray, area: Box, bw: float, bh: float, toward: tuple[float, float]) -> tuple[float, float]:
    """Lower-left corner of the cheapest bw × bh box inside `area`."""
    left, bottom, right, top = (v / CELL for v in area)
    bw_i, bh_i = int(np.ceil(bw / CELL)), int(np.ceil(bh / CELL))
    sat = np.zeros((cost.shape[0] + 1, cost.shape[1] + 1), dtype=np.float64)
    sat[1:, 1:] = cost.cumsum(0, dtype=np.float64).cumsum(1)
    xs = np.arange(int(np.ceil(left)) + 1, max(int(right - bw_i), int(left) + 2))
    ys = np.arange(int(np.ceil(bottom)) + 1, max(int(top - bh_i), int(bottom) + 2))
    X, Y = np.meshgrid(xs, ys)
    X1 = np.minimum(X + bw_i, cost.shape[1])
    Y1 = np.minimum(Y + bh_i, cost.shape[0])
    covered = (sat[Y1, X1] - sat[Y, X1] - sat[Y1, X] + sat[Y, X]) * CELL * CELL
    dist = np.hypot((X + bw_i / 2) * CELL - toward[0], (Y + bh_i / 2) * CELL - toward[1])
    total = covered + _PULL * dist
    i = np.unravel_index(int(np.argmin(total)), total.shape)
    return float(X[i] * CELL), float(Y[i] * CELL)


def _drop_covered(layer: TextLayer, box: Box) -> None:
    """Drop the row and bar labels a callout box covers: nothing prints over a box."""
    for item in list(layer.items):
        if item.role in ("bar", "label"):
            x0, y0, x1, y1 = item.box
            if x0 < box[2] and box[0] < x1 and y0 < box[3] and box[1] < y1:
                layer.remove(item)
