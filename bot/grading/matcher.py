"""Finding rubric phrases in a reply: stems, typos, any order within a window, polarity, hedges."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from .phrases import Phrase, PhraseSet
from .polarity import HEDGE, UNDECIDED, ClauseReading
from .rulebook import Engine, correct, engine
from .text import Clause, Token, clauses, clean

__all__ = ["Match", "Reply", "engine"]  # engine: `tracedrill serve` compiles the rule book through this name

WINDOW_SLACK = 4  # a k-word phrase may spread over k + 4 words (stop words count), in any order
_NEGATIONS = frozenset({"not", "no"})


@dataclass(frozen=True, slots=True)
class Match:
    phrase: Phrase
    clause: Clause
    positive: bool
    hedged: bool
    words: tuple[str, ...] = ()  # the reply's words that matched, as written
    alternative: bool = False  # in a clause that offers it as one of several possibilities
    conditional: bool = False  # in a clause that makes it a condition ("if it's X, …")
    at: tuple[int, int] = (0, 0)  # which clause, which first word
    span: frozenset[int] = frozenset()  # the word indices in the clause that matched

    def quote(self) -> str:
        """The part of the clause that earned it, as written (the comma-separated piece holding the match)."""
        pieces = [p.strip(" ,:-–—") for p in self.clause.quote.split(",")]
        wanted = {w for w in self.words if len(w) > 2}
        best = max(pieces, key=lambda p: sum(w in p.lower() for w in wanted)) if wanted else self.clause.quote
        q = best if best and sum(w in best.lower() for w in wanted) == len(wanted) else self.clause.quote
        q = q.strip(" ,:-–—")
        return q if len(q) <= 160 else q[:157].rstrip() + "…"


@dataclass(slots=True)
class Reply:
    text: str  # cleaned, lower case
    clauses: list[Clause]
    index: list[dict[str, list[int]]]  # per clause: word → positions
    hedged: bool
    undecided: bool = False  # says it will not commit: every mention is one possibility among several
    found: dict[int, list[Match]] = field(default_factory=dict)  # every rubric part's matches, by id of the part
    readings: dict[int, ClauseReading] = field(default_factory=dict)  # per clause, made at its first match

    @classmethod
    def parse(cls, raw: str) -> Reply:
        cleaned = clean(raw)
        concepts = engine().concepts
        index: list[dict[str, list[int]]] = []
        fixed: list[Clause] = []
        for c in clauses(cleaned):
            tokens = tuple(
                t
                if (fixed_stem := correct(t.stem, t.word)) == t.stem
                else Token(fixed_stem, t.start, t.end, t.position, t.word)
                for t in c.tokens
            )
            fixed.append(Clause(c.text, c.quote, tokens, c.colon))
            positions: dict[str, list[int]] = {}
            for i, t in enumerate(tokens):
                positions.setdefault(t.stem, []).append(i)
            concepts.mark(tokens, positions)
            index.append(positions)
        low = cleaned.lower()
        return cls(low, fixed, index, bool(HEDGE.search(low)), bool(UNDECIDED.search(low)))

    def find(self, phrases: PhraseSet) -> list[Match]:
        """Every rule of this rubric part found in the reply, with its polarity, in reading order. A signature's
        rules name a diagnosis: mentions inside a fix or a check do not count.

        The first call matches every rubric part of the rule book in one pass over the reply; later calls read it."""
        if not self.found:
            self._find_all(engine())
        return self.found[id(phrases)]

    def _find_all(self, eng: Engine) -> None:
        results: list[list[Match]] = [[] for _ in eng.parts]
        located: dict[tuple[int, tuple[str, ...], bool], tuple[int, ...] | None] = {}
        seen: set[tuple[int, int, tuple[int, ...], float]] = set()
        for number, (clause, positions) in enumerate(zip(self.clauses, self.index, strict=True)):
            present = set(positions)  # a set: frozenset <= set is a fast C comparison, dict keys are not
            for word in positions:  # in the clause's own order (a set's order would change between processes)
                for part, phrase in eng.by_first.get(word, ()):
                    if not phrase.needs <= present or (phrase.exclude and not present.isdisjoint(phrase.exclude)):
                        continue
                    key = (number, phrase.tokens, phrase.ordered)
                    if key in located:
                        chosen = located[key]
                    else:
                        chosen = located[key] = _locate(phrase.tokens, positions, clause.tokens, phrase.ordered)
                    if chosen is None:
                        continue
                    # Rules that match the very same words say the same thing: keep one (grading reads clauses,
                    # spans and polarity, never how many rules agreed).
                    same = (part, number, chosen if len(chosen) < 2 else tuple(sorted(chosen)), phrase.weight)
                    if same in seen:
                        continue
                    seen.add(same)
                    results[part].append(self._match(number, clause, phrase, chosen, eng.parts[part][1]))
        for (phrases, _naming), found in zip(eng.parts, results, strict=True):
            # in reading order: which match is "first" (quoted, and read for the opening tone) must not depend on
            # the order of a set of words, which changes from process to process
            found.sort(key=lambda m: (m.at, min(m.span), m.phrase.text))
            self.found[id(phrases)] = found

    def _reading(self, number: int) -> ClauseReading:
        reading = self.readings.get(number)
        if reading is None:
            lead = self.clauses[number - 1] if number > 0 else None
            reading = self.readings[number] = ClauseReading(self.clauses[number], lead, self.undecided)
        return reading

    def _match(self, number: int, clause: Clause, phrase: Phrase, chosen: tuple[int, ...], naming: bool) -> Match:
        i, j = min(chosen), max(chosen)
        start = clause.tokens[i].start
        reading = self._reading(number)
        negated = reading.negated(start, clause.tokens[j].end, phrase.negative)
        if naming and not negated:
            negated = reading.not_a_claim(start)
        alternative, hedged, tentative, conditional, soft = reading.flags()
        return Match(
            phrase,
            clause,
            not negated,
            hedged or (tentative if naming else soft),
            tuple(clause.tokens[k].word for k in sorted(chosen)),
            alternative,
            conditional,
            (number, i),
            frozenset(chosen),
        )


def _locate(
    tokens: tuple[str, ...], positions: dict[str, list[int]], words: tuple[Token, ...], ordered: bool = False
) -> tuple[int, ...] | None:
    """Indices of the words that hold every token of the rule within its window (in order if `ordered`), or None."""
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
        if len(set(chosen)) < len(chosen):
            continue  # one word cannot stand for two parts of a rule
        if ordered and any(words[a].position >= words[b].position for a, b in itertools.pairwise(chosen)):
            continue
        if words[hi].position - words[lo].position < window:
            return tuple(chosen)
    return None
