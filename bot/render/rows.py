"""Which rows a picture shows, in which order, over which time window. Pure: no matplotlib here."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..scenarios.model import Category, Event, Rank, Scenario, TrackKind

MAX_RANK_LANES = 8


@dataclass(slots=True)
class Row:
    label: str
    group: str  # CPU, CUDA API, NVTX, GPU, GPU metrics, Ranks
    kind: TrackKind
    rank: int
    track: str
    events: list[Event] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    unit: str = ""


@dataclass(slots=True)
class Layout:
    rows: list[Row]
    window: tuple[float, float]
    step_marks: list[tuple[float, str]]  # (time, label) of GPU step boundaries inside the window
    zoom: tuple[float, float] | None


def window_of(s: Scenario) -> tuple[float, float]:
    """The stretch worth drawing: whole steps, few enough that bars stay readable."""
    steps = s.trace.steps
    if s.trace.kind == "serving" or len(steps) < 4:
        return steps[0][0], steps[-1][1]
    if s.signature == "pipeline_bubbles":
        return steps[1]
    if s.trace.world_size > 1 or s.zoom is not None:
        return steps[1][0], steps[2][1]
    return steps[1][0], steps[3][1]


def _clip(events: list[Event], lo: float, hi: float) -> list[Event]:
    return [e for e in events if e.end > lo and e.start < hi]


def _rank_detail(rank: Rank, lo: float, hi: float, label_prefix: str = "") -> list[Row]:
    rows: list[Row] = []
    order = (TrackKind.CPU_THREAD, TrackKind.ANNOTATION, TrackKind.CUDA_API, TrackKind.GPU_STREAM)
    group_of = {TrackKind.CPU_THREAD: "CPU", TrackKind.ANNOTATION: "NVTX", TrackKind.CUDA_API: "CUDA API",
                TrackKind.GPU_STREAM: "GPU"}
    for kind in order:
        for track in rank.tracks_of(kind):
            events = _clip(track.events, lo, hi)
            if kind is TrackKind.CPU_THREAD and not events:
                continue  # an idle thread row says nothing the API row does not
            if kind is TrackKind.ANNOTATION and any(e.category is Category.STEP for e in events):
                # Steps and the ranges nested in them would overprint: give each its own row.
                steps = [e for e in events if e.category is Category.STEP]
                ranges = [e for e in events if e.category is not Category.STEP]
                rows.append(Row(f"{label_prefix}{track.name} steps", "NVTX", kind, rank.rank, track.name, steps))
                if ranges:
                    rows.append(Row(f"{label_prefix}{track.name} ranges", "NVTX", kind, rank.rank, track.name,
                                    ranges))
                continue
            group = "Requests" if track.name == "requests" else group_of[kind]
            rows.append(Row(f"{label_prefix}{track.name}", group, kind, rank.rank, track.name, events))
    for track in rank.tracks_of(TrackKind.COUNTER):
        pairs = [(t, v) for t, v in zip(track.sample_times, track.sample_values, strict=True) if lo <= t < hi]
        group = "GPU metrics" if track.unit == "%" else "Serving"
        rows.append(Row(track.name, group, TrackKind.COUNTER, rank.rank, track.name,
                        times=[p[0] for p in pairs], values=[p[1] for p in pairs], unit=track.unit))
    return rows


def layout(s: Scenario) -> Layout:
    lo, hi = window_of(s)
    ranks = s.trace.ranks
    rows = _rank_detail(ranks[0], lo, hi)
    if len(ranks) > 1:
        # The multi-rank panel: compute and NCCL lanes for each rank (stage), as HTA or nsys multi-report shows.
        noun = "stage" if s.signature == "pipeline_bubbles" else "rank"
        for rank in ranks[:MAX_RANK_LANES]:
            for track in rank.tracks_of(TrackKind.GPU_STREAM):
                if track.name.startswith("Stream 14"):
                    continue
                lane = "compute" if "compute" in track.name else "NCCL"
                rows.append(Row(f"{noun} {rank.rank} · {lane}", "Ranks", TrackKind.GPU_STREAM, rank.rank,
                                track.name, _clip(track.events, lo, hi)))
    marks = [(a, f"step {s.trace.first_step_number + i}") for i, (a, _) in enumerate(s.trace.steps)
             if lo <= a <= hi]
    if s.trace.kind == "serving":
        marks = []
    return Layout(rows, (lo, hi), marks, s.zoom)
