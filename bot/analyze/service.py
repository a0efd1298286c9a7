"""One entry point for the CLI and the chat adapters: a path in, text + JSON (+ picture) out, one-line errors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    source = path.name
    png = None
    if picture:
        from ..render.png import render_png
        from .picture import as_scenario

        device = next((r.device_name for r in raws if r.device_name), "")
        png = render_png(as_scenario(reading, source, device), theme_name=theme, reveal=True)
    return AnalysisResult(report_text(reading, source), report_json(reading, source), png, reading.top.signature)
