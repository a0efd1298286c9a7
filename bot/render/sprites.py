"""Text as bitmaps. Rasterising glyphs is most of matplotlib's cost for a timeline; the same labels (row names,
kernel names, legend) recur in every picture, so a `Glyphs` draws each distinct string once and keeps it, and a
picture's `TextLayer` composites the bitmaps over the drawn pixels afterwards.

Neither is shared between threads: a renderer gives each thread its own `Glyphs` (see png.Renderer), and a
`TextLayer` belongs to the one picture it is drawn on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import cast

import numpy as np
from matplotlib.backends.backend_agg import get_hinting_flag
from matplotlib.colors import to_rgb
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.ft2font import LoadFlags

DPI = 100  # of the pictures too: a sprite's pixels are the figure's
SPRITES_KEPT = 4096  # distinct (text, size, colour, weight) bitmaps a Glyphs keeps

# The FreeType load flags Agg's draw_text uses (matplotlib ships this function without annotations).
_hinting_flag = cast(Callable[[], LoadFlags], get_hinting_flag)


def _rasterise(text: str, size: float, color: str, bold: bool) -> np.ndarray:
    """RGBA pixels of `text`, tightly cropped with 2 px of padding (height × width × 4, uint8, read-only).

    Glyphs are rasterised with FreeType exactly as Agg's draw_text does, minus the figure and canvas a matplotlib
    Text would need: a few hundred µs instead of several ms per new string. matplotlib's font cache keys its
    FT2Font objects by thread, so the per-string state set here (size, text, bitmap) is this thread's alone."""
    prop = FontProperties(size=size, weight="bold" if bold else "normal")
    font = get_font(findfont(prop))
    font.clear()
    font.set_size(size, DPI)
    font.set_text(text, 0.0, flags=_hinting_flag())
    font.draw_glyphs_to_bitmap(antialiased=True)
    alpha = np.asarray(font.get_image())
    h, w = alpha.shape
    pixels = np.zeros((h + 4, w + 6, 4), dtype=np.uint8)
    pixels[..., :3] = np.round(np.multiply(to_rgb(color), 255))
    pixels[2 : 2 + h, 2 : 2 + w, 3] = alpha
    pixels.setflags(write=False)
    return pixels


class Glyphs:
    """The text measurer and rasteriser of one thread, keeping what it has drawn (least recently used dropped)."""

    def __init__(self, kept: int = SPRITES_KEPT) -> None:
        self.sprite: Callable[[str, float, str, bool], np.ndarray] = lru_cache(maxsize=kept)(_rasterise)

    def measure(self, text: str, size: float, bold: bool = False) -> tuple[int, int]:
        """(width, height) in pixels of the sprite `TextLayer.place` would queue."""
        h, w = self.sprite(text, size, "#000000", bold).shape[:2]
        return w, h


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
        """The text's own extent: the sprite without its transparent padding (see `_rasterise`)."""
        h, w = self.img.shape[:2]
        return self.x0 + 2, self.y0 + 2, self.x0 + w - 4, self.y0 + h - 2


_HA = {"left": 0.0, "center": 0.5, "right": 1.0}  # share of the width left of x
_VA = {"bottom": 0.0, "center": 0.5, "top": 1.0, "baseline": 0.25}  # share of the height below y


class TextLayer:
    """The text of one picture: sprites queued at figure pixels, blended over the drawn pixels by `composite`,
    above everything matplotlib draws."""

    def __init__(self, glyphs: Glyphs) -> None:
        self.glyphs = glyphs
        self.items: list[Placed] = []  # in drawing order; removing one drops it from the picture

    def measure(self, text: str, size: float, bold: bool = False) -> tuple[int, int]:
        return self.glyphs.measure(text, size, bold)

    def place(
        self,
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
        """Queue `text` at figure pixel (x, y) (origin bottom-left) with the given alignment."""
        img = self.glyphs.sprite(text, size, color, bold)
        h, w = img.shape[:2]
        item = Placed(round(x_px - w * _HA[ha]), round(y_px - h * _VA[va]), img, text, role)
        self.items.append(item)
        return item

    def remove(self, item: Placed) -> None:
        self.items.remove(item)

    def composite(self, pixels: np.ndarray) -> None:
        """Alpha-blend the queued text into an RGBA buffer of the drawn figure (rows top to bottom)."""
        height, width = pixels.shape[:2]
        for item in self.items:
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
