"""Concurrent grading equals serial grading, from a cold start (nothing compiled, no stems cached)."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.grading import grade
from bot.grading.corpus import load_rows
from bot.grading.rulebook import clear_caches

THREADS = 16
OLD_SET = Path(__file__).parent / "data" / "replies.jsonl"


def _replies() -> list[tuple[str, str]]:
    rows = load_rows()
    rows += [json.loads(line) for line in OLD_SET.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(r["signature"], r["answer"]) for r in rows]


@pytest.fixture
def fast_switching() -> Iterator[None]:
    """Switch threads every 10 µs so unsafe shared state is hit, not just possible."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


@pytest.mark.long
def test_sixteen_threads_on_a_cold_cache_grade_exactly_like_one(fast_switching: None) -> None:
    replies = _replies()
    clear_caches()
    serial = [grade(sig, answer).as_dict() for sig, answer in replies]

    clear_caches()  # cold again: the threads race to compile the rubrics and fill every cache
    start = threading.Barrier(THREADS)
    results: list[dict[int, dict[str, object]] | None] = [None] * THREADS
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            start.wait()
            # Thread k grades the replies i ≡ k (mod THREADS): sixteen replies at a time, which share most of their
            # words, so the same words are being stemmed, corrected and cached by several threads at once.
            out: dict[int, dict[str, object]] = {}
            for i in range(k, len(replies), THREADS):
                out[i] = grade(*replies[i]).as_dict()
            results[k] = out
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    graded = set()
    for k, got in enumerate(results):
        assert got is not None
        graded |= set(got)
        diffs = [i for i, result in got.items() if result != serial[i]]
        assert not diffs, f"thread {k}: {len(diffs)} results differ from serial, first: {replies[diffs[0]]}"
    assert graded == set(range(len(replies)))
