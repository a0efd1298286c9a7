"""Text as cached bitmaps. Rasterising glyphs is most of matplotlib's cost for a timeline; the same labels
(row names, kernel names, legend) recur in every picture, so each distinct string is drawn once per process
and composited as an image afterwards."""

from __future__ import annotations

import math
import weakref
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


_LAYERS: weakref.WeakKeyDictionary[Figure, list[tuple[int, int, np.ndarray]]] = weakref.WeakKeyDictionary()


def place(fig: Figure, x_px: float, y_px: float, text: str, size: float, color: str, *, bold: bool = False,
          ha: str = "left", va: str = "center") -> tuple[int, int]:
    """Queue `text` at figure pixel (x, y) (origin bottom-left) with the given alignment; it is blended into
    the rendered pixels by `composite`, above everything matplotlib draws. Returns (width, height)."""
    img = sprite(text, size, color, bold)
    h, w = img.shape[:2]
    x0 = x_px - {"left": 0, "center": w / 2, "right": w}[ha]
    y0 = y_px - {"bottom": 0, "center": h / 2, "top": h, "baseline": h * 0.25}[va]
    _LAYERS.setdefault(fig, []).append((round(x0), round(y0), img))
    return w, h


def composite(fig: Figure, pixels: np.ndarray) -> None:
    """Alpha-blend the queued text into an RGBA buffer of the drawn figure (rows top to bottom)."""
    height, width = pixels.shape[:2]
    for x0, y0, img in _LAYERS.pop(fig, []):
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
