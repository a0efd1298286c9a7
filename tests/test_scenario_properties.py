"""Physical consistency of every generated trace, over many seeds (hypothesis)."""

from __future__ import annotations

import itertools
import math
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.scenarios.figures import RankActivity, rank_kernels
from bot.scenarios.ids import DIFFICULTIES, SIGNATURE_IDS
from bot.scenarios.model import Category, Scenario, TrackKind
from bot.scenarios.pipeline import is_pipeline
from bot.scenarios.registry import generate

from .giveaways import words_for

EPS = 1e-6
# 8 derandomized seeds per signature (80 scenarios, every difficulty drawn) keep `make test` under 3 minutes on two
# cores; a deeper sweep: TRACEDRILL_PROPERTY_EXAMPLES=500 pytest tests/test_scenario_properties.py
EXAMPLES = int(os.environ.get("TRACEDRILL_PROPERTY_EXAMPLES", "8"))


def check_scenario(s: Scenario) -> None:
    trace = s.trace
    assert len(trace.steps) >= 5, "four steady steps plus the one HTA drops"
    for a, b in trace.steps:
        assert b > a
    for rank in trace.ranks:
        launches = {e.correlation: e for e in rank.track("CUDA API").events if e.correlation}
        for track in rank.tracks_of(TrackKind.GPU_STREAM):
            events = sorted(track.events, key=lambda e: e.start)
            for prev, cur in itertools.pairwise(events):
                assert cur.start >= prev.end - EPS, f"overlap on {track.name}: {prev.name} / {cur.name}"
            for e in events:
                assert e.dur > 0
                assert math.isfinite(e.start)
                launch = launches.get(e.correlation)
                assert launch is not None, f"kernel {e.name} has no launch"
                assert e.start >= launch.start, "a kernel starts after its launch"
        steps = [e for e in rank.track("NVTX").events if e.category is Category.STEP]
        assert len(steps) >= 5
        assert all(re.fullmatch(r"ProfilerStep#\d+", e.name) for e in steps)
        _check_counters(rank)
        activity = RankActivity(rank)
        for window in trace.steps if trace.world_size == 1 else trace.steps[1:]:
            parts = activity.step(window)
            total = parts["compute_us"] + parts["comm_exposed_us"] + parts["copy_exposed_us"] + parts["idle_us"]
            assert total == pytest.approx(parts["step_us"], rel=1e-9, abs=1e-6)
    _check_collectives(s)
    told = " ".join([s.context.title, *s.context.lines()]).lower()
    for word in words_for(s.signature):
        assert word not in told, f"context gives away {s.signature}: {word!r}"
    assert all(math.isfinite(v) for v in s.figures.values())


def _check_counters(rank) -> None:  # type: ignore[no-untyped-def]
    compute, nccl, copies = rank_kernels(rank)
    intervals = sorted((e.start, e.end) for e in compute)
    sm = rank.track("SM Active %")
    times = sm.sample_times
    width = times[1] - times[0]
    starts = [a for a, _ in intervals]
    import bisect

    for t, v in zip(times, sm.sample_values, strict=True):
        assert 0.0 <= v <= 100.0
        i = bisect.bisect_left(starts, t + width)
        touching = [iv for iv in intervals[max(0, i - 50) : i] if iv[1] > t]
        others = any(e.start < t + width and e.end > t for e in nccl + copies) if not touching else True
        if not touching and not others:
            assert v == 0.0, "SM active without any kernel"
        if any(a <= t and b >= t + width for a, b in touching):
            assert v > 0.0, "a kernel ran through the whole sample but SM active is 0"


def _check_collectives(s: Scenario) -> None:
    if s.trace.world_size < 2 or is_pipeline(s.trace):  # point-to-point sends are no barrier
        return
    ends = []
    for rank in s.trace.ranks:
        ends.append(sorted(e.end for e in rank.kernels() if e.category is Category.NCCL))
    for per_rank in zip(*ends, strict=True):
        assert max(per_rank) - min(per_rank) < EPS, "a collective ends at the same time on every rank"


@pytest.mark.parametrize("signature", SIGNATURE_IDS)
def test_physical_consistency_over_many_seeds(signature: str) -> None:
    # A step now carries every layer (hundreds of kernels, thousands of events per rank): EXAMPLES seeds each.
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(seed=st.integers(0, 2**63 - 1), difficulty=st.sampled_from(DIFFICULTIES))
    def run(seed: int, difficulty: str) -> None:
        check_scenario(generate(signature, seed, difficulty))

    run()
