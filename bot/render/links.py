"""The interconnect row of a multi-GPU picture, derived from the collectives' bytes and durations.

A collective kernel starts when its rank arrives and moves data only once every rank has arrived, so its wire
time sits at the end of the kernel at no more than the link's rate; the rest of the kernel is waiting, drawn
at ~0 GB/s. That is what makes a straggler's peers look different from an unoverlapped all-reduce.
"""

from __future__ import annotations

import numpy as np

from ..scenarios.model import Category, Event, Rank, Scenario, TrackKind

BINS = 400


def wire_factor(name: str, world: int) -> float:
    """Bytes each rank sends per byte of buffer, for ring algorithms (the nccl-tests bus-bandwidth factors)."""
    low = name.lower()
    if world <= 1:
        return 0.0
    if "allreduce" in low:
        return 2.0 * (world - 1) / world
    if "allgather" in low or "reducescatter" in low:
        return (world - 1) / world
    return 1.0  # send/recv, broadcast: the buffer crosses the link once


def _sized(rank: Rank) -> list[Event]:
    nccl = [e for t in rank.tracks_of(TrackKind.GPU_STREAM) for e in t.events if e.category is Category.NCCL]
    return [e for e in nccl if e.dur > 0 and float((e.args or {}).get("bytes", 0) or 0) > 0]


def _wire(e: Event, world: int) -> float:
    return float((e.args or {})["bytes"]) * wire_factor(e.name, world)


def interconnect_row(
    s: Scenario, rank: Rank, lo: float, hi: float
) -> tuple[list[float], list[float], str, float] | None:
    """(bin start times µs, GB/s per bin, row label, full-scale GB/s), or None when no collective says its size."""
    link = s.hardware.link_gbps
    world = s.trace.world_size
    # The achieved rate is the fastest any rank saw for a collective: on the last rank to arrive the kernel is
    # (nearly) all transfer. No more than the link's peak.
    sized = {r.rank: _sized(r) for r in s.trace.ranks}
    rates = [_wire(e, world) / e.dur for events in sized.values() for e in events]
    if not rates:
        return None
    achieved = max(rates) if link <= 0 else min(max(rates), link * 1e3)  # bytes/µs (GB/s × 1e3)
    edges = np.linspace(lo, hi, BINS + 1)
    width = edges[1] - edges[0]
    mine = [e for e in sized.get(rank.rank) or _sized(rank) if e.end > lo and e.start < hi]
    if not mine:
        return None
    # Each collective moves its wire bytes at `rate` over the end of the kernel, [end - wire/rate, end]; the
    # bytes moved by time x are rate × clip(x - a, 0, b - a), so a bin gets the difference at its two edges.
    wire = np.array([_wire(e, world) for e in mine])
    dur = np.array([e.dur for e in mine])
    b = np.array([e.end for e in mine])
    rate = np.maximum(achieved, wire / dur)
    a = b - wire / rate
    cum = rate[:, None] * np.clip(edges[None, :] - a[:, None], 0.0, (b - a)[:, None])
    moved = np.diff(cum.sum(axis=0))  # bytes per bin
    gbps = moved / width / 1e3
    peak = link if link > 0 else max(float(gbps.max()), 1e-9)
    label = f"{s.hardware.link or 'Link'} TX/RX GB/s"
    return edges[:-1].tolist(), gbps.tolist(), label, peak
