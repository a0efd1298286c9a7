"""The Nsight-Systems-style picture, drawn with matplotlib's Agg canvas (no pyplot: thread-safe).

Timeline on the left (timeline.py), the top-kernels table and a key of what is drawn on the right (panel.py),
reveal callouts placed off the evidence (callouts.py). Text is composited from cached sprites (sprites.py).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..scenarios.model import Category, Scenario, TrackKind
from .callouts import Callout, annotate
from .kernels import top_kernels
from .panel import kernel_table, legend
from .rows import Row, layout
from .sprites import Placed, composite, measure, place, placed
from .theme import Theme, theme
from .timeline import LEGEND_NAMES, LIGHT_COMPUTE, draw_rows

WIDTH_IN, HEIGHT_IN, DPI = 16.0, 9.0, 100
AXES_LEFT, AXES_RIGHT, PANEL_LEFT, PANEL_RIGHT = 0.175, 0.755, 0.772, 0.99


@dataclass(slots=True)
class Picture:
    """A drawn, not yet encoded, picture and where its parts landed (for layout tests)."""

    fig: Figure
    background: str
    callouts: list[Callout] = field(default_factory=list)
    legend: list[str] = field(default_factory=list)

    @property
    def texts(self) -> list[Placed]:
        return list(placed(self.fig))


def render_png(scenario: Scenario, *, theme_name: str = "light", reveal: bool = False) -> bytes:
    """The drill picture (or, with `reveal`, the annotated reveal picture) as PNG bytes."""
    pic = draw(scenario, theme_name=theme_name, reveal=reveal)
    return encode_png(pic.fig, pic.background)


def draw(scenario: Scenario, *, theme_name: str = "light", reveal: bool = False) -> Picture:
    th = theme(theme_name)
    lay = layout(scenario)
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, facecolor=th.background)
    FigureCanvasAgg(fig)
    pic = Picture(fig, th.background)
    W, H = fig.bbox.width, fig.bbox.height
    # The axes start under the header, however many context lines it has.
    top = min(0.80 if reveal else 0.84, (_header(fig, scenario, th, reveal) - 22) / H)
    width = AXES_RIGHT - AXES_LEFT
    zoom = lay.zoom
    if zoom is not None:
        main = fig.add_axes((AXES_LEFT, 0.36, width, top - 0.36))
        inset = fig.add_axes((AXES_LEFT, 0.07, width, 0.22))
    else:
        main = fig.add_axes((AXES_LEFT, 0.07, width, top - 0.07))
        inset = None
    drawn = draw_rows(main, lay.rows, lay.window, th, lay.step_marks, label_bars=True)
    keys = dict(drawn.legend)
    inset_drawn = None
    zoom_rows: list[Row] = []
    if inset is not None and zoom is not None:
        zoom_rows = _reclip(
            [r for r in lay.rows if r.kind in (TrackKind.CUDA_API, TrackKind.GPU_STREAM) and r.rank == 0], zoom
        )
        inset_drawn = draw_rows(inset, zoom_rows, zoom, th, [], label_bars=False)
        pos = inset.get_position()
        place(fig, pos.x0 * W, pos.y1 * H + 4, f"zoom: {(zoom[1] - zoom[0]) / 1000:.0f} ms", 10, th.text, va="bottom")
        lo = (zoom[0] - lay.window[0]) / 1000
        main.axvspan(lo, lo + (zoom[1] - zoom[0]) / 1000, color=th.muted, alpha=0.18, lw=0)
        keys["zoomed window"] = (th.muted, "area")
    if reveal and scenario.annotations:
        keys["evidence"] = (th.highlight, "highlight")
    keys = _ordered(keys)
    x0, x1 = PANEL_LEFT * W, PANEL_RIGHT * W
    y = kernel_table(fig, x0, x1, top * H, top_kernels(scenario, lay), lay.steps_in_window, th)
    legend(fig, x0, y - 14, keys, th)
    if reveal:
        in_zoom = [
            a for a in scenario.annotations if zoom is not None and a.start >= zoom[0] - 1 and a.end <= zoom[1] + 1
        ]
        rest = [a for a in scenario.annotations if a not in in_zoom]
        annotate(main, lay.rows, drawn, lay.window, rest, th, pic.callouts, PANEL_RIGHT * W)
        if inset is not None and inset_drawn is not None and zoom is not None:
            annotate(inset, zoom_rows, inset_drawn, zoom, in_zoom, th, pic.callouts, PANEL_RIGHT * W)
    pic.legend = list(keys)
    return pic


def encode_png(fig: Figure, facecolor: str = "white") -> bytes:
    """Draw, blend the text sprites in, and encode; the benchmark's floor (an empty figure) goes through here.

    Drawing on the Agg canvas and encoding its buffer directly skips savefig's second render pass."""
    fig.set_facecolor(facecolor)
    canvas = fig.canvas
    canvas.draw()
    pixels = np.array(canvas.buffer_rgba())  # type: ignore[attr-defined]
    composite(fig, pixels)
    return png_bytes(pixels)


