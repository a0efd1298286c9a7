"""Hostile traces: analysis runs in a limited worker, behind a gate, and every refusal is one line."""

from __future__ import annotations

import gzip
import io
import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.analyze import bounded
from bot.analyze.bounded import AnalysisBusy, Gate
from bot.analyze.guard import _STRING, GuardedReader, TraceLimitError, _outside_strings
from bot.analyze.service import AnalysisError, analyze_bytes
from bot.scenarios.export import export_scenario
from bot.scenarios.registry import generate

ROOT = Path(__file__).resolve().parents[1]
LIMIT_KB = 2**20  # 1 GB, as ru_maxrss counts it on Linux


def deep_nesting(path: Path) -> Path:
    """A few hundred bytes of gzip that inflate to 300,000 nested arrays."""
    path.write_bytes(gzip.compress(b'{"traceEvents":[' + b"[" * 300_000, 9))
    return path


def many_events(path: Path, n: int = 12_000_000) -> Path:
    """12 million tiny kernel events in a ~1 MB multi-member gzip (one compressed block, repeated)."""
    block = 100_000
    member = gzip.compress(b'{"ph":"X","cat":"kernel","ts":1},' * block, 9)
    path.write_bytes(gzip.compress(b'{"traceEvents":[') + member * (n // block) + gzip.compress(b"{}]}"))
    return path


def run_cli_measured(*args: str) -> tuple[int, list[str], float, int]:
    """Run `tracedrill …` from outside: exit code, output lines, wall seconds, peak RSS (kB) of it and its workers.
    The wrapper measures its own children only, so nothing else running in this test process is counted; a 4 GB
    address-space ceiling on the wrapper keeps a runaway (today's main) from taking the machine down."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))\n"
        "t = time.monotonic()\n"
        "p = subprocess.run([sys.executable, '-m', 'bot.cli', *sys.argv[1:]], capture_output=True, text=True,"
        " timeout=90)\n"
        "print(p.returncode, time.monotonic() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "sys.stdout.write(p.stdout + p.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=ROOT, timeout=120, check=True
    )
    head, *lines = done.stdout.splitlines()
    code, seconds, peak = head.split()
    return int(code), [line for line in lines if line.strip()], float(seconds), int(peak)


@pytest.mark.long
@pytest.mark.parametrize(
    ("maker", "reason"), [(deep_nesting, "nested deeper than 64"), (many_events, "more than 2,000,000 events")]
)
def test_hostile_files_end_with_one_line_bounded_in_time_and_memory(tmp_path, maker, reason) -> None:  # type: ignore[no-untyped-def]
    path = maker(tmp_path / "hostile.json.gz")
    assert path.stat().st_size < 3 * 2**20
    code, lines, seconds, peak_kb = run_cli_measured("analyze", str(path))
    assert code != 0
    assert len(lines) == 1, lines[:5]
    # the guard's own reason; on a badly overloaded machine the worker's wall-clock limit may come first
    assert reason in lines[0] or "analysis took longer than" in lines[0], lines[0]
    assert seconds <= 60
    assert peak_kb <= LIMIT_KB, f"peak {peak_kb / 1024:.0f} MB"


def test_guard_counts_depth_across_chunks_and_ignores_brackets_in_strings() -> None:
    inner = b'{"name": "[[[[{{{{ \\" [[[[", "args": {"a": [1, [2]]}}'
    doc = b'{"traceEvents": [' + b",".join([inner] * 5000) + b"]}"

    def drain(reader: GuardedReader, size: int) -> int:
        total = 0
        while chunk := reader.read(size):
            total += len(chunk)
        return total

    # tiny chunks: strings and escapes split at every possible place; {[{{[[ is 6 deep
    assert drain(GuardedReader(io.BytesIO(doc), "ok.json", max_bytes=len(doc), max_depth=6), 7) == len(doc)
    deep = GuardedReader(
        io.BytesIO(b'{"a": "x", "b": ' + b"[" * 5 + b"]" * 5 + b"}"), "deep.json", max_bytes=1000, max_depth=5
    )
    with pytest.raises(TraceLimitError, match="deeper than 5"):
        drain(deep, 3)
    big = GuardedReader(io.BytesIO(b" " * 5000), "big.json", max_bytes=4096)
    with pytest.raises(TraceLimitError, match="MB of JSON once decompressed"):
        drain(big, 1000)


def test_guard_without_escapes_strips_strings_as_the_regex_does() -> None:
    """Chunks with no backslash take a split-on-quotes path: it leaves the same bytes outside strings and carries
    the same open string as the escape-aware regex, and depth is still counted across chunk edges."""
    rng = random.Random(15)
    for _ in range(2000):
        buf = bytes(rng.choice(b'"[]{}a, ') for _ in range(rng.randrange(0, 40)))
        stripped = _STRING.sub(b"", buf)
        open_at = stripped.find(b'"')
        expected = (stripped, b"") if open_at < 0 else (stripped[:open_at], stripped[open_at:])
        assert _outside_strings(buf) == expected, buf
    inner = b'{"name": "[[[[{{{{ ]]", "args": {"a": [1, [2]]}, "x": "}}}"}'
    doc = b'{"traceEvents": [' + b",".join([inner] * 300) + b"]}"

    def drain(reader: GuardedReader, size: int) -> bytes:
        return b"".join(iter(lambda: reader.read(size), b""))

    for size in (1, 2, 3, 5, 8, 13, 4096):  # strings and brackets split at every place
        assert drain(GuardedReader(io.BytesIO(doc), "ok.json", max_bytes=len(doc), max_depth=6), size) == doc
        shallow = GuardedReader(io.BytesIO(doc), "deep.json", max_bytes=len(doc), max_depth=5)  # {[{{[[ is 6
        with pytest.raises(TraceLimitError, match="deeper than 5"):
            drain(shallow, size)


def test_worker_memory_and_time_limits_give_one_line(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = many_events(tmp_path / "many.json.gz", 3_000_000)
    monkeypatch.setattr(bounded, "MEMORY_BYTES", 200 * 2**20)
    with pytest.raises(AnalysisError, match="more than 200 MB") as memory:
        bounded.analyze_file(path)
    assert "\n" not in str(memory.value)
    monkeypatch.setattr(bounded, "MEMORY_BYTES", 2**30)
    monkeypatch.setattr(bounded, "WALL_SECONDS", 1.0)
    started = time.monotonic()
    with pytest.raises(AnalysisError, match="longer than 1 s"):
        bounded.analyze_file(path)
    assert time.monotonic() - started < 10


def test_gate_queues_then_refuses_with_a_busy_line() -> None:
    gate = Gate(running=1, waiting=1, queue_seconds=5)
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with gate:
            held.set()
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    queued: list[str] = []

    def wait_in_queue() -> None:
        with gate:
            queued.append("ran")

    waiter = threading.Thread(target=wait_in_queue)
    waiter.start()
    deadline = time.monotonic() + 5
    while gate._waiting == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(AnalysisBusy, match="busy"), gate:  # one running, one queued: the third is told at once
        pass
    release.set()
    holder.join(5)
    waiter.join(5)
    assert queued == ["ran"]


def test_uploads_are_analysed_in_the_worker(tmp_path) -> None:  # type: ignore[no-untyped-def]
    export_scenario(generate("alloc_stall", 2), tmp_path)
    result = analyze_bytes("rank-0.json", (tmp_path / "rank-0.json").read_bytes(), picture=False)
    assert result.signature == "alloc_stall"
    with pytest.raises(AnalysisError, match="deeper than 64"):
        analyze_bytes("deep.json.gz", deep_nesting(tmp_path / "deep.json.gz").read_bytes())
    assert json.dumps(result.json)
