"""An imported trace as something the renderer draws: a Scenario whose 'reveal' is the analysis."""

from __future__ import annotations

from ..grading.rubric import load_rubrics
from ..render.png import render_png
from ..scenarios.intervals import gaps, union
from ..scenarios.model import Annotation, Context, Hardware, Reveal, Scenario, Trace, TrackKind
from .model import Reading
from .report import report_text


def as_scenario(r: Reading, source: str, device: str) -> Scenario:
    m = r.main
    f = m.figures
    hw = Hardware(device or "GPU", "sm90", 0.0, 0.0, 0.0, "", 0, 0)
    model_by_rank = {x.rank: x for x in r.model_ranks}
    ranks = [model_by_rank[x.rank] for x in r.ranks]
    trace = Trace(ranks, "training", m.steps, max(m.step_numbers[0], 0))
    context = Context(
        title=f"Your trace · {source}"[:90],
        hardware=device or "(not recorded)",
        model="imported Kineto trace",
        parallelism=f"{len(ranks)} rank(s)",
        complaint=f"{f['steps']:.0f} step(s) read; GPU busy {f['gpu_busy_pct']:.0f}%",
    )
    top = r.top
    rubric = load_rubrics()[top.signature]
    runner_up = r.findings[1] if len(r.findings) > 1 else None
    reveal = Reveal(
        headline=f"Most likely {top.signature}: {top.evidence}"[:240],
        read=(("Reading", report_text(r, source)),),
        wrong_hypothesis=(
            f"{runner_up.signature}: {runner_up.evidence}"
            if runner_up
            else "No second explanation fits these figures as well."
        ),
        measurement=rubric.measurement.hint,
        fix=rubric.fix.hint,
        arithmetic=(),
        spoken=f"{top.evidence[0].upper()}{top.evidence[1:]}.",
        tell=rubric.tell,
    )
    return Scenario(top.signature, 0, "real", hw, context, trace, dict(f), reveal, _annotations(r))


def reading_png(r: Reading, source: str, device: str, theme: str = "light") -> bytes:
    """The analysis as a reveal picture: the trace drawn, its longest GPU gap called out."""
    return render_png(as_scenario(r, source, device), theme_name=theme, reveal=True)


def _annotations(r: Reading) -> list[Annotation]:
    """Mark the longest GPU gap of a representative step on the busiest stream."""
    m = r.main
    rank = next(x for x in r.model_ranks if x.rank == m.rank)
    window = m.steps[len(m.steps) // 2]
    streams = rank.tracks_of(TrackKind.GPU_STREAM)
    if not streams:
        return []
    busiest = max(streams, key=lambda t: len(t.events))
    busy = union((e.start, e.end) for t in streams for e in t.events)
    holes = gaps(busy, *window)
    if not holes:
        return []
    lo, hi = max(holes, key=lambda g: g[1] - g[0])
    return [
        Annotation(
            m.rank,
            busiest.name,
            lo,
            hi,
            f"longest GPU gap: {(hi - lo) / 1000:.1f} ms (GPU idle {m.figures['gpu_idle_pct']:.0f}% of the step)",
        )
    ]
