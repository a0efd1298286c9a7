"""Chrome-trace / Kineto JSON (plain or gzipped, one file per rank or a folder of them) into the trace model.

Events are streamed with ijson, so a 50 MB trace is never held as one big Python structure; each event becomes
a slotted Event right away, events the reading does not use are dropped as they stream past, and names are
interned (a trace repeats a few hundred kernel names millions of times). Every byte passes a guard first (depth,
decompressed size), and the events read are capped, so memory is bounded whatever the file holds.
"""

from __future__ import annotations

import contextlib
import gzip
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import ijson

from ..cleantext import trace_label
from ..scenarios.model import Category, Event, Rank, Track, TrackKind
from .guard import GuardedReader, TraceLimitError

MAX_FILES = 64
MAX_BYTES = 512 * 2**20  # per file, decompressed
MAX_EVENTS = 2_000_000  # per analysis, all files together: ~0.5 GB of kept events at most


class TraceFileError(Exception):
    """A file that is not a usable trace; the message is one line a person can act on."""


@dataclass(slots=True)
class RawRank:
    rank: int
    world_size: int
    source: str
    device_name: str = ""
    kernels: list[Event] = field(default_factory=list)  # kernels, copies, memsets (category tells)
    kernel_streams: list[int] = field(default_factory=list)
    runtime: list[Event] = field(default_factory=list)  # CUDA runtime/driver calls (correlation kept)
    cpu: dict[int, list[Event]] = field(default_factory=dict)  # tid → ops
    annotations: list[Event] = field(default_factory=list)  # user annotations incl. ProfilerStep#N
    counters: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    thread_names: dict[int, str] = field(default_factory=dict)
    events_read: int = 0  # every event in the file, kept or not (counts against MAX_EVENTS)


def trace_files(path: Path) -> list[Path]:
    if not path.exists():
        raise TraceFileError(f"{path}: no such file or folder")
    if path.is_dir():
        files = sorted(
            p for p in path.iterdir() if p.name.endswith((".json", ".json.gz", ".pt.trace.json", ".pt.trace.json.gz"))
        )
        files = [p for p in files if p.name != "scenario.json"]
        if not files:
            raise TraceFileError(f"{path}: no .json or .json.gz trace files in this folder")
        if len(files) > MAX_FILES:
            raise TraceFileError(f"{path}: {len(files)} trace files; at most {MAX_FILES} ranks are read")
        return files
    return [path]


def _open(path: Path) -> IO[bytes]:
    with path.open("rb") as probe:
        magic = probe.read(2)
    raw: IO[bytes] = gzip.GzipFile(path, "rb") if magic == b"\x1f\x8b" else path.open("rb")  # type: ignore[assignment]
    return GuardedReader(raw, path.name, max_bytes=MAX_BYTES)  # type: ignore[return-value]


def _category(cat: str, name: str) -> Category | None:
    if cat == "kernel":
        return Category.NCCL if "nccl" in name.lower() else Category.COMPUTE
    if cat in ("gpu_memcpy", "gpu_memset"):
        return Category.MEMCPY
    if cat in ("cuda_runtime", "cuda_driver"):
        if "Synchronize" in name or name == "cudaEventSynchronize":
            return Category.SYNC
        if "Malloc" in name or "Free" in name:
            return Category.MALLOC
        return Category.LAUNCH
    return None


def read_rank(path: Path, fallback_rank: int, max_events: int = MAX_EVENTS) -> RawRank:
    """Stream one file's events into a RawRank. Raises TraceFileError with a clear reason."""
    meta = _read_meta(path)
    raw = RawRank(
        meta.get("rank", fallback_rank), meta.get("world_size", 1), trace_label(path.name, 200), meta.get("device", "")
    )
    seen = 0
    names: dict[str, str] = {}
    spans: dict[tuple[str, str], tuple[int, Category]] = {}
    try:
        with _open(path) as f:
            # The phase dispatch is inlined (this loop runs for every event, most of them dropped flows).
            for ev in ijson.items(f, "traceEvents.item", use_float=True):
                seen += 1
                if seen > max_events:
                    raise TraceFileError(
                        f"{path.name}: more than {MAX_EVENTS:,} events in this trace "
                        "(profile a few steps: schedule(wait=1, warmup=1, active=3))"
                    )
                if ev.__class__ is not dict:  # ijson builds plain dicts
                    continue
                ph = ev.get("ph")
                if ph == "X":
                    if "ts" in ev:
                        _add_span(raw, ev, _name(ev, names), spans)
                elif ph == "C":
                    _add_sample(raw, ev, _name(ev, names))
                elif ph == "M":
                    _add_metadata(raw, ev, _name(ev, names))
    except TraceLimitError as exc:
        raise TraceFileError(str(exc)) from exc
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise TraceFileError(f"{path.name}: the gzip stream is truncated or corrupt ({exc})") from exc
    except ijson.JSONError as exc:
        raise TraceFileError(f"{path.name}: not valid JSON ({_one_line(exc)})") from exc
    if seen == 0:
        raise TraceFileError(f"{path.name}: no traceEvents — not a Chrome / Kineto trace")
    raw.events_read = seen
    return raw


