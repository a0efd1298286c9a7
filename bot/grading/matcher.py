"""Finding rubric phrases in a reply: stems, typos, any order within a window, polarity, hedges."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz, process

from .rubric import Rubric, load_rubrics
from .text import Clause, Token, canonical, clauses, clean

FUZZY_MIN_LEN = 5  # typo tolerance only for longer words: acronyms (AR, DL, PP, ITL) must match exactly
FUZZY_CUTOFF = 80.0
WINDOW_SLACK = 4  # a k-word phrase may spread over k + 4 words (stop words count), in any order

_NEGATION_BEFORE = re.compile(
    r"(?:\bnot\b|\bno\b|n't\b|\bnever\b|\bnor\b|\bwithout\b|\brather than\b|\binstead of\b|\brul(?:e|ed|ing) out\b"
    r"|\bunlikely\b|\bdoubt\b|\bneither\b|\bagainst\b|\bnot a\b|\bisn'?t\b|\bexclud\w*|\breject\w*|\bdismiss\w*"
    r"|\bfirst (?:i )?(?:thought|guess\w*)|\bmy first guess\b|\btempting\b|\bwrong\b)[^.;]{0,40}$"
)
_EXONERATED_AFTER = re.compile(
    r"^[^.;]{0,25}?(?:\b(?:is|are|was|looks?|seems?|appears?)\s+(?:fine|ok|okay|good|normal|innocent|irrelevant|"
    r"healthy|a red herring|not (?:it|the (?:problem|issue|cause|culprit|bottleneck)))|\bruled out\b|"
    r"\b(?:isn'?t|aren'?t|wasn'?t|is not|are not|was not)\s+(?:it|the (?:problem|issue|cause|culprit|bottleneck))"
    r"|\bis a red herring\b|\b(?:can|could)\s*(?:not|n't)\s+(?:explain|account)|\bdoesn'?t (?:explain|fit)"
    r"|\bwouldn'?t (?:explain|fit)|\bis wrong\b|\bis a trap\b|\bis the trap\b)"
)
# A diagnosis named inside a fix ("remove the torch.cuda.synchronize() before the all-reduce") is not a claim.
_FIX_CONTEXT_BEFORE = re.compile(
    r"\b(?:remove|removing|drop|dropping|avoid|avoiding|get rid of|eliminate|delete|take out|stop calling|no more"
    r"|fix|fixing|fixed)"
    r"\b[^.;]{0,30}$"
)
_NEGATED_PROBLEM_AFTER = re.compile(r"^\W*(?:problem|issue|bottleneck|the case|it)\b")
_NEGATIONS = frozenset({"not", "no"})
_HEDGE = re.compile(
    r"\b(?:not sure|unsure|no idea|maybe|might be|could be|possibly|perhaps|hard to (?:say|tell)|can'?t tell|"
    r"i guess|guessing|50/50|50-50|coin ?flip|one of|some kind of)\b|\beither\b.{0,80}\bor\b|\?\s*$"
)


@dataclass(frozen=True, slots=True)
class Phrase:
    text: str
    tokens: tuple[str, ...]
    weight: float  # 1 = names the thing; 0.5 = a symptom description


@dataclass(frozen=True, slots=True)
class Match:
    phrase: Phrase
    clause: Clause
    positive: bool
    hedged: bool
    words: tuple[str, ...] = ()  # the reply's words that matched, as written

    def quote(self) -> str:
        """The part of the clause that earned it, as written (the comma-separated piece holding the match)."""
        pieces = [p.strip(" ,:-–—") for p in self.clause.quote.split(",")]
        wanted = {w for w in self.words if len(w) > 2}
        best = max(pieces, key=lambda p: sum(w in p.lower() for w in wanted)) if wanted else self.clause.quote
        q = best if best and sum(w in best.lower() for w in wanted) == len(wanted) else self.clause.quote
        q = q.strip(" ,:-–—")
        return q if len(q) <= 160 else q[:157].rstrip() + "…"


class PhraseSet(tuple[Phrase, ...]):
    """Phrases indexed by their first word, so a reply is only checked against phrases that can match."""

    by_first: dict[str, tuple[Phrase, ...]]

    def __new__(cls, phrases: tuple[Phrase, ...]) -> PhraseSet:
        obj = super().__new__(cls, phrases)
        index: dict[str, list[Phrase]] = {}
        for p in phrases:
            index.setdefault(p.tokens[0], []).append(p)
        obj.by_first = {k: tuple(v) for k, v in index.items()}
        return obj


def compile_phrases(phrases: list[str], weight: float) -> tuple[Phrase, ...]:
    out = []
    for p in phrases:
        tokens = tuple(t.stem for c in clauses(clean(p)) for t in c.tokens)
        if tokens:
            out.append(Phrase(p, tokens, weight))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class CompiledRubric:
    rubric: Rubric
    signature: PhraseSet
    measurement: PhraseSet
    fix: PhraseSet
    wrong_fix: PhraseSet


@lru_cache(maxsize=1)
def compiled() -> dict[str, CompiledRubric]:
    out = {}
    for sig, r in load_rubrics().items():
        out[sig] = CompiledRubric(
            r,
            PhraseSet(compile_phrases(r.signature.phrases, 1.0) + compile_phrases(r.signature.weak, 0.5)),
            PhraseSet(compile_phrases(r.measurement.phrases, 1.0)),
            PhraseSet(compile_phrases(r.fix.phrases, 1.0)),
            PhraseSet(compile_phrases(r.fix.wrong, 1.0)),
        )
    return out


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[frozenset[str], dict[str, str]]:
    """Every rubric stem, and every rubric word as written (5+ letters) → its stem, for typo matching."""
    stems: set[str] = set()
    words: dict[str, str] = {}
    for c in compiled().values():
        for group in (c.signature, c.measurement, c.fix, c.wrong_fix):
            for p in group:
                stems.update(p.tokens)
                for cl in clauses(clean(p.text)):
                    for t in cl.tokens:
                        if len(t.word) >= FUZZY_MIN_LEN:
                            words.setdefault(t.word, t.stem)
    return frozenset(stems), words


@lru_cache(maxsize=65536)
def _correct(stem: str, word: str) -> str:
    """A misspelt word (5+ letters) becomes the rubric word it is closest to; short words must be exact."""
    stems, words = _vocabulary()
    if stem in stems or len(word) < FUZZY_MIN_LEN or any(ch.isdigit() for ch in word):
        return stem
    best = process.extractOne(word, list(words), scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF)
    return words[best[0]] if best else stem


@dataclass(slots=True)
class Reply:
    text: str  # cleaned, lower case
    clauses: list[Clause]
    index: list[dict[str, list[int]]]  # per clause: word → positions
    hedged: bool

    @classmethod
    def parse(cls, raw: str) -> Reply:
        cleaned = clean(raw)
        index: list[dict[str, list[int]]] = []
        fixed: list[Clause] = []
        for c in clauses(cleaned):
            tokens = tuple(Token(_correct(t.stem, t.word), t.start, t.end, t.position, t.word) for t in c.tokens)
            fixed.append(Clause(c.text, c.quote, tokens))
            positions: dict[str, list[int]] = {}
            for i, t in enumerate(tokens):
                positions.setdefault(t.stem, []).append(i)
            index.append(positions)
        low = cleaned.lower()
        return cls(low, fixed, index, bool(_HEDGE.search(low)))

    def find(self, phrases: PhraseSet, *, naming: bool = False) -> list[Match]:
        """Every phrase found, with its polarity. With `naming`, mentions inside a fix do not count."""
        found = []
        by_first = phrases.by_first
        for clause, positions in zip(self.clauses, self.index, strict=True):
            candidates = [p for word in positions for p in by_first.get(word, ())]
            for phrase in candidates:
                span = _locate(phrase.tokens, positions, clause.tokens)
                if span is None:
                    continue
                i, j = span
                before = clause.text[: clause.tokens[i].start]
                after = clause.text[clause.tokens[j].end :]
                negated = bool(_NEGATION_BEFORE.search(before)) or bool(_EXONERATED_AFTER.search(after))
                if _NEGATIONS & set(phrase.tokens) and _NEGATED_PROBLEM_AFTER.search(after):
                    negated = True  # "not an overlap problem" rejects overlap, it does not claim its absence
                if naming and _FIX_CONTEXT_BEFORE.search(before):
                    negated = True
                words = tuple(t.word for t in clause.tokens[i : j + 1] if t.stem in phrase.tokens)
                found.append(Match(phrase, clause, not negated, bool(_HEDGE.search(clause.text)), words))
        return found


def _locate(
    tokens: tuple[str, ...], positions: dict[str, list[int]], words: tuple[Token, ...]
) -> tuple[int, int] | None:
    """Indices (first, last) of a window holding every token of the phrase, or None."""
    lists = []
    for t in tokens:
        p = positions.get(t)
        if p is None:
            return None
        lists.append(p)
    window = len(tokens) + WINDOW_SLACK
    negation_first = tokens[0] in _NEGATIONS and len(tokens) > 1
    for anchor in lists[0]:
        at = words[anchor].position
        chosen = [anchor]
        for other in lists[1:]:
            chosen.append(min(other, key=lambda k: abs(words[k].position - at)))
        lo = min(chosen, key=lambda k: words[k].position)
        hi = max(chosen, key=lambda k: words[k].position)
        if negation_first and lo != anchor:
            continue  # "no overlap" needs the negation first; "overlap … no" is another sentence
        if words[hi].position - words[lo].position < window:
            return min(lo, hi), max(lo, hi)
    return None


def stem_of(word: str) -> str:
    return canonical(word)
