"""grade() runs in worker threads (asyncio.to_thread): words stemmed concurrently must equal serial ones."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.grading.text import canonical


@pytest.fixture
def eager_thread_switches() -> Iterator[None]:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython allows: races show up at once
    try:
        yield
    finally:
        sys.setswitchinterval(old)


@pytest.mark.usefixtures("eager_thread_switches")
def test_words_stemmed_in_threads_equal_words_stemmed_serially() -> None:
    stems = ("synchroniz", "overlapp", "throttl", "allocat", "bucket", "fragment", "launch", "starv")
    letters = "abcdefghijklmnopqrstuvwxyz"
    # No digits (a word with a digit is kept as is): every word goes through the stemmer.
    words = [f"{a}{b}{stem}{suffix}" for a in letters for b in letters[:12] for stem in stems
             for suffix in ("ing", "ation", "ed")]
    canonical.cache_clear()  # canonical() is memoised: start cold so every thread really stems
    with ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(pool.map(canonical, words, chunksize=7))
    canonical.cache_clear()
    serial = [canonical(w) for w in words]
    assert threaded == serial
