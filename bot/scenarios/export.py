"""Write a scenario as Kineto / Chrome-trace JSON (one file per rank) plus scenario.json.

The files open in Perfetto and load in Holistic Trace Analysis: `distributedInfo` carries the rank (HTA finds
it with a regex that wants a space after the colon, so JSON keeps the default separators), ProfilerStep#N
annotations mark steps, every kernel has a `cuda_runtime` launch with the same `args.correlation`, and `ac2g`
flow events join them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .model import Category, Event, Rank, Scenario, TrackKind

CPU_PID_BASE = 4100
MAIN_TID = 4100
_API_CBID = {
    "cudaLaunchKernel": 211,
    "cudaMemcpyAsync": 41,
    "cudaStreamSynchronize": 131,
    "cudaDeviceSynchronize": 165,
    "cudaMalloc": 20,
    "cudaFree": 27,
}


def _r(x: float) -> float:
    return round(x, 3)


def rank_trace(scenario: Scenario, rank: Rank) -> dict[str, Any]:
    """One rank's trace as a Kineto-shaped dict."""
    pid = CPU_PID_BASE + rank.rank
    device = rank.rank % 8
    events: list[dict[str, Any]] = [
        {"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0, "args": {"name": f"python {pid}"}},
        {"name": "process_name", "ph": "M", "ts": 0, "pid": device, "tid": 0, "args": {"name": f"GPU {device}"}},
        {
            "name": "thread_name",
            "ph": "M",
            "ts": 0,
            "pid": pid,
            "tid": MAIN_TID,
            "args": {"name": "python (main thread)"},
        },
    ]
    extra_corr = 9_000_000 + rank.rank * 100_000
    worker_tid = MAIN_TID + 1
    for track in rank.tracks:
        if track.kind is TrackKind.GPU_STREAM:
            events.append(
                {
                    "name": "thread_name",
                    "ph": "M",
                    "ts": 0,
                    "pid": device,
                    "tid": track.stream,
                    "args": {"name": f"stream {track.stream}"},
                }
            )
            for e in track.events:
                events.extend(_gpu_event(e, device, int(track.stream or 0), pid))
        elif track.kind is TrackKind.COUNTER:
            for t, v in zip(track.sample_times, track.sample_values, strict=True):
                events.append(
                    {"name": track.name, "ph": "C", "ts": _r(t), "pid": device, "args": {track.unit or "value": v}}
                )
        elif track.kind is TrackKind.CPU_THREAD and track.name.startswith("dataloader"):
            events.append(
                {"name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": worker_tid, "args": {"name": track.name}}
            )
            events.extend(_cpu(e, pid, worker_tid, "cpu_op") for e in track.events)
            worker_tid += 1
        elif track.kind is TrackKind.CUDA_API:
            for e in track.events:
                corr = e.correlation
                if not corr:
                    extra_corr += 1
                    corr = extra_corr
                events.append(
                    _cpu(
                        e,
                        pid,
                        MAIN_TID,
                        "cuda_runtime",
                        {"cbid": _API_CBID.get(e.name, 0), "correlation": corr, "External id": corr},
                    )
                )
                if e.correlation:
                    events.append(
                        {
                            "ph": "s",
                            "id": corr,
                            "pid": pid,
                            "tid": MAIN_TID,
                            "ts": _r(e.start),
                            "cat": "ac2g",
                            "name": "ac2g",
                        }
                    )
        elif track.kind is TrackKind.ANNOTATION:
            for e in track.events:
                dur = e.dur if e.dur > 0 else 1.0
                events.append(_cpu(Event(e.name, e.start, dur, e.category), pid, MAIN_TID, "user_annotation"))
        else:  # the main thread's own work
            events.extend(_cpu(e, pid, MAIN_TID, "cpu_op") for e in track.events)
    events.sort(key=lambda ev: (ev.get("ph") != "M", ev.get("ts", 0)))
    return {
        "schemaVersion": 1,
        "deviceProperties": [
            {
                "id": device,
                "name": scenario.hardware.name,
                "totalGlobalMem": scenario.hardware.memory_gb * 2**30,
                "computeMajor": scenario.hardware.compute_capability[0],
                "computeMinor": scenario.hardware.compute_capability[1],
                "numSms": scenario.hardware.sms or 132,
            }
        ],
        "distributedInfo": {"backend": "nccl", "rank": rank.rank, "world_size": scenario.trace.world_size},
        "traceName": f"rank-{rank.rank}.json",
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": 1_700_000_000_000_000_000,
        "traceEvents": events,
    }


def _cpu(e: Event, pid: int, tid: int, cat: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ph": "X",
        "cat": cat,
        "name": e.name,
        "pid": pid,
        "tid": tid,
        "ts": _r(e.start),
        "dur": _r(e.dur),
    }
    if args:
        out["args"] = args
    return out


def _gpu_event(e: Event, device: int, stream: int, cpu_pid: int) -> list[dict[str, Any]]:
    public = {k: v for k, v in (e.args or {}).items() if not k.startswith("_")}
    args: dict[str, Any] = {
        "device": device,
        "context": 1,
        "stream": stream,
        "correlation": e.correlation,
        "External id": e.correlation,
    }
    if e.category is Category.MEMCPY:
        cat = "gpu_memcpy"
        nbytes = int(public.get("bytes", 0))
        args |= {"bytes": nbytes, "memory bandwidth (GB/s)": round(nbytes / max(e.dur, 1e-3) / 1e3, 3)}
    else:
        cat = "kernel"
        args |= {
            "queued": 0,
            "registers per thread": 128,
            "shared memory": 0,
            "blocks per SM": 1.0,
            "warps per SM": 8.0,
            "grid": [132, 1, 1],
            "block": [256, 1, 1],
            "est. achieved occupancy %": 12,
        }
        args |= public
    out = [
        {
            "ph": "X",
            "cat": cat,
            "name": e.name,
            "pid": device,
            "tid": stream,
            "ts": _r(e.start),
            "dur": _r(e.dur),
            "args": args,
        }
    ]
    if e.correlation:
        out.append(
            {
                "ph": "f",
                "id": e.correlation,
                "pid": device,
                "tid": stream,
                "ts": _r(e.start),
                "cat": "ac2g",
                "name": "ac2g",
                "bp": "e",
            }
        )
    return out


def scenario_summary(scenario: Scenario) -> dict[str, Any]:
    """What scenario.json holds: enough to grade against and to check the figures from outside."""
    c = scenario.context
    return {
        "signature": scenario.signature,
        "seed": scenario.seed,
        "difficulty": scenario.difficulty,
        "kind": scenario.trace.kind,
        "world_size": scenario.trace.world_size,
        "hardware": scenario.hardware.name,
        "context": {
            "title": c.title,
            "hardware": c.hardware,
            "model": c.model,
            "parallelism": c.parallelism,
            "complaint": c.complaint,
            "details": list(c.details),
        },
        "steps": [[_r(a), _r(b)] for a, b in scenario.trace.steps],
        "figures": scenario.figures,
        "reveal": scenario.reveal.as_text(),
    }


def export_scenario(scenario: Scenario, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for rank in scenario.trace.ranks:
        path = out_dir / f"rank-{rank.rank}.json"
        path.write_text(json.dumps(rank_trace(scenario, rank)))
        written.append(path)
    summary = out_dir / "scenario.json"
    summary.write_text(json.dumps(scenario_summary(scenario), indent=2, ensure_ascii=False))
    written.append(summary)
    return written
