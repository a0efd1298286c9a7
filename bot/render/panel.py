"""The right-hand panel: the top-kernels table and a key naming only what the picture draws."""

from __future__ import annotations

from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.transforms import IdentityTransform

from .kernels import KernelLine, fmt_us
from .names import table_name
from .sprites import TextLayer
from .theme import Theme

ROW_PX = 15
FONT = 8


def kernel_table(
    layer: TextLayer, x0: float, x1: float, top: float, lines: list[KernelLine], steps: float, th: Theme
) -> float:
    """Draw the table from `top` down between x0 and x1; returns the y below it."""
    y = top
    layer.place(x0, y, "Top kernels · rank 0", 10, th.text, bold=True, va="top")
    y -= 17
    layer.place(x0, y, f"GPU time over the {steps:.0f} step(s) drawn", 7.5, th.muted, va="top")
    y -= 16
    cols = [
        ("count", [f"{k.count:,}" for k in lines]),
        ("ms/step", [f"{k.ms_per_step:.2f}" for k in lines]),
        ("% GPU", [f"{k.share_pct:.1f}%" for k in lines]),
        ("mean", [fmt_us(k.mean_us) for k in lines]),
    ]
    rights: list[float] = []
    x = x1
    for head, values in reversed(cols):
        rights.append(x)
        x -= max(layer.measure(v, FONT)[0] for v in [head, *values]) + 10
    rights.reverse()
    for (head, _), r in zip(cols, rights, strict=True):
        layer.place(r, y, head, FONT, th.muted, ha="right", va="top")
    layer.place(x0, y, "kernel", FONT, th.muted, va="top")
    y -= ROW_PX + 2
    for i, k in enumerate(lines):  # the name on its own line, the figures under it: names stay readable
        name = k.name
        chars = len(name)
        while chars > 8 and layer.measure(name, FONT)[0] > x1 - x0:
            chars -= 2
            name = table_name(k.name, chars)
        y -= layer.place(x0, y, name, FONT, th.text, va="top").img.shape[0] - 3
        tallest = max(
            layer.place(r, y, values[i], FONT, th.text, ha="right", va="top").img.shape[0]
            for (_, values), r in zip(cols, rights, strict=True)
        )
        y -= tallest + 1
    return y


def legend(
    fig: Figure, layer: TextLayer, x0: float, top: float, entries: dict[str, tuple[str, str]], th: Theme
) -> float:
    """A key of (label → (colour, style)), one per line; returns the y below it."""
    y = top
    layer.place(x0, y, "Key", 10, th.text, bold=True, va="top")
    y -= 18
    for label, (color, style) in entries.items():
        cy = y - 6
        fig.add_artist(_swatch(x0, cy, color, style))
        layer.place(x0 + 20, cy, label, FONT, th.text)
        y -= ROW_PX
    return y


def _swatch(x0: float, cy: float, color: str, style: str) -> Artist:
    """What a key line shows before its label: the marker, line or patch as the picture draws it."""
    px = IdentityTransform()  # figure pixels
    if style == "marker":
        return Line2D([x0 + 7], [cy], marker="v", markersize=7, color=color, linestyle="none", transform=px)
    if style == "dashed":
        return Line2D([x0, x0 + 14], [cy, cy], color=color, linestyle="--", lw=1.2, transform=px)
    if style == "highlight":
        return Rectangle((x0, cy - 5), 14, 10, transform=px, facecolor=color, alpha=0.3, edgecolor=color, lw=1.6)
    return Rectangle((x0, cy - 5), 14, 10, transform=px, color=color, lw=0, alpha=0.85 if style == "area" else 1.0)
