"""The Nsight-Systems-style picture, drawn with matplotlib's Agg canvas (no pyplot: thread-safe).

Timeline on the left (timeline.py), the top-kernels table and a key of what is drawn on the right (panel.py),
reveal callouts placed off the evidence (callouts.py). Text goes on the picture's own layer of sprites, blended
over the drawn pixels when it is encoded (sprites.py, encode.py).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..scenarios.model import Category, Scenario, TrackKind
from .callouts import Callout, annotate
from .encode import encode_png
from .kernels import top_kernels
from .panel import kernel_table, legend
from .rows import Row, layout
from .sprites import DPI, Glyphs, Placed, TextLayer
from .theme import Theme, theme
from .timeline import LEGEND_NAMES, LIGHT_COMPUTE, draw_rows

WIDTH_IN, HEIGHT_IN = 16.0, 9.0
AXES_LEFT, AXES_RIGHT, PANEL_LEFT, PANEL_RIGHT = 0.175, 0.755, 0.772, 0.99


@dataclass(slots=True)
class Picture:
    """A drawn, not yet encoded, picture and where its parts landed (for layout tests)."""

    fig: Figure
    background: str
    layer: TextLayer
    callouts: list[Callout] = field(default_factory=list)
    legend: list[str] = field(default_factory=list)

    @property
    def texts(self) -> list[Placed]:
        return list(self.layer.items)

    def png(self) -> bytes:
        return encode_png(self.fig, self.background, layer=self.layer)


class Renderer:
    """Draws pictures. Each thread drawing with a renderer gets a `Glyphs` of its own, kept from picture to
    picture: the same labels recur in every picture, and rasterising them afresh costs ~30 ms a picture. The
    render cache keeps one renderer; a fresh one per picture draws the same pixels, only slower."""

    def __init__(self) -> None:
        self._local = threading.local()

    def glyphs(self) -> Glyphs:
        """This thread's glyphs."""
        glyphs: Glyphs | None = getattr(self._local, "glyphs", None)
        if glyphs is None:
            glyphs = self._local.glyphs = Glyphs()
        return glyphs

    def draw(self, scenario: Scenario, *, theme_name: str = "light", reveal: bool = False) -> Picture:
        return _draw(scenario, theme(theme_name), reveal, TextLayer(self.glyphs()))

    def png(self, scenario: Scenario, *, theme_name: str = "light", reveal: bool = False) -> bytes:
        """The drill picture (or, with `reveal`, the annotated reveal picture) as PNG bytes."""
        return self.draw(scenario, theme_name=theme_name, reveal=reveal).png()


def render_png(scenario: Scenario, *, theme_name: str = "light", reveal: bool = False) -> bytes:
    """One picture as PNG bytes, drawn by a renderer of its own (for one-off pictures: the CLI, the worker)."""
    return Renderer().png(scenario, theme_name=theme_name, reveal=reveal)


def draw(scenario: Scenario, *, theme_name: str = "light", reveal: bool = False) -> Picture:
    """One picture, not yet encoded, drawn by a renderer of its own."""
    return Renderer().draw(scenario, theme_name=theme_name, reveal=reveal)


def _draw(scenario: Scenario, th: Theme, reveal: bool, layer: TextLayer) -> Picture:
    lay = layout(scenario)
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, facecolor=th.background)
    FigureCanvasAgg(fig)
    pic = Picture(fig, th.background, layer)
    W, H = fig.bbox.width, fig.bbox.height
    # The axes start under the header, however many context lines it has.
    top = min(0.80 if reveal else 0.84, (_header(layer, fig, scenario, th, reveal) - 22) / H)
    main, inset = _axes(fig, top, lay.zoom is not None)
    drawn = draw_rows(main, lay.rows, lay.window, th, lay.step_marks, layer, label_bars=True)
    keys = dict(drawn.legend)
    inset_drawn = None
    zoom = lay.zoom
    zoom_rows: list[Row] = []
    if inset is not None and zoom is not None:
        zoom_rows = _reclip(
            [r for r in lay.rows if r.kind in (TrackKind.CUDA_API, TrackKind.GPU_STREAM) and r.rank == 0], zoom
        )
        inset_drawn = draw_rows(inset, zoom_rows, zoom, th, [], layer, label_bars=False)
        pos = inset.get_position()
        layer.place(pos.x0 * W, pos.y1 * H + 4, f"zoom: {(zoom[1] - zoom[0]) / 1000:.0f} ms", 10, th.text, va="bottom")
        lo = (zoom[0] - lay.window[0]) / 1000
        main.axvspan(lo, lo + (zoom[1] - zoom[0]) / 1000, color=th.muted, alpha=0.18, lw=0)
        keys["zoomed window"] = (th.muted, "area")
    if reveal and scenario.annotations:
        keys["evidence"] = (th.highlight, "highlight")
    keys = _ordered(keys)
    x0, x1 = PANEL_LEFT * W, PANEL_RIGHT * W
    y = kernel_table(layer, x0, x1, top * H, top_kernels(scenario, lay), lay.steps_in_window, th)
    legend(fig, layer, x0, y - 14, keys, th)
    if reveal:
        in_zoom = [
            a for a in scenario.annotations if zoom is not None and a.start >= zoom[0] - 1 and a.end <= zoom[1] + 1
        ]
        rest = [a for a in scenario.annotations if a not in in_zoom]
        annotate(main, layer, lay.rows, drawn, lay.window, rest, th, pic.callouts, PANEL_RIGHT * W)
        if inset is not None and inset_drawn is not None and zoom is not None:
            annotate(inset, layer, zoom_rows, inset_drawn, zoom, in_zoom, th, pic.callouts, PANEL_RIGHT * W)
    pic.legend = list(keys)
    return pic


def _axes(fig: Figure, top: float, zoomed: bool) -> tuple[Axes, Axes | None]:
    """The timeline axes under the header and, for a zoomed picture, the inset under it."""
    width = AXES_RIGHT - AXES_LEFT
    if zoomed:
        return fig.add_axes((AXES_LEFT, 0.36, width, top - 0.36)), fig.add_axes((AXES_LEFT, 0.07, width, 0.22))
    return fig.add_axes((AXES_LEFT, 0.07, width, top - 0.07)), None


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


def _fit_lines(layer: TextLayer, text: str, max_px: float, size: float) -> list[str]:
    """Greedy word wrap by measured width (bold)."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        trial = f"{current} {word}".strip()
        if current and layer.measure(trial, size, bold=True)[0] > max_px:
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


def _header(layer: TextLayer, fig: Figure, s: Scenario, th: Theme, reveal: bool) -> float:
    """Title, context lines and (in a reveal) the headline; returns the y (figure px) of the lowest text."""
    title, *lines, _prompt = header_lines(s)
    width, height = fig.bbox.width, fig.bbox.height
    x = 0.012 * width
    layer.place(x, 0.975 * height, title, 17, th.text, bold=True, va="top", role="header")
    y = 0.935 * height
    for line in lines:
        layer.place(x, y, line, 10.5, th.text, va="top", role="header")
        y -= 10.5 * 1.45 * DPI / 72
    if reveal:
        y = min(y, 0.835 * height)
        for line in _fit_lines(layer, "Reveal: " + s.reveal.headline, width - 2 * x, 12)[:2]:
            y -= layer.place(x, y, line, 12, th.highlight, bold=True, va="top", role="header").img.shape[0] - 2
    else:
        layer.place(0.988 * width, 0.975 * height, DRILL_PROMPT, 10, th.muted, ha="right", va="top", role="header")
    return y
