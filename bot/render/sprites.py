"""Text as cached bitmaps. Rasterising glyphs is most of matplotlib's cost for a timeline; the same labels
(row names, kernel names, legend) recur in every picture, so each distinct string is drawn once per process
and composited as an image afterwards."""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties

_DPI = 100
_MEASURE = RendererAgg(8, 8, _DPI)  # measures text in pixels exactly as Agg will draw it


@lru_cache(maxsize=4096)
def sprite(text: str, size: float, color: str, bold: bool = False) -> np.ndarray:
    """RGBA pixels of `text`, tightly cropped (height × width × 4, uint8)."""
    prop = FontProperties(size=size, weight="bold" if bold else "normal")
    width_px, height_px, descent_px = _MEASURE.get_text_width_height_descent(text, prop, ismath=False)
    w = max(2, math.ceil(width_px) + 6)
    h = max(2, math.ceil(height_px) + 4)
    fig = Figure(figsize=(w / _DPI, h / _DPI), dpi=_DPI)
    fig.patch.set_alpha(0.0)
    canvas = FigureCanvasAgg(fig)
    fig.text(2 / w, (descent_px + 2) / h, text, fontproperties=prop, color=color, va="baseline")
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba()).copy()
    pixels.setflags(write=False)
    return pixels


@dataclass(slots=True)
class Placed:
    """A queued text sprite: its box in figure pixels (origin bottom-left) and what it is for."""

    x0: int
    y0: int
    img: np.ndarray
    text: str
    role: str  # header, label (row, group, axis, table, legend), bar (inside a bar), callout

    @property
    def box(self) -> tuple[int, int, int, int]:
        """The text's own extent: the sprite without its transparent padding (see `sprite`)."""
        h, w = self.img.shape[:2]
        return self.x0 + 2, self.y0 + 2, self.x0 + w - 4, self.y0 + h - 2


_LAYERS: weakref.WeakKeyDictionary[Figure, list[Placed]] = weakref.WeakKeyDictionary()


def measure(text: str, size: float, bold: bool = False) -> tuple[int, int]:
    """(width, height) in pixels of the sprite `place` would queue."""
    h, w = sprite(text, size, "#000000", bold).shape[:2]
    return w, h


def place(fig: Figure, x_px: float, y_px: float, text: str, size: float, color: str, *, bold: bool = False,
          ha: str = "left", va: str = "center", role: str = "label") -> Placed:
    """Queue `text` at figure pixel (x, y) (origin bottom-left) with the given alignment; it is blended into
    the rendered pixels by `composite`, above everything matplotlib draws."""
    img = sprite(text, size, color, bold)
    h, w = img.shape[:2]
    x0 = x_px - {"left": 0, "center": w / 2, "right": w}[ha]
    y0 = y_px - {"bottom": 0, "center": h / 2, "top": h, "baseline": h * 0.25}[va]
    item = Placed(round(x0), round(y0), img, text, role)
    _LAYERS.setdefault(fig, []).append(item)
    return item


def placed(fig: Figure) -> list[Placed]:
    """The sprites queued on `fig` so far (a live list: removing an item drops it from the picture)."""
    return _LAYERS.setdefault(fig, [])


def composite(fig: Figure, pixels: np.ndarray) -> None:
    """Alpha-blend the queued text into an RGBA buffer of the drawn figure (rows top to bottom)."""
    height, width = pixels.shape[:2]
    for item in _LAYERS.pop(fig, []):
        x0, y0, img = item.x0, item.y0, item.img
        h, w = img.shape[:2]
        top = height - y0 - h
        r0, c0 = max(top, 0), max(x0, 0)
        r1, c1 = min(top + h, height), min(x0 + w, width)
        if r1 <= r0 or c1 <= c0:
            continue
        src = img[r0 - top : r1 - top, c0 - x0 : c1 - x0].astype(np.float32)
        alpha = src[..., 3:4] / 255.0
        dst = pixels[r0:r1, c0:c1, :3].astype(np.float32)
        pixels[r0:r1, c0:c1, :3] = (src[..., :3] * alpha + dst * (1.0 - alpha)).astype(np.uint8)
