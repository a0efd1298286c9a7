"""Holistic Trace Analysis 0.5 on a folder of traces, parsed in this process.

`TraceAnalysis(trace_dir=…)` parses the ranks in a forked pool of up to one process per core: from a test worker
that is a fork of a large process, and every parsed rank pickled back through a pipe, for traces of a few MB.
HTA's own `Trace.load_traces(use_multiprocessing=False)` parses the same files with the same parser, rank by
rank in rank order (the order the pool returns them in), so the figures are the same."""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import Any


def hta_figures(folder: Path) -> tuple[Any, Any]:
    """HTA's temporal breakdown and communication–computation overlap, one row per rank (pandas frames)."""
    logging.getLogger("hta").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from hta.common.trace import Trace
        from hta.trace_analysis import TraceAnalysis

        analysis = TraceAnalysis.__new__(TraceAnalysis)  # its __init__ only loads `t`, with the pool
        analysis.t = Trace(trace_dir=str(folder))
        analysis.t.load_traces(include_last_profiler_step=False, use_multiprocessing=False)
        return analysis.get_temporal_breakdown(visualize=False), analysis.get_comm_comp_overlap(visualize=False)
