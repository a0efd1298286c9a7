"""No label in a drill's trace files or text timeline names the answer: every event name, row (thread/process)
name, NVTX range, counter name and string argument of every exported rank, for every signature and difficulty."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.drills.scenarios import text_timeline
from bot.scenarios.export import export_scenario
from bot.scenarios.ids import DIFFICULTIES
from bot.scenarios.model import Category, TrackKind
from bot.scenarios.registry import generate

from .giveaways import trace_words_for
from .memo import scenario

SEEDS = (7, 123456789)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def labels_of_export(folder: Path) -> set[str]:
    out: set[str] = set()
    for path in folder.glob("rank-*.json"):
        for ev in json.loads(path.read_text())["traceEvents"]:
            out.add(str(ev.get("name", "")))
            out.update(_strings(ev.get("args", {})))
    return out


def exported_text(folder: Path) -> str:
    """Every rank file as lower-case text: a word found nowhere in it is in no event name, row name, NVTX range,
    counter name or string argument (numbers cannot spell a word; names are written unescaped, as UTF-8)."""
    return "\n".join(p.read_text(encoding="utf-8").lower() for p in sorted(folder.glob("rank-*.json")))


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_no_trace_label_or_timeline_names_the_answer(signature_id: str, difficulty: str, tmp_path: Path) -> None:
    for seed in SEEDS:
        s = scenario(signature_id, seed, difficulty)
        folder = tmp_path / str(seed)
        export_scenario(s, folder)
        exported = exported_text(folder)
        labels = {t.name for r in s.trace.ranks for t in r.tracks} | {
            e.name for r in s.trace.ranks for t in r.tracks for e in t.events
        }
        text = "\n".join(sorted(labels)).lower()
        timeline = text_timeline(s).lower()
        for word in trace_words_for(signature_id):
            at = exported.find(word)
            assert at < 0, (seed, word, exported[max(0, at - 120) : at + 60])
            assert word not in text, (seed, word, [x for x in labels if word in x.lower()][:3])
            assert word not in timeline, (seed, word)


def test_the_check_sees_a_planted_label(tmp_path: Path) -> None:
    s = generate("launch_bound", 0)
    s.trace.ranks[0].tracks[0].events[0].name = "model.forward (eager dispatch, per-op Python)"
    export_scenario(s, tmp_path)
    assert any("eager dispatch" in x for x in labels_of_export(tmp_path))
    assert "eager dispatch" in exported_text(tmp_path)


def test_the_check_sees_a_planted_argument(tmp_path: Path) -> None:
    s = generate("prefill_blocks_decode", 0)
    kernels = (e for r in s.trace.ranks for t in r.tracks if t.kind is TrackKind.GPU_STREAM for e in t.events)
    event = next(e for e in kernels if e.category is not Category.MEMCPY)
    event.args = {**(event.args or {}), "note": "Prefill Blocks Decode"}  # exported as a kernel argument
    export_scenario(s, tmp_path)
    assert "prefill blocks decode" in exported_text(tmp_path)
