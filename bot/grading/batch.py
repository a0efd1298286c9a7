"""Grading from the command line: one answer, or JSON lines in and JSON lines out, never an exception."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any

from ..scenarios.ids import DIFFICULTIES, MAX_SEED, SIGNATURE_IDS
from ..scenarios.model import Scenario
from .model import Grade
from .scorer import grade


@lru_cache(maxsize=512)
def _scenario(signature: str, seed: int, difficulty: str) -> Scenario:
    # Imported here, not at the top: the scenario generators cost ~50 ms of start-up and only seeded lines need them.
    from ..scenarios.registry import generate

    return generate(signature, seed, difficulty)


def grade_one(signature: str, answer: str, seed: int | None = None, difficulty: str = "medium") -> Grade:
    target: Scenario | str = signature if seed is None else _scenario(signature, seed, difficulty)
    return grade(target, answer)


def grade_line(line: str, number: int) -> dict[str, Any]:
    """One JSON line in, one result out; a bad line gets a result with an `error` and zero credit."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        return _error(number, None, f"line {number} is not JSON: {exc.msg}")
    if not isinstance(item, dict):
        return _error(number, None, f"line {number} must be a JSON object")
    signature = item.get("signature")
    if signature not in SIGNATURE_IDS:
        return _error(
            number, signature if isinstance(signature, str) else None, f"line {number}: unknown signature {signature!r}"
        )
    seed = item.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED):
        return _error(number, signature, f"line {number}: seed must be an integer from 0 to {MAX_SEED}")
    difficulty = item.get("difficulty", "medium")
    if difficulty not in DIFFICULTIES:
        return _error(number, signature, f"line {number}: difficulty must be one of {', '.join(DIFFICULTIES)}")
    answer = item.get("answer", "")
    if not isinstance(answer, str):
        answer = "" if answer is None else json.dumps(answer)
    result = grade_one(signature, answer, seed, difficulty).as_dict()
    return result


BLOCK = 2048  # lines read, graded and written per round: memory stays bounded on any input
PARALLEL_FROM = 512  # a batch smaller than this is graded in this process (workers would cost more than they save)
_CHUNK = 64  # lines a worker takes at a time
CPU_MAX = Path("/sys/fs/cgroup/cpu.max")  # cgroup v2: "<quota> <period>" in microseconds, or "max <period>"
CFS_QUOTA = Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")  # cgroup v1: the quota in microseconds, -1 for none …
CFS_PERIOD = Path("/sys/fs/cgroup/cpu/cpu.cfs_period_us")  # … per this period


def _numbered_line(item: tuple[int, str]) -> dict[str, Any]:
    return grade_line(item[1], item[0])


def grade_lines(lines: Iterable[str], workers: int | None = None) -> Iterator[dict[str, Any]]:
    """Grade JSON lines in order, one result per non-blank line. A large batch is shared among worker processes,
    one per CPU this process may use: grading is pure CPU work and one interpreter runs one core. Workers are forked
    after the rubrics are compiled, so they start warm; if one dies, its block is graded here instead."""
    numbered = ((n, line) for n, line in enumerate(lines, start=1) if line.strip())
    block = list(islice(numbered, BLOCK))
    count = _workers() if workers is None else workers
    if count < 2 or len(block) < PARALLEL_FROM or not _may_fork():
        while block:
            yield from map(_numbered_line, block)
            block = list(islice(numbered, BLOCK))
        return
    from .rulebook import engine

    engine()  # compiled once, before the fork
    with ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork")) as pool:
        broken = False
        while block:
            if not broken:
                try:
                    yield from list(pool.map(_numbered_line, block, chunksize=_CHUNK))
                except BrokenProcessPool:
                    broken = True  # a worker was killed (out of memory, a signal): the rest is graded here
            if broken:
                yield from map(_numbered_line, block)
            block = list(islice(numbered, BLOCK))


def _workers() -> int:
    """The CPUs this process may use: its affinity, capped by a cgroup CPU quota (a container limited to two CPUs
    on a 64-core host must not fork 64 workers)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    quota = _cpu_quota()
    return usable if quota is None else min(usable, max(1, math.ceil(quota)))


def _cpu_quota() -> float | None:
    """CPUs' worth of time the cgroup allows (v2's cpu.max, else v1's CFS quota), or None when unlimited."""
    try:
        quota, period = CPU_MAX.read_text().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass  # no cgroup v2 quota: try v1
    try:
        quota_us = int(CFS_QUOTA.read_text())
        return None if quota_us <= 0 else quota_us / int(CFS_PERIOD.read_text())
    except (OSError, ValueError, ZeroDivisionError):
        return None


def _may_fork() -> bool:
    """Forking is safe only with no other thread running (one could hold a lock the child would inherit held)."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _error(number: int, signature: str | None, message: str) -> dict[str, Any]:
    return {
        "signature": 0.0,
        "measurement": 0.0,
        "fix": 0.0,
        "score": 0.0,
        "named": None,
        "feedback": message,
        "error": message,
        "line": number,
    }
