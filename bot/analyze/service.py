"""One entry point for the CLI and the chat adapters: a path in, text + JSON (+ picture) out, one-line errors."""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from ..cleantext import trace_label
from ..scenarios.model import Scenario
from .bounded import Job, analyze_upload
from .importer import RawRank, TraceFileError, load
from .model import AnalysisError, AnalysisResult, Reading
from .reading import read
from .report import report_json, report_text

__all__ = [
    "MAX_UPLOAD_BYTES",
    "TRACE_SUFFIXES",
    "AnalysisError",
    "AnalysisResult",
    "analyze_bytes",
    "analyze_job",
    "analyze_path",
    "check_upload",
    "scenario_from_bytes",
]

MAX_UPLOAD_BYTES = 50 * 2**20
TRACE_SUFFIXES = (".json", ".json.gz", ".gz")


def analyze_path(path: Path, *, picture: bool = False, theme: str = "light") -> AnalysisResult:
    try:
        raws = load(path)
        reading = read(raws)
    except TraceFileError as exc:
        raise AnalysisError(str(exc)) from exc
    except (OSError, ValueError, KeyError, TypeError) as exc:  # unreadable or shaped unlike any trace
        detail = " ".join(str(exc).split())[:100]
        raise AnalysisError(f"{path.name}: cannot read this as a trace ({type(exc).__name__}: {detail})") from exc
    source = trace_label(path.name, 200)  # an uploaded file's name is shown in chat
    png = _picture(reading, source, _device(raws), theme) if picture else None
    return AnalysisResult(report_text(reading, source), report_json(reading, source), png, reading.top.signature)


def check_upload(filename: str, size: int) -> None:
    """Before downloading a chat attachment: a clear reason to refuse, or nothing."""
    if not filename.lower().endswith(TRACE_SUFFIXES):
        raise AnalysisError(f"{filename}: expected a Kineto / Chrome trace (.json or .json.gz)")
    if size > MAX_UPLOAD_BYTES:
        raise AnalysisError(
            f"{filename}: {size / 2**20:.0f} MB is over the {MAX_UPLOAD_BYTES // 2**20} MB limit "
            "(trim the profile to a few steps)"
        )


def analyze_bytes(filename: str, data: bytes, *, picture: bool = True) -> AnalysisResult:
    """Analyse an uploaded trace in a worker process with memory, CPU and time limits (see bounded.py); raises
    AnalysisError (AnalysisBusy when every worker is taken) with one line for the person who uploaded it."""
    check_upload(filename, len(data))
    return analyze_upload(filename, data, picture=picture)


def analyze_job(job: Job) -> AnalysisResult:
    """What the worker runs: a file or folder on disk, or uploaded bytes stored in a private folder first."""
    if job.data is None:
        assert job.path is not None
        return analyze_path(Path(job.path), picture=job.picture, theme=job.theme)
    check_upload(job.filename, len(job.data))
    with _stored(job.filename, job.data) as path:
        return analyze_path(path, picture=job.picture, theme=job.theme)


def scenario_from_bytes(filename: str, data: bytes) -> Scenario:
    """A stored trace as a drill scenario: the picture, the analysis as the reveal, its top finding as the answer."""
    # Imported here for start-up time: the picture side (matplotlib, the rubrics) costs the analysis worker, which
    # imports this module, ~0.4 s and ~55 MB that a text-only analysis never uses.
    from .picture import as_scenario

    with _stored(filename, data) as path:
        try:
            raws = load(path)
            reading = read(raws)
        except TraceFileError as exc:
            raise AnalysisError(str(exc)) from exc
    # A trace's drill is named by its bytes, not by seed 0: pictures are cached by (signature, seed, difficulty),
    # and two teams' traces with the same top finding must not share one.
    return replace(as_scenario(reading, trace_label(path.name, 200), _device(raws)), seed=content_seed(data))


def content_seed(data: bytes) -> int:
    """A stable, non-negative 63-bit number from the trace's bytes (the same upload gives the same drill)."""
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big") >> 1


@contextmanager
def _stored(filename: str, data: bytes) -> Iterator[Path]:
    """`data` as a file named like the upload (its suffix tells gzip from JSON) in a private temporary folder."""
    safe = Path(filename).name or "trace.json"
    with tempfile.TemporaryDirectory(prefix="tracedrill-") as tmp:
        path = Path(tmp) / safe
        path.write_bytes(data)
        yield path


def _device(raws: list[RawRank]) -> str:
    return next((r.device_name for r in raws if r.device_name), "")


def _picture(reading: Reading, source: str, device: str, theme: str) -> bytes:
    # Imported here for start-up time, as in scenario_from_bytes.
    from .picture import reading_png

    return reading_png(reading, source, device, theme)