def _read_meta(path: Path) -> dict[str, Any]:
    """distributedInfo (rank, world size) and the device name, read from the top level without the events."""
    meta: dict[str, Any] = {}
    try:
        with _open(path) as f:
            for prefix, event, value in ijson.parse(f):
                if prefix == "distributedInfo.rank" and event == "number":
                    meta["rank"] = int(value)
                elif prefix == "distributedInfo.world_size" and event == "number":
                    meta["world_size"] = int(value)
                elif prefix == "deviceProperties.item.name" and "device" not in meta:
                    meta["device"] = trace_label(str(value), 200)
                elif prefix == "traceEvents" and event == "start_array":
                    break  # Kineto writes its metadata before the events; reading on would parse the file twice
    except TraceLimitError as exc:
        raise TraceFileError(str(exc)) from exc
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise TraceFileError(f"{path.name}: the gzip stream is truncated or corrupt ({exc})") from exc
    except ijson.JSONError as exc:
        raise TraceFileError(f"{path.name}: not valid JSON ({_one_line(exc)})") from exc
    return meta


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:80]


def _int(value: Any) -> int:
    """Ids as integers; anything malformed becomes 0 (no correlation / default stream)."""
    if value.__class__ is int:  # the common case, first: this runs for every kernel and runtime call
        return value
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _num(value: Any) -> float:
    if value.__class__ is float:  # ijson's use_float gives floats and ints (Kineto writes integer times)
        return value
    if value.__class__ is int:
        return float(value)
    return float(value) if isinstance(value, int | float) else float(str(value))


_NO_ARGS: dict[str, Any] = {}  # read only


def _name(ev: dict[str, Any], names: dict[str, str]) -> str:
    """One clean string per distinct name."""
    name = ev.get("name", "")
    if name.__class__ is not str:
        name = str(name)
    clean = names.get(name)
    if clean is None:
        clean = names[name] = trace_label(name)
    return clean


def _add_metadata(raw: RawRank, ev: dict[str, Any], name: str) -> None:
    if name == "thread_name" and isinstance(ev.get("args"), dict):
        with contextlib.suppress(TypeError, ValueError):
            raw.thread_names[int(ev.get("tid", 0))] = trace_label(str(ev["args"].get("name", "")), 200)


def _add_sample(raw: RawRank, ev: dict[str, Any], name: str) -> None:
    sample = ev.get("args")
    if sample.__class__ is dict and sample:
        samples = raw.counters.get(name)
        if samples is None:  # made before the values are read: a bad sample still names its counter
            samples = raw.counters[name] = []
        ts = ev.get("ts", 0)
        value = next(iter(sample.values()))
        if ts.__class__ is float and value.__class__ is float:
            samples.append((ts, value))
            return
        with contextlib.suppress(TypeError, ValueError):
            samples.append((_num(ts), _num(value)))


# What a span becomes, by (cat, name): decided once per pair, then one dict look-up per event.
_DROP, _ANNOTATION, _CPU, _KERNEL, _RUNTIME = range(5)


def _span_kind(cat: str, name: str) -> tuple[int, Category]:
    category = _category(cat, name)
    if category is None:
        if cat == "user_annotation":
            return _ANNOTATION, Category.STEP if name.startswith("ProfilerStep#") else Category.RANGE
        if cat == "cpu_op" or cat == "python_function":
            is_loader = "DataLoader" in name or "dataloader" in name.lower()
            return _CPU, Category.DATALOADER if is_loader else Category.CPU_OP
        return _DROP, Category.CPU_OP  # the category of a dropped span is never read
    if cat == "kernel" or cat == "gpu_memcpy" or cat == "gpu_memset":
        return _KERNEL, category
    return _RUNTIME, category


