"""A Unicode block rendering of the same rows, for terminals and as alt text."""

from __future__ import annotations

import textwrap
from operator import attrgetter

import numpy as np

from ..scenarios.model import Category, Event, Scenario, TrackKind
from .kernels import table_lines, top_kernels
from .names import short_name
from .rows import Row, layout

LABEL = 20
SPARK = "▁▂▃▄▅▆▇█"
FULL = {
    Category.COMPUTE: "█",
    Category.NCCL: "▓",
    Category.MEMCPY: "▒",
    Category.LAUNCH: "▐",
    Category.SYNC: "─",
    Category.MALLOC: "═",
    Category.CPU_OP: "▬",
    Category.DATALOADER: "░",
    Category.RANGE: "=",
    Category.STEP: "-",
    Category.MARKER: "▼",
}
NAMES = {
    Category.COMPUTE: "compute",
    Category.NCCL: "NCCL",
    Category.MEMCPY: "memcpy",
    Category.LAUNCH: "launch",
    Category.SYNC: "sync",
    Category.MALLOC: "malloc",
    Category.CPU_OP: "CPU op",
    Category.DATALOADER: "dataloader",
    Category.RANGE: "NVTX range",
    Category.STEP: "ProfilerStep",
    Category.MARKER: "request arrives",
}
PARTIAL = ("▌", "▏")


def render_text(scenario: Scenario, width: int = 100, *, header: bool = True) -> str:
    """The timeline in `width` columns (at least 50)."""
    width = max(50, width)
    lay = layout(scenario)
    cols = width - LABEL - 2
    lo, hi = lay.window
    cell = (hi - lo) / cols
    lines: list[str] = []
    if header:
        c = scenario.context
        lines.append(c.title)
        for line in c.lines():
            lines.extend(textwrap.wrap(line, width, subsequent_indent="  "))
        lines.append("")
    group = None
    drawn: set[str] = set()
    for row in lay.rows:
        if row.group != group:
            group = row.group
            lines.append(f"{group}")
        label = row.label if len(row.label) <= LABEL - 1 else row.label[: LABEL - 2] + "…"
        cells = _cells(row, lo, cell, cols, drawn)
        if row.kind is TrackKind.COUNTER and row.values:
            drawn.add("counter")
        lines.append(f"{label:>{LABEL - 1}} │{cells}│")
    lines.append(" " * LABEL + _axis(lo, hi, cols))
    lines.append(" " * LABEL + "time (ms)")
    lines.extend(textwrap.wrap(legend_text(drawn), width))
    lines.append("")
    lines.append(f"Top kernels, rank 0, over the {lay.steps_in_window:.0f} step(s) drawn:")
    lines.extend(table_lines(top_kernels(scenario, lay), width))
    return "\n".join(lines)


def legend_text(drawn: set[str]) -> str:
    """A key naming only the glyphs that appear in the rows above."""
    keys = [f"{glyph} {NAMES[c]}" for c, glyph in FULL.items() if c.value in drawn]
    merged: dict[str, list[str]] = {}
    for key in keys:  # one glyph may stand for two categories (e.g. the bar of a range and of a step)
        glyph, name = key.split(" ", 1)
        merged.setdefault(glyph, []).append(name)
    parts = [f"{g} {'/'.join(n)}" for g, n in merged.items()]
    if drawn & set(PARTIAL):
        parts.append("▌ partly busy")
    if "counter" in drawn:
        parts.append("▁▄█ metric, 0 → full scale")
    return "Key: " + "  ".join(parts) + "  (blank) idle"


def _cells(row: Row, lo: float, cell: float, cols: int, drawn: set[str]) -> str:
    """The row's characters; adds the category values (and partial glyphs) it uses to `drawn`."""
    if row.kind is TrackKind.COUNTER:
        return _spark(row, lo, cell, cols)
    cover, share, first = _coverage(row.events, lo, cell, cols)
    ranked = np.where(share == share.max(axis=1, keepdims=True), first, len(row.events) * cols + 1)
    top = ranked.argmin(axis=1).tolist()  # the biggest share; between equals, the first to reach the cell
    out = []
    for i, c in enumerate(cover.tolist()):
        if c <= 0.0:
            out.append(" ")
            continue
        category = _CATEGORIES[top[i]]
        glyph = FULL.get(category, "█")
        if row.kind is TrackKind.GPU_STREAM and c < 0.6:
            glyph = "▌" if c >= 0.15 else "▏"
        drawn.add(glyph if glyph in PARTIAL else category.value)
        out.append(glyph)
    text = "".join(out)
    if row.kind in (TrackKind.ANNOTATION, TrackKind.CPU_THREAD):
        text = _inline_names(row, lo, cell, list(text))
    return text


