"""The words told before the reveal do not name the signature: a naive-Bayes classifier trained on the context
of some seeds and scored on other seeds stays near chance within each twin pair and far below the 80% it reached
when every workload belonged to one signature."""

from __future__ import annotations

import pytest

from bot.scenarios.families import HOSTS, LLM, PIPELINE, RECSYS, VISION, context_guess_bound, pair_guess_bound
from bot.scenarios.ids import TWINS
from bot.scenarios.leakage import TWIN_PAIRS, NaiveBayes, context_words, scores
from bot.scenarios.registry import generate

# 360 drills (each drill's context is drawn after its simulation, so each costs a whole drill); the full measure,
# 1,800 drills over 40 + 20 seeds, is benchmarks/bench_scenarios.py. Sub-splits of the 540 drills this test used
# to draw (12 + 6 seeds) score 0.29-0.37 overall and 0.42-0.58 per pair: the margins below hold on any of them,
# and the leaks these bounds were set against scored 0.54 and 0.81 overall.
TRAIN, TEST = range(0, 8), range(5000, 5004)


@pytest.mark.long
def test_context_alone_cannot_pick_between_twins_and_rarely_names_the_signature() -> None:
    got = scores(TRAIN, TEST)
    for pair in ("straggler/unoverlapped_allreduce", "sync_stall/alloc_stall", "healthy/memory_bound_kernel"):
        assert got[pair] <= 0.65, (pair, got)
    # Bubbles and prefill-blocks-decode each fill one family's top weight, the rest share the data-parallel ones
    # (a bound of 0.30); this split is small and noisy, hence the margin over the bench's larger ones.
    assert got["overall"] <= 0.40, got


def test_every_signature_shares_its_family() -> None:
    """No family hosts a single signature: every data-parallel family and the pipeline host at least three."""
    hosted: dict[str, set[str]] = {}
    for sig, hosts in HOSTS.items():
        for family, _ in hosts:
            hosted.setdefault(family, set()).add(sig)
    assert all(len(sigs) > 1 for sigs in hosted.values()), hosted
    assert all(len(hosted[f]) >= 3 for f in (LLM, VISION, RECSYS, PIPELINE)), hosted
    assert {"pipeline_bubbles", "healthy", "straggler", "memory_bound_kernel"} <= hosted[PIPELINE]


def test_twins_are_hosted_by_the_same_families() -> None:
    """Twins share the data-parallel families in the same proportions, so those words never tell them apart.
    Beyond them straggler and sync_stall are hosted by the pipeline or serving, whose twins are not (no pipeline
    all-reduce or served allocation-stall drill is built), and the busy twins by the pipeline 0.15 : 0.3 and
    healthy by serving 0.15: within a pair the words are right at best 0.55–0.575 (`pair_guess_bound`)."""

    def data_parallel(sig: str) -> dict[str, float]:
        hosts = {f: w for f, w in HOSTS[sig] if f in (LLM, VISION, RECSYS)}
        total = sum(hosts.values())
        return {f: round(w / total, 3) for f, w in hosts.items()}

    for a, b in TWINS.items():
        assert data_parallel(a) == data_parallel(b), (a, b)


def test_the_classifier_does_find_a_leak_when_there_is_one() -> None:
    """The measuring stick works: a context that names its signature is classified perfectly."""
    rows = [
        (sig, [*context_words(generate(sig, seed).context), *[f"tell-{sig}"] * 5])
        for seed in range(6)
        for sig in ("healthy", "memory_bound_kernel")
    ]
    model = NaiveBayes().fit(rows)
    assert all(model.predict(words) == sig for sig, words in rows)


def test_no_family_mix_lets_the_words_name_more_than_three_in_ten() -> None:
    """Even a classifier that reads the family perfectly from the words names at most 30% of signatures, and
    picks the right twin at most 55% of the time (57.5% for the busy pair, whose healthy side serving also hosts)."""
    assert context_guess_bound() <= 0.305, context_guess_bound()
    limits = {("healthy", "memory_bound_kernel"): 0.575}
    for a, b in TWIN_PAIRS:
        assert pair_guess_bound(a, b) <= limits.get((a, b), 0.55) + 1e-9, (a, b, pair_guess_bound(a, b))
