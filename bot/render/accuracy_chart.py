"""A person's per-signature accuracy over time: one line per signature (weekly mean score, 0-100), drawn with
matplotlib's Agg canvas (no pyplot, so it is safe in worker threads)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from datetime import date

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

WIDTH_IN, HEIGHT_IN, DPI = 8.0, 4.0, 100


def accuracy_chart_png(series: Mapping[str, Sequence[tuple[date, float]]], title: str = "") -> bytes:
    """`series`: signature → [(week start, mean score 0..1)], oldest first. An empty mapping draws a note."""
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, facecolor="white")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    drawn = 0
    for signature, points in sorted(series.items()):
        if not points:
            continue
        xs = [d.toordinal() for d, _ in points]  # plotted as day numbers, labelled as dates below
        ys = [100 * min(max(v, 0.0), 1.0) for _, v in points]
        ax.plot(xs, ys, marker="o", markersize=3, linewidth=1.5, label=signature)
        drawn += 1
    ax.set_ylim(-2, 102)
    ax.set_ylabel("mean score per week")
    ax.grid(True, alpha=0.3)
    if drawn:
        ax.legend(fontsize=7, loc="lower left", ncols=2, frameon=False)
        ticks = sorted({d.toordinal() for points in series.values() for d, _ in points})
        step = max(1, len(ticks) // 6)
        ax.set_xticks(ticks[::step], [date.fromordinal(t).strftime("%d %b") for t in ticks[::step]])
    else:
        ax.text(0.5, 0.5, "No scored answers yet", ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([])
    ax.set_title(title or "Your accuracy by signature", fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()
