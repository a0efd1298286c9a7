"""How much the words a person is told before the reveal give the answer away.

A multinomial naive-Bayes classifier is trained on the context words (title, hardware, model, parallelism,
complaint, details) of many generated drills and scored on drills of other seeds. Chance is 1/10 over the ten
signatures and 1/2 within a twin pair; the closer the score stays to chance, the more a drill tests reading.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from .ids import DIFFICULTIES, SIGNATURE_IDS
from .model import Context
from .registry import generate

TWIN_PAIRS: tuple[tuple[str, str], ...] = (
    ("straggler", "unoverlapped_allreduce"),
    ("sync_stall", "alloc_stall"),
    ("healthy", "memory_bound_kernel"),
)
_WORD = re.compile(r"[a-z0-9][a-z0-9.\-]*")


def context_words(c: Context) -> list[str]:
    text = " ".join([c.title, c.hardware, c.model, c.parallelism, c.complaint, *c.details]).lower()
    return [w.strip(".-") for w in _WORD.findall(text)]


class NaiveBayes:
    """Multinomial naive Bayes with add-one smoothing over word counts."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter[str]] = {}
        self.docs: Counter[str] = Counter()

    def fit(self, samples: Iterable[tuple[str, list[str]]]) -> NaiveBayes:
        for label, words in samples:
            self.counts.setdefault(label, Counter()).update(words)
            self.docs[label] += 1
        self._totals = {k: sum(v.values()) for k, v in self.counts.items()}
        self._vocab = len({w for v in self.counts.values() for w in v})
        return self

    def predict(self, words: list[str], labels: Sequence[str] | None = None) -> str:
        n = sum(self.docs.values())
        best, best_score = "", -math.inf
        for label in labels or list(self.counts):
            counts, denom = self.counts[label], self._totals[label] + self._vocab
            score = math.log(self.docs[label] / n) + sum(math.log((counts[w] + 1) / denom) for w in words)
            if score > best_score:
                best, best_score = label, score
        return best


def corpus(seeds: Iterable[int]) -> list[tuple[str, list[str]]]:
    return [
        (sig, context_words(generate(sig, seed, diff).context))
        for seed in seeds
        for sig in SIGNATURE_IDS
        for diff in DIFFICULTIES
    ]


def scores(train_seeds: Iterable[int], test_seeds: Iterable[int]) -> dict[str, float]:
    """Top-1 accuracy over all ten signatures ("overall") and within each twin pair ("a/b")."""
    model = NaiveBayes().fit(corpus(train_seeds))
    test = corpus(test_seeds)
    out = {"overall": sum(model.predict(w) == sig for sig, w in test) / len(test)}
    for a, b in TWIN_PAIRS:
        pair = [(sig, w) for sig, w in test if sig in (a, b)]
        out[f"{a}/{b}"] = sum(model.predict(w, (a, b)) == sig for sig, w in pair) / len(pair)
    return out