def _add_span(raw: RawRank, ev: dict[str, Any], name: str, spans: dict[tuple[str, str], tuple[int, Category]]) -> None:
    """A complete event ('X'): a kernel or copy, a runtime call, a user annotation or a CPU op; others dropped."""
    ts = ev["ts"]
    dur = ev.get("dur", 0)
    if ts.__class__ is not float or dur.__class__ is not float:
        try:
            ts, dur = _num(ts), _num(dur)
        except (TypeError, ValueError):
            return
    cat = ev.get("cat", "")
    if cat.__class__ is not str:
        cat = str(cat)
    key = (cat, name)
    found = spans.get(key)
    kind, category = found if found is not None else spans.setdefault(key, _span_kind(cat, name))
    if kind == _KERNEL:
        args = ev.get("args")
        if args.__class__ is not dict:
            args = _NO_ARGS
        raw.kernels.append(Event(name, ts, dur, category, _int(args.get("correlation"))))
        raw.kernel_streams.append(_int(args.get("stream", ev.get("tid"))))
    elif kind == _RUNTIME:
        args = ev.get("args")
        raw.runtime.append(
            Event(name, ts, dur, category, _int(args.get("correlation") if args.__class__ is dict else None))
        )
    elif kind == _ANNOTATION:
        raw.annotations.append(Event(name, ts, dur, category))
    elif kind == _CPU and dur > 0:
        raw.cpu.setdefault(_int(ev.get("tid", 0)), []).append(Event(name, ts, dur, category))


def to_rank(raw: RawRank, t0: float) -> Rank:
    """The trace model's Rank, times shifted so the whole profile starts at 0."""

    def shift(events: list[Event]) -> list[Event]:
        return [Event(e.name, e.start - t0, e.dur, e.category, e.correlation, None, e.kind) for e in events]

    tracks: list[Track] = []
    main_tid = max(raw.cpu, key=lambda t: len(raw.cpu[t])) if raw.cpu else None
    if main_tid is not None:
        tracks.append(Track("python (main)", TrackKind.CPU_THREAD, shift(raw.cpu[main_tid])))
    for tid, events in raw.cpu.items():
        if tid != main_tid and any(e.category is Category.DATALOADER for e in events):
            tracks.append(Track(raw.thread_names.get(tid, f"thread {tid}")[:40], TrackKind.CPU_THREAD, shift(events)))
    tracks.append(Track("NVTX", TrackKind.ANNOTATION, shift(raw.annotations)))
    tracks.append(Track("CUDA API", TrackKind.CUDA_API, shift(raw.runtime)))
    streams: dict[int, list[Event]] = {}
    for e, s in zip(raw.kernels, raw.kernel_streams, strict=True):
        streams.setdefault(s, []).append(Event(e.name, e.start - t0, e.dur, e.category, e.correlation, None, e.kind))
    for s in sorted(streams):
        events = sorted(streams[s], key=lambda e: e.start)
        kinds = [e.category for e in events]
        role = max(
            ("compute", Category.COMPUTE),
            ("NCCL", Category.NCCL),
            ("memcpy", Category.MEMCPY),
            key=lambda rc: kinds.count(rc[1]),
        )[0]
        label = f"Stream {s} ({role})"
        tracks.append(Track(label, TrackKind.GPU_STREAM, events, stream=s))
    for name, samples in raw.counters.items():
        samples.sort()
        tracks.append(
            Track(
                name,
                TrackKind.COUNTER,
                sample_times=[t - t0 for t, _ in samples],
                sample_values=[v for _, v in samples],
                unit="%" if "%" in name else "",
            )
        )
    return Rank(raw.rank, tracks)


def load(path: Path) -> list[RawRank]:
    files = trace_files(path)
    ranks: list[RawRank] = []
    budget = MAX_EVENTS
    for i, p in enumerate(files):
        ranks.append(read_rank(p, i, budget))
        budget -= ranks[-1].events_read
    if not any(r.kernels for r in ranks):
        raise TraceFileError(f"{path.name}: no GPU kernels in this trace (was CUDA activity profiled?)")
    seen: set[int] = set()
    for i, r in enumerate(ranks):  # two files claiming one rank: keep both, renumber the later one
        if r.rank in seen:
            r.rank = max(seen) + 1 + i
        seen.add(r.rank)
    return sorted(ranks, key=lambda r: r.rank)
