"""GPU-metrics rows (SM active, tensor active, DRAM bandwidth) sampled from kernel activity.

Each kernel carries the levels its kind reaches (sim.METRICS); a sample is the time-weighted level over its
bin, so the rows agree with the kernel rows by construction (and the property tests check it).
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import attrgetter

import numpy as np

from .model import Event, Rank, Track, TrackKind
from .sim import METRICS

_START, _DUR, _ARGS, _KIND = attrgetter("start"), attrgetter("dur"), attrgetter("args"), attrgetter("kind")
COUNTER_ROWS = (("SM Active %", 0), ("Tensor Active %", 1), ("DRAM Bandwidth %", 2))


SAMPLE_US = 50.0  # nsys samples GPU metrics at 10–200 kHz; 20 kHz here, within a row budget
MIN_SAMPLES, MAX_SAMPLES = 600, 2000


def add_gpu_metrics(rank: Rank, span: tuple[float, float], samples: int | None = None) -> None:
    lo, hi = span
    if samples is None:
        samples = int(min(max((hi - lo) / SAMPLE_US, MIN_SAMPLES), MAX_SAMPLES))
    edges = np.linspace(lo, hi, samples + 1)
    events = [e for track in rank.tracks_of(TrackKind.GPU_STREAM) for e in track.events]
    n = len(events)
    s = np.fromiter(map(_START, events), float, n)
    t = s + np.fromiter(map(_DUR, events), float, n)  # the same floats as Event.end
    lv = _levels(events)
    width = edges[1] - edges[0]
    integrals = _integrals_at(s, t, lv, edges)
    for name, col in COUNTER_ROWS:
        values = np.clip(np.diff(integrals[col]) / width * 100.0, 0.0, 100.0)
        rank.tracks.append(
            Track(
                name,
                TrackKind.COUNTER,
                sample_times=np.round(edges[:-1], 3).tolist(),
                sample_values=np.round(values, 2).tolist(),
                unit="%",
            )
        )


def levels_under(rank: Rank, spans: list[tuple[float, float]]) -> dict[str, float]:
    """Each GPU-metrics row's mean over the samples that start inside `spans` (sorted, disjoint): what the rows show
    under a kernel, with its neighbours mixed in where a sample straddles its edges."""
    starts = np.array([a for a, _ in spans])
    ends = np.array([b for _, b in spans])
    out = {}
    for name, _ in COUNTER_ROWS:
        track = rank.track(name)
        times = np.array(track.sample_times)
        i = np.searchsorted(starts, times, side="right") - 1
        inside = (i >= 0) & (times < ends[np.maximum(i, 0)])
        out[name] = float(np.mean(np.array(track.sample_values)[inside]))
    return out


_KINDS = list(METRICS)
_KIND_ROW = {k: i for i, k in enumerate(_KINDS)}
_TABLE = np.array([METRICS[k] for k in _KINDS], dtype=float)


def _levels(events: list[Event]) -> np.ndarray:
    """(n, 3) levels: a kernel's own `_levels` arg, else its kind's (sim.METRICS), else a GEMM's."""
    gemm = _KIND_ROW["gemm"]
    rows = np.fromiter(map(_KIND_ROW.get, map(_KIND, events), repeat(gemm)), np.intp, len(events))
    lv = _TABLE[rows]
    args = list(map(_ARGS, events))
    for i in compress(range(len(args)), args):  # most kernels carry no args: skip them in C
        own = args[i].get("_levels")
        if own:
            lv[i] = own
    return lv


def _integrals_at(starts: np.ndarray, ends: np.ndarray, levels: np.ndarray, at: np.ndarray) -> list[np.ndarray]:
    """For each column of `levels` (n, k), ∫ Σ_i level_i·1[start_i ≤ t < end_i] dt from -∞ to each point of `at`
    (piecewise linear). The breakpoints, their order and where `at` falls among them are the columns' own."""
    if starts.size == 0:
        return [np.zeros_like(at) for _ in range(levels.shape[1])]
    points = np.concatenate([starts, ends])
    order = np.argsort(points, kind="stable")
    points = points[order]
    dx = np.diff(points, prepend=points[0])
    idx = np.searchsorted(points, at, side="right") - 1
    valid = idx >= 0
    at_idx = idx[valid]
    past = at[valid] - points[at_idx]
    out = []
    for col in range(levels.shape[1]):
        level = levels[:, col]
        slope_after = np.cumsum(np.concatenate([level, -level])[order])
        # integral at each breakpoint: previous integral + slope_before * (dx)
        slope_before = np.concatenate([[0.0], slope_after[:-1]])
        integral_at_points = np.cumsum(slope_before * dx)
        integral = np.zeros_like(at, dtype=float)
        integral[valid] = integral_at_points[at_idx] + slope_after[at_idx] * past
        out.append(integral)
    return out
