"""Text on a timeline's axes: row and group names, step labels, the time axis, names inside wide bars. Each
label is kept only where it overlaps no label kept before it."""

from __future__ import annotations

import numpy as np

from ..scenarios.model import TrackKind
from .frame import Frame
from .rows import Row
from .sprites import Placed, TextLayer
from .theme import Theme

MAX_BAR_LABELS = 14
Box = tuple[float, float, float, float]


def keep(layer: TextLayer, item: Placed, taken: list[Box]) -> bool:
    """Keep a just-queued label only if it overlaps none kept before (else drop it from the picture)."""
    x0, y0, x1, y1 = item.box
    if any(x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1 for b in taken):
        layer.remove(item)
        return False
    taken.append((x0, y0, x1, y1))
    return True


def row_labels(layer: TextLayer, rows: list[Row], ys: list[float], frame: Frame, th: Theme, taken: list[Box]) -> None:
    """Row names right-aligned against the axes, a second muted line for counters (mean, scale)."""
    pitch = frame.to_py(0.0) - frame.to_py(1.0)
    x = frame.left - 6
    for row, y in zip(rows, ys, strict=True):
        py = frame.to_py(y)
        if row.kind is TrackKind.COUNTER and row.values and pitch >= 27:
            keep(layer, layer.place(x, py + 1, row.label, 8.5, th.text, ha="right", va="bottom"), taken)
            keep(layer, layer.place(x, py - 1, _counter_note(row), 7.5, th.muted, ha="right", va="top"), taken)
        elif row.kind is TrackKind.COUNTER and row.values:
            text = f"{row.label} · {_counter_note(row, short=True)}"
            keep(layer, layer.place(x, py, text, 8, th.text, ha="right"), taken)
        else:
            keep(layer, layer.place(x, py, row.label, 8.5, th.text, ha="right"), taken)


def group_labels(
    layer: TextLayer, groups: list[tuple[str, float, float]], frame: Frame, th: Theme, taken: list[Box]
) -> None:
    """Group names at the far left (a 'rank 0 · …' name on two lines), left out where a one-line name would
    touch a row name."""
    for name, top, bottom in groups:
        x0 = 10
        y = frame.to_py((top + bottom) / 2)
        h = layer.measure(name, 9.5, bold=True)[1]
        parts = [name] if " · " not in name else name.split(" · ")
        if len(parts) > 1:
            h = 2 * h
        box = (x0, y - h / 2, x0 + max(layer.measure(p, 9.5, bold=True)[0] for p in parts), y + h / 2)
        if len(parts) == 1 and any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in taken):
            continue  # no room beside the row names: the rows say enough
        for i, part in enumerate(parts):
            item = layer.place(x0, y + h / 2 - i * h / len(parts), part, 9.5, th.muted, bold=True, va="top")
            keep(layer, item, taken)


def axis_labels(
    layer: TextLayer,
    step_marks: list[tuple[float, str]],
    ticks: list[float],
    frame: Frame,
    th: Theme,
    taken: list[Box],
) -> None:
    """Step names at the top of their boundary lines; tick values and 'time (ms)' under the axes."""
    for t, label in step_marks:
        x = frame.to_px(t)
        if x < frame.right - 30:
            keep(layer, layer.place(x + 2, frame.to_py(-0.35), label, 8, th.muted, va="bottom"), taken)
    span_ms = frame.span_ms
    digits = 0 if span_ms >= 20 else (1 if span_ms >= 2 else 2)
    for t in ticks:
        layer.place(
            frame.left + t * frame.px_per_ms, frame.bottom - 4, f"{t:.{digits}f}", 9, th.muted, ha="center", va="top"
        )
    layer.place((frame.left + frame.right) / 2, frame.bottom - 20, "time (ms)", 9, th.muted, ha="center", va="top")


def bar_labels(
    layer: TextLayer, labels: list[tuple[float, float, float, str, str]], frame: Frame, taken: list[Box]
) -> None:
    """Names inside the widest bars (width ms, centre ms, row y, name, ink), cut to fit, at most MAX_BAR_LABELS."""
    shown = 0
    for width, x, y, name, ink in sorted(labels, reverse=True):
        if shown >= MAX_BAR_LABELS:
            break
        fit = int(width * frame.px_per_ms / 6.2)
        if fit < 6:
            continue
        text = name if len(name) <= fit else name[: fit - 1] + "…"
        item = layer.place(frame.left + x * frame.px_per_ms, frame.to_py(y), text, 7.5, ink, ha="center", role="bar")
        if keep(layer, item, taken):
            shown += 1


def _counter_note(row: Row, *, short: bool = False) -> str:
    mean = float(np.mean(row.values))
    if row.unit == "%":
        return f"mean {mean:.0f}%" if short else f"mean {mean:.0f}% · guides 50/100%"
    if row.unit == "GB/s":
        return f"mean {mean:.0f}" if short else f"mean {mean:.0f} · peak {max(row.values):.0f} of {row.scale:.0f}"
    return f"mean {mean:.1f}" if short else f"mean {mean:.1f} · max {max(row.values):.0f} {row.unit}"
