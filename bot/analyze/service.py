"""One entry point for the CLI and the chat adapters: a path in, text + JSON (+ picture) out, one-line errors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cleantext import trace_label
from ..scenarios.model import Scenario
from .importer import TraceFileError, load
from .reading import read
from .report import report_json, report_text


class AnalysisError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class AnalysisResult:
    text: str
    json: dict[str, Any]
    png: bytes | None
    signature: str


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
    png = None
    if picture:
        from ..render.png import render_png
        from .picture import as_scenario

        device = next((r.device_name for r in raws if r.device_name), "")
        png = render_png(as_scenario(reading, source, device), theme_name=theme, reveal=True)
    return AnalysisResult(report_text(reading, source), report_json(reading, source), png, reading.top.signature)


MAX_UPLOAD_BYTES = 50 * 2**20
TRACE_SUFFIXES = (".json", ".json.gz", ".gz")


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
    from .bounded import analyze_upload

    check_upload(filename, len(data))
    return analyze_upload(filename, data, picture=picture)


def scenario_from_bytes(filename: str, data: bytes) -> Scenario:
    """A stored trace as a drill scenario: the picture, the analysis as the reveal, its top finding as the answer."""
    import tempfile

    from .picture import as_scenario

    safe = Path(filename).name or "trace.json"
    with tempfile.TemporaryDirectory(prefix="tracedrill-") as tmp:
        path = Path(tmp) / safe
        path.write_bytes(data)
        try:
            raws = load(path)
            reading = read(raws)
        except TraceFileError as exc:
            raise AnalysisError(str(exc)) from exc
    device = next((r.device_name for r in raws if r.device_name), "")
    return as_scenario(reading, trace_label(safe, 200), device)