_CATEGORIES = list(Category)
_INDEX = {c: k for k, c in enumerate(_CATEGORIES)}
_START, _DUR = attrgetter("start"), attrgetter("dur")


def _coverage(events: list[Event], lo: float, cell: float, cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column: how busy it is (an instant event makes it 1.0, later events add to that), each category's
    share (an instant event counts 1e9) and the order in which each category first reached it.

    Numpy over every (event, column) pair it touches, in event order, so each sum is added in the order a loop
    over the events would add it: the same floats, bit for bit."""
    n = len(events)
    start = np.fromiter(map(_START, events), float, n)
    dur = np.fromiter(map(_DUR, events), float, n)
    category = np.fromiter((_INDEX[e.category] for e in events), np.int64, n)
    end = start + dur
    instant = dur <= 0
    a = ((start - lo) / cell).astype(np.int64)
    b = ((end - lo) / cell).astype(np.int64)
    a = np.where(instant, a, np.maximum(a, 0))
    b = np.where(instant, a, np.minimum(b, cols - 1))
    span = np.where(instant & ((a < 0) | (a >= cols)), 0, np.maximum(b - a + 1, 0))
    ev = np.repeat(np.arange(n), span)
    col = a[ev] + (np.arange(len(ev)) - np.repeat(np.cumsum(span) - span, span))
    c0, c1 = lo + col * cell, lo + (col + 1) * cell
    part = (np.minimum(end[ev], c1) - np.maximum(start[ev], c0)) / cell
    part = np.where(instant[ev], 1e9, part)
    keep = part > 0
    ev, col, part = ev[keep], col[keep], part[keep]
    kinds = len(_CATEGORIES)
    share = np.zeros((cols, kinds))
    np.add.at(share, (col, category[ev]), part)
    first = np.full((cols, kinds), n * cols + 1, dtype=np.int64)
    np.minimum.at(first, (col, category[ev]), np.arange(len(ev)))
    # Cover: an instant event sets its column to 1.0, so only the parts of later events are added to it.
    reset = np.full(cols, -1, dtype=np.int64)
    np.maximum.at(reset, col[instant[ev]], ev[instant[ev]])
    cover = np.where(reset >= 0, 1.0, 0.0)
    later = ev > reset[col]
    np.add.at(cover, col[later], part[later])
    return cover, share, first


def _inline_names(row: Row, lo: float, cell: float, chars: list[str]) -> str:
    """Write a range's name inside it where it fits, the way the domain diagrams do."""
    for e in row.events:
        a = max(0, int((e.start - lo) / cell)) + 1
        b = min(len(chars) - 1, int((e.end - lo) / cell)) - 1
        name = short_name(e.name)
        if b - a >= len(name) + 2:
            mid = a + (b - a - len(name)) // 2
            chars[mid : mid + len(name) + 2] = list(f" {name} ")
    return "".join(chars)


def _spark(row: Row, lo: float, cell: float, cols: int) -> str:
    sums = [0.0] * cols
    counts = [0] * cols
    for t, v in zip(row.times, row.values, strict=True):
        i = int((t - lo) / cell)
        if 0 <= i < cols:
            sums[i] += v
            counts[i] += 1
    scale = 100.0 if row.unit == "%" else max(row.values or [1.0]) or 1.0
    out = []
    for s, n in zip(sums, counts, strict=True):
        if n == 0:
            out.append(" ")
            continue
        level = min(len(SPARK) - 1, int(s / n / scale * (len(SPARK) - 1) + 0.5))
        out.append(SPARK[level] if s > 0 else " ")
    return "".join(out)


def _axis(lo: float, hi: float, cols: int) -> str:
    span_ms = (hi - lo) / 1000
    ticks = 5
    chars = [" "] * (cols + 2)
    for k in range(ticks + 1):
        pos = int(k * cols / ticks)
        label = f"{k * span_ms / ticks:.{0 if span_ms >= 50 else 1}f}"
        start = min(pos, cols + 2 - len(label))
        chars[start : start + len(label)] = list(label)
    return "".join(chars)
