"""The rule book: every rubric and the vocabulary compiled once into a read-only structure shared by all threads."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz, process

from .compounds import reset as reset_folds
from .phrases import FUZZY_MIN_LEN, ConceptIndex, Phrase, compile_phrases, words
from .rubric import CONCEPT_REF, Rubric, load_rubrics
from .rubric import reset as reset_rubrics
from .text import Token, canonical
from .vocabulary import Vocabulary, vocabulary
from .vocabulary import reset as reset_vocabulary

FUZZY_CUTOFF = 80.0
FUZZY_CUTOFF_SHORT = 85.0  # 5–6 letter words: one slip at most


@dataclass(frozen=True, slots=True)
class RulePart:
    """The compiled rules of one part of one rubric."""

    number: int  # its place among all the rule book's parts (a reply keeps its matches in this order)
    rules: tuple[Phrase, ...]
    naming: bool  # the rules name a diagnosis: a mention inside a fix or a check does not count


@dataclass(frozen=True, slots=True)
class CompiledRubric:
    rubric: Rubric
    signature: RulePart
    measurement: RulePart
    fix: RulePart
    wrong_fix: RulePart


Candidate = tuple[int, bool, Phrase, frozenset[str]]  # part number, naming, the rule, every token it needs


@dataclass(frozen=True, slots=True)
class Engine:
    """Everything compiled from the rubric files: built once, then only read (safe to share across threads)."""

    rubrics: dict[str, CompiledRubric]
    concepts: ConceptIndex
    stems: frozenset[str]  # every stem a rubric or concept can match
    words: dict[str, tuple[str, ...]]  # rubric and concept words as written (5+ letters) by first letter, for typos
    word_stem: dict[str, str]
    parts: tuple[RulePart, ...]  # every rubric's parts, by number
    by_first: dict[str, tuple[Candidate, ...]]  # a rule's rarest token → the rule, its part and everything it needs


_LOCK = threading.Lock()
_ENGINE: list[Engine] = []


def engine() -> Engine:
    """The compiled rubrics and vocabulary; the first caller builds them under a lock, everyone else reads."""
    if _ENGINE:
        return _ENGINE[0]
    with _LOCK:
        if not _ENGINE:
            _ENGINE.append(_build())
    return _ENGINE[0]


def compiled() -> dict[str, CompiledRubric]:
    return engine().rubrics


def clear_caches() -> None:
    """Back to a cold start (for tests and benchmarks): the next grade recompiles everything."""
    with _LOCK:
        _ENGINE.clear()
        correct.cache_clear()
        canonical.cache_clear()
        reset_folds()
        reset_rubrics()
        reset_vocabulary()


def _build() -> Engine:
    memo: dict[str, tuple[Token, ...]] = {}
    # four parts per rubric, numbered in order: a reply keeps each part's matches at its number
    rubrics = {sig: _compile_rubric(r, 4 * k, memo) for k, (sig, r) in enumerate(load_rubrics().items())}
    concepts = ConceptIndex.build(memo)
    stems, written = _known_words(rubrics, concepts, memo)
    parts = tuple(p for c in rubrics.values() for p in (c.signature, c.measurement, c.fix, c.wrong_fix))
    return Engine(rubrics, concepts, stems, _by_initial(written), written, parts, _by_rarest(parts, vocabulary()))


def _compile_rubric(r: Rubric, first: int, memo: dict[str, tuple[Token, ...]]) -> CompiledRubric:
    names = compile_phrases(r.signature.names, 1.0, memo, name=True)
    named = {(p.tokens, p.exclude, p.ordered) for p in names}
    # a rule that says the same as one of the names is the name (one rule, matched once)
    rules = tuple(
        p for p in compile_phrases(r.signature.rules, 1.0, memo) if (p.tokens, p.exclude, p.ordered) not in named
    )
    signature = names + rules + compile_phrases(r.signature.weak, 0.5, memo)
    return CompiledRubric(
        r,
        RulePart(first, signature, naming=True),
        RulePart(first + 1, compile_phrases(r.measurement.rules, 1.0, memo), naming=False),
        RulePart(first + 2, compile_phrases(r.fix.rules, 1.0, memo), naming=False),
        RulePart(first + 3, compile_phrases(r.fix.wrong, 1.0, memo), naming=False),
    )


def _known_words(
    rubrics: dict[str, CompiledRubric], concepts: ConceptIndex, memo: dict[str, tuple[Token, ...]]
) -> tuple[frozenset[str], dict[str, str]]:
    """Every stem a rule or concept can match, and every word (5+ letters) as written → its stem, for typos."""
    stems: set[str] = set(concepts.stems)
    written: dict[str, str] = dict(concepts.words)
    for c in rubrics.values():
        for group in (c.signature, c.measurement, c.fix, c.wrong_fix):
            for p in group.rules:
                stems.update(t for t in p.tokens if not t.startswith("@"))
                for piece in CONCEPT_REF.split(p.text.lstrip("^"))[::2]:
                    for t in words(piece.split("!")[0], memo):
                        if len(t.word) >= FUZZY_MIN_LEN:
                            written.setdefault(t.word, t.stem)
    return frozenset(stems), written


def _by_rarest(parts: tuple[RulePart, ...], vocab: Vocabulary) -> dict[str, tuple[Candidate, ...]]:
    """Each rule indexed under its most specific word (a literal before a concept class, a small class before a
    big one): a clause is then checked against far fewer rules that cannot match it."""

    def breadth(token: str) -> int:
        if not token.startswith("@"):
            return 0
        name = token[1:]
        return len(vocab.terms(name)) if name in vocab.concepts else 1000  # {number}, {quantity}: everywhere

    by_first: dict[str, list[Candidate]] = {}
    for part in parts:
        for p in part.rules:
            by_first.setdefault(min(p.tokens, key=breadth), []).append((part.number, part.naming, p, p.needs))
    return {k: tuple(v) for k, v in by_first.items()}


@lru_cache(maxsize=65536)
def correct(stem: str, word: str) -> str:
    """A misspelt word (5+ letters) becomes the rubric word it is closest to; short words must be exact.

    A typo keeps the first letter and about the length ("allredcue", "bandwith"); without that rule ordinary words
    drift into rubric words ("thing" → "nothing", "stage" → "stall")."""
    eng = engine()
    if stem in eng.stems or len(word) < FUZZY_MIN_LEN or any(ch.isdigit() for ch in word):
        return stem
    cutoff = FUZZY_CUTOFF if len(word) >= 7 else FUZZY_CUTOFF_SHORT
    candidates = eng.words.get(word[0], ())
    for candidate, _score, _ in process.extract(word, candidates, scorer=fuzz.ratio, score_cutoff=cutoff, limit=5):
        if abs(len(candidate) - len(word)) <= 2:
            return eng.word_stem[candidate]
    return stem


def _by_initial(written: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """Typo candidates grouped by first letter: a typo keeps it, and the search is 20× smaller."""
    groups: dict[str, list[str]] = {}
    for w in written:
        groups.setdefault(w[0], []).append(w)
    return {k: tuple(v) for k, v in groups.items()}
