"""Text as cached bitmaps. Rasterising glyphs is most of matplotlib's cost for a timeline; the same labels
(row names, kernel names, legend) recur in every picture, so each distinct string is drawn once per process
and composited as an image afterwards."""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from matplotlib.backends.backend_agg import get_hinting_flag
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont, get_font

_DPI = 100
_FONT_LOCK = threading.Lock()  # FT2Font objects are shared per thread by matplotlib's cache; be safe anyway


@lru_cache(maxsize=4096)
def sprite(text: str, size: float, color: str, bold: bool = False) -> np.ndarray:
    """RGBA pixels of `text`, tightly cropped with 2 px of padding (height × width × 4, uint8).

    Glyphs are rasterised with FreeType exactly as Agg's draw_text does, minus the figure and canvas a
    matplotlib Text would need: a few hundred µs instead of several ms per new string."""
    prop = FontProperties(size=size, weight="bold" if bold else "normal")
    with _FONT_LOCK:
        font = get_font(findfont(prop))
        font.clear()
        font.set_size(size, _DPI)
        font.set_text(text, 0.0, flags=get_hinting_flag())
        font.draw_glyphs_to_bitmap(antialiased=True)
        alpha = np.asarray(font.get_image()).copy()
    h, w = alpha.shape
    pixels = np.zeros((h + 4, w + 6, 4), dtype=np.uint8)
    pixels[..., 0] = int(color[1:3], 16)
    pixels[..., 1] = int(color[3:5], 16)
    pixels[..., 2] = int(color[5:7], 16)
    pixels[2 : 2 + h, 2 : 2 + w, 3] = alpha
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


def place(
    fig: Figure,
    x_px: float,
    y_px: float,
    text: str,
    size: float,
    color: str,
    *,
    bold: bool = False,
    ha: str = "left",
    va: str = "center",
    role: str = "label",
) -> Placed:
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