def png_bytes(rgba: np.ndarray, level: int = 3) -> bytes:
    """An 8-bit RGB PNG of an (h, w, 4) uint8 buffer, alpha dropped.

    Every row uses filter type 0 (None): Pillow's per-row adaptive filter search was most of the encode time,
    and flat-coloured timelines compress better unfiltered (~150 KB vs ~165 KB at half the CPU)."""
    h, w = rgba.shape[:2]
    raw = np.empty((h, w * 3 + 1), dtype=np.uint8)
    raw[:, 0] = 0
    raw[:, 1:] = rgba[..., :3].reshape(h, w * 3)
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit truecolour, deflate, no interlace
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(raw.tobytes(), level)),
            _chunk(b"IEND", b""),
        )
    )


def _chunk(tag: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))


_ORDER = (
    [LEGEND_NAMES[c] for c in (Category.COMPUTE,)]
    + [LIGHT_COMPUTE]
    + [
        LEGEND_NAMES[c]
        for c in (
            Category.NCCL,
            Category.MEMCPY,
            Category.LAUNCH,
            Category.SYNC,
            Category.MALLOC,
            Category.CPU_OP,
            Category.DATALOADER,
            Category.STEP,
            Category.RANGE,
            Category.MARKER,
        )
    ]
)


def _ordered(keys: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """The key in one fixed order in every picture (categories first), whatever was drawn first."""
    rank = {label: i for i, label in enumerate(_ORDER)}
    return dict(sorted(keys.items(), key=lambda kv: rank.get(kv[0], len(rank))))


def _reclip(rows: list[Row], window: tuple[float, float]) -> list[Row]:
    lo, hi = window
    return [
        Row(
            r.label,
            r.group,
            r.kind,
            r.rank,
            r.track,
            [e for e in r.events if e.end > lo and e.start < hi],
            r.times,
            r.values,
            r.unit,
            r.scale,
        )
        for r in rows
    ]


def _fit_lines(text: str, max_px: float, size: float) -> list[str]:
    """Greedy word wrap by measured width (bold)."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        trial = f"{current} {word}".strip()
        if current and measure(trial, size, bold=True)[0] > max_px:
            lines.append(current)
            current = word
        else:
            current = trial
    return [*lines, current]


def header_lines(s: Scenario) -> list[str]:
    """What the drill picture tells the reader: the interview context, never the answer."""
    c = s.context
    return [
        c.title,
        f"Hardware: {c.hardware}    Model: {c.model}",
        f"Parallelism: {c.parallelism}",
        *c.details,
        f"Complaint: {c.complaint}",
        DRILL_PROMPT,
    ]


DRILL_PROMPT = "What is wrong? Read: step → gaps → overlap → top kernels"


def _header(fig: Figure, s: Scenario, th: Theme, reveal: bool) -> float:
    """Title, context lines and (in a reveal) the headline; returns the y (figure px) of the lowest text."""
    title, *lines, _prompt = header_lines(s)
    width, height = fig.bbox.width, fig.bbox.height
    x = 0.012 * width
    place(fig, x, 0.975 * height, title, 17, th.text, bold=True, va="top", role="header")
    y = 0.935 * height
    for line in lines:
        place(fig, x, y, line, 10.5, th.text, va="top", role="header")
        y -= 10.5 * 1.45 * DPI / 72
    if reveal:
        y = min(y, 0.835 * height)
        for line in _fit_lines("Reveal: " + s.reveal.headline, width - 2 * x, 12)[:2]:
            y -= place(fig, x, y, line, 12, th.highlight, bold=True, va="top", role="header").img.shape[0] - 2
    else:
        place(fig, 0.988 * width, 0.975 * height, DRILL_PROMPT, 10, th.muted, ha="right", va="top", role="header")
    return y
