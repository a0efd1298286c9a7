"""The words told before the reveal do not name the signature: a naive-Bayes classifier trained on the context
of some seeds and scored on other seeds stays near chance within each twin pair and far below the 80% it reached
when every workload belonged to one signature."""

from __future__ import annotations

from bot.scenarios.families import HOSTS
from bot.scenarios.ids import TWINS
from bot.scenarios.leakage import NaiveBayes, context_words, scores
from bot.scenarios.registry import generate

TRAIN, TEST = range(0, 16), range(5000, 5008)  # the full measure: benchmarks/bench_scenarios.py


def test_context_alone_cannot_pick_between_twins_and_rarely_names_the_signature() -> None:
    got = scores(TRAIN, TEST)
    for pair in ("straggler/unoverlapped_allreduce", "sync_stall/alloc_stall", "healthy/memory_bound_kernel"):
        assert got[pair] <= 0.65, (pair, got)
    # Four families each hold at least one signature that no other family hosts (input starvation, serving,
    # pipeline, the busy pair), which floors the overall score at 0.4; leaks beyond that stay small.
    assert got["overall"] <= 0.6, got


def test_twins_are_hosted_by_the_same_families() -> None:
    for a, b in TWINS.items():
        assert HOSTS[a] == HOSTS[b], (a, b)


def test_the_classifier_does_find_a_leak_when_there_is_one() -> None:
    """The measuring stick works: a context that names its signature is classified perfectly."""
    rows = [
        (sig, [*context_words(generate(sig, seed).context), *[f"tell-{sig}"] * 5])
        for seed in range(6)
        for sig in ("healthy", "memory_bound_kernel")
    ]
    model = NaiveBayes().fit(rows)
    assert all(model.predict(words) == sig for sig, words in rows)
