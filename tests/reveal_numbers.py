"""Every number in a reveal, traced back to the scenario's figures, context or hardware datasheet."""

from __future__ import annotations

import re

from bot.scenarios.model import Scenario

# Numbers glued to letters or '#'/'_'/'=' (H100, sm90, bf16, ProfilerStep#12, bucket_cap_mb=25) are names,
# not claims; a number is free-standing text.
_NUMBER = re.compile(r"(?<![\w#=.,×/−-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w#])")
# Small counts and textbook constants the explanations use (2(N−1)/N, 1F1B, 60 seconds, 100%, 25 MB buckets).
CONSTANTS = {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 16.0, 25.0, 60.0, 90.0, 100.0}


def numbers(text: str) -> list[tuple[float, int, str]]:
    """(value, decimals printed, the match) for every free-standing number."""
    out = []
    for m in _NUMBER.finditer(text):
        whole, frac = m.group(1), m.group(2) or ""
        out.append((float(whole.replace(",", "") + frac), max(len(frac) - 1, 0), m.group(0)))
    return out


def sources(s: Scenario) -> list[float]:
    base: list[float] = []
    for v in s.figures.values():
        base += [v, v * 1000, v / 1000, v * 100, v / 100, v * 1e6, v / 1e6]
    hw = s.hardware
    base += [
        hw.bf16_tflops,
        hw.hbm_gbps,
        hw.hbm_gbps / 1000,
        hw.link_gbps,
        hw.sm_clock_mhz,
        hw.memory_gb,
        hw.ridge_flop_per_byte,
    ]
    base += [float(i) for i in range(int(max(s.figures.get("stages", 0), s.trace.world_size)))]  # rank/stage ids
    c = s.context
    for text in (c.title, c.hardware, c.model, c.parallelism, c.complaint, *c.details):
        base += [n for n, _, _ in numbers(text)]
    return base


def unexplained(s: Scenario) -> list[str]:
    """Numbers of the reveal that match no figure, context number or constant at their printed precision."""
    cands = sources(s)
    bad = []
    for value, decimals, raw in numbers(s.reveal.as_text()):
        if value in CONSTANTS:
            continue
        tol = 0.5 * 10 ** (-decimals) + 1e-9
        if not any(abs(c - value) <= max(tol, 0.006 * abs(value)) for c in cands):
            bad.append(raw)
    return bad
