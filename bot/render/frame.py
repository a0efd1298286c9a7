"""Where a timeline's axes sit in figure pixels, and the window of time they show."""

from __future__ import annotations

from dataclasses import dataclass

from matplotlib.axes import Axes

from .theme import Theme


@dataclass(frozen=True, slots=True)
class Frame:
    """Rows are stacked downwards in data units (row i's centre near i + 0.5), time runs in ms from `lo`."""

    lo: float  # µs
    hi: float  # µs
    total: float  # data height of the rows
    left: float  # figure px
    right: float
    top: float
    bottom: float

    @property
    def span_ms(self) -> float:
        return (self.hi - self.lo) / 1000

    @property
    def px_per_ms(self) -> float:
        return (self.right - self.left) / self.span_ms

    @property
    def px_per_row(self) -> float:
        return (self.top - self.bottom) / (self.total + 0.8)

    def to_py(self, y: float) -> float:
        """Data y → figure px."""
        return self.top - (y + 0.6) * self.px_per_row

    def to_px(self, t: float) -> float:
        """A time (µs) → figure px."""
        return self.left + (t - self.lo) / 1000 * self.px_per_ms


def set_up(ax: Axes, window: tuple[float, float], total: float, th: Theme) -> Frame:
    """Limits and background of empty axes for rows `total` high over `window`; where they landed in pixels."""
    lo, hi = window
    ax.set_facecolor(th.background)
    ax.set_xlim(0, (hi - lo) / 1000)
    ax.set_ylim(total + 0.2, -0.6)
    ax.set_yticks([])
    ax.set_xticks([])
    fig = ax.get_figure(root=True)
    assert fig is not None
    pos = ax.get_position()
    width, height = float(fig.bbox.width), float(fig.bbox.height)
    return Frame(lo, hi, total, pos.x0 * width, pos.x1 * width, pos.y1 * height, pos.y0 * height)
