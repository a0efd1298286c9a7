"""Finding rubric phrases in a reply: stems, typos, any order within a window, polarity, hedges."""

from __future__ import annotations

import itertools
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz, process

from .rubric import CONCEPT_REF, Rubric, load_rubrics
from .text import Clause, Token, canonical, clauses, clean
from .vocabulary import vocabulary

FUZZY_MIN_LEN = 5  # typo tolerance only for longer words: acronyms (AR, DL, PP, ITL) must match exactly
FUZZY_CUTOFF = 80.0
FUZZY_CUTOFF_SHORT = 85.0  # 5–6 letter words: one slip at most
WINDOW_SLACK = 4  # a k-word phrase may spread over k + 4 words (stop words count), in any order
LOOK = 100  # characters of context the polarity patterns read before or after a match
MULTI_GAP = 3  # the words of a multi-word concept term sit at most 2 stop words apart

_NEGATION_BEFORE = re.compile(
    r"(?:\bnot\b|\bno\b|\bzero\b|n't\b|\bnever\b|\bnor\b|\bwithout\b|\brather than\b|\binstead of\b"
    r"|\brul(?:e|ed|ing) out\b"
    r"|\bunlikely\b|\bdoubt\b|\bneither\b|\bagainst\b|\bnot a\b|\bisn'?t\b|\bexclud\w*|\breject\w*|\bdismiss\w*"
    r"|\bfirst (?:i )?(?:thought|guess\w*)|\bmy first guess\b|\btempting\b|\bwrong\b|\bthe alternative\b"
    r"|\bconsidered\b|\bthought about\b|\bwondered\b|\bwas worried\b"
    r"|\b(?:someone|somebody|people|others)(?: \w+)? (?:said|says|suggested|claimed|thought|blamed)\b)"
    r"(?:[^\w.;,]+(?!or\b|and\b|nor\b)[\w'-]+){0,4}[^\w.;,]*$"  # ≤ 4 words between negation and match, no "or"
)
_EXONERATED_AFTER = re.compile(
    r"^[^.;]{0,25}?(?:\b(?:is|are|was|looks?|seems?|appears?)\s+(?:fine|ok|okay|good|normal|innocent|irrelevant|"
    r"healthy|a red herring|not (?:it|the (?:problem|issue|cause|culprit|bottleneck)))|\bruled out\b|"
    r"\b(?:isn'?t|aren'?t|wasn'?t|is not|are not|was not)\s+(?:it|the (?:problem|issue|cause|culprit|bottleneck))"
    r"|\bis a red herring\b|\b(?:can|could)\s*(?:not|n't)\s+(?:explain|account)|\bdoesn'?t (?:explain|fit)"
    r"|\bwouldn'?t (?:explain|fit)|\bis wrong\b|\bis a trap\b|\bis the trap\b"
    r"|\b(?:would be|was|is) (?:my|the|everyone'?s) first (?:guess|thought|read|instinct|reflex|hypothesis))"
)
# A diagnosis named inside a fix ("remove the torch.cuda.synchronize() before the all-reduce") is not a claim.
_FIX_CONTEXT_BEFORE = re.compile(
    r"\b(?:remove|removing|drop|dropping|avoid|avoiding|get rid of|eliminate|delete|take out|stop calling|no more"
    r"|fix|fixing|fixed|cut|cutting|shave|shaving|reduce|reducing|hide|hiding|amortize|amortise|lower|lowering)"
    r"\b[^.;]{0,30}$"
)
_NEGATION_INSIDE = re.compile(r"\b(?:not|no|never|without)\b|n't\b")
_NEGATED_PROBLEM_AFTER = re.compile(r"^\W*(?:problem|issue|bottleneck|the case|it)\b")
_NEGATIONS = frozenset({"not", "no"})
_RULE_NEGATIONS = frozenset({"not", "no", "without", "never", "noth"})  # a rule that says it itself
_HEDGE = re.compile(
    r"\b(?:not sure|unsure|no idea|maybe|might be|could be|possibly|perhaps|hard to (?:say|tell)|can'?t tell|"
    r"i guess|i'?m guessing|just guessing|50/50|50-50|coin ?flip|one of|some kind of)\b|\beither\b.{0,80}\bor\b"
    r"|\?\s*$|🤔|🤷"
)
# Further marks of a tentative diagnosis (they do not make a check or a fix tentative).
_TENTATIVE = re.compile(
    r"\b(?:i think|i suspect|suspect|i'?d guess|probably|prob|my guess|afaict|i believe|idk|(?:want|like) to confirm|"
    r"to be sure|before (?:saying|committing)|haven'?t (?:verified|checked|confirmed)|not verified|hold it loosely|"
    r"i'?m not certain|might|may be)\b"
)

# A check or fix offered without conviction ("cuda graphs might help", "could try more workers"): ½ for that part,
# but it does not make a diagnosis in the same clause tentative.
_SOFT_REMEDY = re.compile(
    r"\b(?:might|could|may|should) (?:help|work|fix it|be worth)|\b(?:could|might|maybe|perhaps) try\b"
    r"|\bworth (?:a )?try|\bworth trying\b|\bnot sure (?:it|that|this) (?:helps|works|will)|\bi'?d try\b.*\bsee\b"
    r"|\bsee if (?:it|that) helps\b"
)


# Offering two or more possibilities in one breath ("either X or Y", "could be X, could be Y", "can't tell").
_ALTERNATIVE = re.compile(
    r"\beither\b|\b(?:could|might|may) (?:also )?be\b[^.;]{0,80}\bor\b|\bweigh\w*\b[^.;]{0,80}\bagainst\b"
    r"|\bor\b[^.;]{0,80}\b(?:could|might|may) (?:also )?be\b"
    r"|\b(?:could|might|may) (?:also |just )?be\b.*\b(?:could|might|may) (?:also |just )?be\b"  # could be X, could be Y
    r"|\b(?:can'?t|cannot|hard to|too early to) (?:tell|say|decide|distinguish)\b"
    r"|\bone of (?:the|those|these) (?:two|three|few|several|options|candidates|possibilities)\b"
    r"|\b(?:not sure|unsure) (?:if|whether|which)\b|\bdepends (?:on )?which\b|\bor\b[^.;]{0,60}\?\s*$|\bwhich is it\b"
    r"|\bsometimes (?:it'?s|it is|that'?s)\b[^.;]{0,80}\bsometimes\b"  # "sometimes it's X, sometimes Y"
    r"|\bor\b[^.;]*\bor\b|\w(?:,\s*[\w./()-]+(?:\s+[\w./()-]+){0,2}){1,},?\s+or\s+\w"  # X or Y or Z; X, Y or Z
)
# Words _ALTERNATIVE cannot match without (a quick test first: most clauses hold none of them).
_ALTERNATIVE_HINT = re.compile(
    r"\b(?:either|could|might|may|or|weigh\w*|can'?t|cannot|hard|too early|one|not sure|unsure|depends|which"
    r"|sometimes)\b"
)
_CONDITION_WORDS = ("if", "when", "unless", "whether", "assuming", "in case")


# A condition: "if it's X, do A". With several diagnoses in play it offers X as one branch; with one, it is how
# the reply would confirm its only diagnosis ("if it jumps, the loader can't keep up").
_CONDITION = re.compile(
    r"^\W*(?:if|when|unless|whether|assuming|in case)\b|\b(?:if|when) (?:it'?s|it is|this is|that'?s|the)\b"
)
# A clause that introduces a list of checks ("Before touching anything I'd check:", "To confirm:").
_LEADS_INTO_CHECKS = re.compile(r"\b(?:check|measure|verify|confirm|look at|inspect|test|checks|measurements?)\W*$")
# A sarcasm tag: the clause it closes says the opposite of what it claims.
_SARCASM = re.compile(r"(?:^|\s)/s\b")
# The reply says outright that it does not commit.
_UNDECIDED = re.compile(
    r"\b(?:(?:not|won'?t|can'?t|don'?t want to) (?:commit|decide|choose|pick)|which is it|"
    r"one of those two|one of the two|could go either way|no way to tell|50/50|coin ?flip|"
    r"(?:and|then) decide (?:from there|later|after(?:wards)?))\b"
)
# A diagnosis named as the object of a measurement ("count the cudaStreamSynchronize calls") is not a claim.
_MEASURE_CONTEXT_BEFORE = re.compile(
    r"\b(?:count|counting|grep|look for|looking for|search for|check for|find|above each|measure|plot|correlate|compare"
    r"|how many|number of|(?:check|see|test|verify|confirm|tell)(?:ing)? (?:whether|if))\b[^.;]{0,20}$"
)


# Words one of the polarity patterns above needs (a superset): a clause without any skips those patterns.
_NEGATION_KEYWORD = re.compile(
    r"\b(?:not|no|zero|never|nor|without|rather|instead|rul\w*|unlikely|doubt|neither|against|isnt|exclud\w*|reject\w*"
    r"|dismiss\w*|first|tempting|wrong|alternative|considered|thought|wondered|worried|said|says|suggested"
    r"|claimed|blamed)\b|n't\b"
)
_EXONERATION_KEYWORD = re.compile(
    r"\b(?:fine|ok|okay|good|normal|innocent|irrelevant|healthy|herring|not|ruled|isnt|arent|wasnt|explain|account"
    r"|fit|wrong|trap)\b|n't\b"
)
_CONTEXT_KEYWORD = re.compile(
    r"\b(?:remov\w*|drop\w*|avoid\w*|get rid|eliminate|delete|take out|stop calling|no more|fix\w*|cut\w*"
    r"|shav\w*|reduc\w*|hid\w*|amorti[sz]e|lower\w*|count\w*|grep|look\w* for|search for|check for|find"
    r"|above each|measure|plot|correlate|compare|how many|number of|whether|if)\b"
)


@dataclass(frozen=True, slots=True)
class Phrase:
    text: str
    tokens: tuple[str, ...]  # stems, and "@name" for a concept class
    weight: float  # 1 = names the thing; 0.5 = a symptom description
    exclude: tuple[str, ...] = ()  # the rule does not fire in a clause holding any of these
    ordered: bool = False  # the tokens must appear in the order written
    needs: frozenset[str] = frozenset()  # every token, for a quick check before locating
    negative: bool = False  # the rule itself says "no …" / "not …"


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


def _stems(text: str) -> tuple[str, ...]:
    return tuple(t.stem for t in _words(text))


def _words(text: str) -> tuple[Token, ...]:
    """The tokens of a rubric or vocabulary snippet (one clause's worth), memoised while the engine is built."""
    cached = _SNIPPETS.get(text)
    if cached is None:
        cached = _SNIPPETS[text] = tuple(t for c in clauses(clean(text)) for t in c.tokens)
    return cached


_SNIPPETS: dict[str, tuple[Token, ...]] = {}  # only written while building the engine, under its lock


def compile_phrases(phrases: list[str], weight: float) -> tuple[Phrase, ...]:
    """A rule is words and {concept} references, all to be found close together in one clause, in any order."""
    out = []
    for p in phrases:
        body, *excluded = p.split("!")  # "{slow} {rank} !{all}": not in a clause that says all/every
        ordered = body.startswith("^")  # "^{host} {waiting} {gpu}": in this order
        tokens = _rule_tokens(body.lstrip("^"))
        exclude = tuple(t for x in excluded for t in _rule_tokens(x))
        if tokens:
            negative = bool(_RULE_NEGATIONS & set(tokens))
            out.append(Phrase(p, tokens, weight, exclude, ordered, frozenset(tokens), negative))
    return tuple(out)


def _rule_tokens(text: str) -> tuple[str, ...]:
    tokens: list[str] = []
    for k, piece in enumerate(CONCEPT_REF.split(text)):  # literal, name, literal, name, …
        if k % 2:
            tokens.append("@" + piece)
        elif piece.strip():
            tokens.extend(_stems(piece))
    return tuple(tokens)


@dataclass(frozen=True, slots=True)
class ConceptIndex:
    """Which concept classes a reply's words express: single-word terms by stem, longer terms by first stem."""

    single: dict[str, tuple[str, ...]]
    multi: dict[str, tuple[tuple[tuple[str, ...], str], ...]]
    words: dict[str, str]  # every term word as written (5+ letters) → its stem, for typo matching

    @classmethod
    def build(cls) -> ConceptIndex:
        vocab = vocabulary()
        single: dict[str, list[str]] = {}
        multi: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        words: dict[str, str] = {}
        for name in vocab.concepts:
            key = "@" + name
            for term in vocab.terms(name):
                stems = _stems(term)
                if not stems:
                    continue
                if len(stems) == 1:
                    if key not in single.setdefault(stems[0], []):
                        single[stems[0]].append(key)
                else:
                    multi.setdefault(stems[0], []).append((stems[1:], key))
                for t in _words(term):
                    if len(t.word) >= FUZZY_MIN_LEN:
                        words.setdefault(t.word, t.stem)
        return cls({k: tuple(v) for k, v in single.items()}, {k: tuple(v) for k, v in multi.items()}, words)

    def mark(self, tokens: tuple[Token, ...], positions: dict[str, list[int]]) -> None:
        """Add each concept a clause expresses to its word → positions index, at the term's first word."""
        for i, t in enumerate(tokens):
            if t.stem[:1].isdigit():  # {quantity}: "3", "80ms", "2.6gb"; {number}: a bare "3"
                positions.setdefault("@quantity", []).append(i)
                if t.stem.isdigit():
                    positions.setdefault("@number", []).append(i)
            for key in self.single.get(t.stem, ()):
                positions.setdefault(key, []).append(i)
            for rest, key in self.multi.get(t.stem, ()):
                if _follows(tokens, i, rest):
                    positions.setdefault(key, []).append(i)


def _follows(tokens: tuple[Token, ...], i: int, rest: tuple[str, ...]) -> bool:
    """The stems of `rest` come right after token i, in order (a stop word or two may sit between)."""
    at = tokens[i].position
    j = i + 1
    for stem in rest:
        if j >= len(tokens) or tokens[j].stem != stem or tokens[j].position - at > MULTI_GAP:
            return False
        at = tokens[j].position
        j += 1
    return True


@dataclass(frozen=True, slots=True)
class CompiledRubric:
    rubric: Rubric
    signature: PhraseSet
    measurement: PhraseSet
    fix: PhraseSet
    wrong_fix: PhraseSet


@dataclass(frozen=True, slots=True)
class Engine:
    """Everything compiled from the rubric files: built once, then only read (safe to share across threads)."""

    rubrics: dict[str, CompiledRubric]
    concepts: ConceptIndex
    stems: frozenset[str]  # every stem a rubric or concept can match
    words: dict[str, tuple[str, ...]]  # rubric and concept words as written (5+ letters) by first letter, for typos
    word_stem: dict[str, str]
    parts: tuple[tuple[PhraseSet, bool], ...] = ()  # every rubric part, and whether it names a signature
    by_first: dict[str, tuple[tuple[int, Phrase], ...]] = field(default_factory=dict)  # first token → (part, rule)


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


def clear_caches() -> None:
    """Back to a cold start (for tests and benchmarks): the next grade recompiles everything."""
    from . import rubric, text, vocabulary

    with _LOCK:
        _ENGINE.clear()
        _SNIPPETS.clear()
        _correct.cache_clear()
        text.canonical.cache_clear()
        text.reset()
        rubric.reset()
        vocabulary.reset()


def compiled() -> dict[str, CompiledRubric]:
    return engine().rubrics


def _build() -> Engine:
    rubrics = {}
    for sig, r in load_rubrics().items():
        rubrics[sig] = CompiledRubric(
            r,
            PhraseSet(compile_phrases(r.signature.rules, 1.0) + compile_phrases(r.signature.weak, 0.5)),
            PhraseSet(compile_phrases(r.measurement.rules, 1.0)),
            PhraseSet(compile_phrases(r.fix.rules, 1.0)),
            PhraseSet(compile_phrases(r.fix.wrong, 1.0)),
        )
    concepts = ConceptIndex.build()
    stems: set[str] = set(concepts.single) | set(concepts.multi)
    for rest in concepts.multi.values():
        for tail, _key in rest:
            stems.update(tail)
    words: dict[str, str] = dict(concepts.words)
    for c in rubrics.values():
        for group in (c.signature, c.measurement, c.fix, c.wrong_fix):
            for p in group:
                stems.update(t for t in p.tokens if not t.startswith("@"))
                for piece in CONCEPT_REF.split(p.text.lstrip("^"))[::2]:
                    for t in _words(piece.split("!")[0]):
                        if len(t.word) >= FUZZY_MIN_LEN:
                            words.setdefault(t.word, t.stem)
    parts: list[tuple[PhraseSet, bool]] = []
    for c in rubrics.values():
        parts += [(c.signature, True), (c.measurement, False), (c.fix, False), (c.wrong_fix, False)]
    # Each rule is indexed under its most specific word (a literal before a concept class, a small class before a
    # big one): a clause is then checked against far fewer rules that cannot match it.
    vocab = vocabulary()

    def breadth(token: str) -> int:
        if not token.startswith("@"):
            return 0
        name = token[1:]
        return len(vocab.terms(name)) if name in vocab.concepts else 1000  # {number}, {quantity}: everywhere

    by_first: dict[str, list[tuple[int, Phrase]]] = {}
    for number, (phrases, _naming) in enumerate(parts):
        for p in phrases:
            by_first.setdefault(min(p.tokens, key=breadth), []).append((number, p))
    return Engine(
        rubrics,
        concepts,
        frozenset(stems),
        _by_initial(words),
        words,
        tuple(parts),
        {k: tuple(v) for k, v in by_first.items()},
    )


@lru_cache(maxsize=65536)
def _correct(stem: str, word: str) -> str:
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


def _by_initial(words: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """Typo candidates grouped by first letter: a typo keeps it, and the search is 20× smaller."""
    groups: dict[str, list[str]] = {}
    for w in words:
        groups.setdefault(w[0], []).append(w)
    return {k: tuple(v) for k, v in groups.items()}


@dataclass(slots=True)
class Reply:
    text: str  # cleaned, lower case
    clauses: list[Clause]
    index: list[dict[str, list[int]]]  # per clause: word → positions
    hedged: bool
    undecided: bool = False  # says it will not commit: every mention is one possibility among several
    found: dict[tuple[int, bool], list[Match]] = field(default_factory=dict)  # find() results, per rubric part
    memo: dict[tuple[object, ...], object] = field(default_factory=dict)  # per-clause regex results

    @classmethod
    def parse(cls, raw: str) -> Reply:
        cleaned = clean(raw)
        concepts = engine().concepts
        index: list[dict[str, list[int]]] = []
        fixed: list[Clause] = []
        for c in clauses(cleaned):
            tokens = tuple(
                t
                if (fixed_stem := _correct(t.stem, t.word)) == t.stem
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
        return cls(low, fixed, index, bool(_HEDGE.search(low)), bool(_UNDECIDED.search(low)))

    def find(self, phrases: PhraseSet, *, naming: bool = False) -> list[Match]:
        """Every phrase found, with its polarity. With `naming`, mentions inside a fix or a check do not count.

        The first call matches every rubric part of the engine in one pass over the reply; later calls read it."""
        if not self.found:
            self._find_all()
        found = self.found.get((id(phrases), naming))
        if found is None:
            found = self.found[(id(phrases), naming)] = self._find(phrases, naming)
        return found

    def _find_all(self) -> None:
        eng = engine()
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
        for (phrases, naming), found in zip(eng.parts, results, strict=True):
            # in reading order: which match is "first" (quoted, and read for the opening tone) must not depend on
            # the order of a set of words, which changes from process to process
            found.sort(key=lambda m: (m.at, min(m.span), m.phrase.text))
            self.found[(id(phrases), naming)] = found

    def _find(self, phrases: PhraseSet, naming: bool) -> list[Match]:
        found = []
        by_first = phrases.by_first
        for number, (clause, positions) in enumerate(zip(self.clauses, self.index, strict=True)):
            for word in positions:
                for phrase in by_first.get(word, ()):
                    if phrase.exclude and any(x in positions for x in phrase.exclude):
                        continue
                    chosen = _locate(phrase.tokens, positions, clause.tokens, phrase.ordered)
                    if chosen is not None:
                        found.append(self._match(number, clause, phrase, chosen, naming))
        return found

    def _match(self, number: int, clause: Clause, phrase: Phrase, chosen: tuple[int, ...], naming: bool) -> Match:
        i, j = min(chosen), max(chosen)
        start, end = clause.tokens[i].start, clause.tokens[j].end
        memo = self.memo
        may_negate, may_exonerate, may_be_context, sarcastic = self._keywords(number, clause)
        before = after = False
        if may_negate:
            before = memo.get(("before", number, start))  # type: ignore[assignment]
            if before is None:
                # the patterns look at most a few words back or ahead: a bounded slice keeps long clauses cheap
                before = memo[("before", number, start)] = bool(
                    _NEGATION_BEFORE.search(clause.text[max(0, start - LOOK) : start])
                )
        if may_exonerate:
            after = memo.get(("after", number, end))  # type: ignore[assignment]
            if after is None:
                after = memo[("after", number, end)] = bool(_EXONERATED_AFTER.search(clause.text[end : end + LOOK]))
        negated = before or after
        if not phrase.negative:
            if may_negate:
                inside = memo.get(("inside", number, start, end))
                if inside is None:
                    inside = memo[("inside", number, start, end)] = bool(
                        _NEGATION_INSIDE.search(clause.text[start:end])
                    )
                negated = negated or bool(inside)  # "the all-reduce is not overlapped" ≠ "overlap the all-reduce"
        elif _NEGATED_PROBLEM_AFTER.search(clause.text[end : end + LOOK]):
            negated = True  # "not an overlap problem" rejects overlap, it does not claim its absence
        lead = self.clauses[number - 1] if number > 0 else None
        if naming and not negated and lead is not None and lead.colon and _LEADS_INTO_CHECKS.search(lead.text):
            negated = True  # "I'd check: memory_stats, .item() syncs, …" lists checks, it claims nothing
        if naming and not negated and may_be_context:
            context = memo.get(("ctx", number, start))
            if context is None:
                text = clause.text[max(0, start - LOOK) : start]
                context = memo[("ctx", number, start)] = bool(
                    _FIX_CONTEXT_BEFORE.search(text) or _MEASURE_CONTEXT_BEFORE.search(text)
                )
            negated = bool(context)
        if naming and not negated and sarcastic:
            negated = True  # "sure, it's totally the network /s" claims the opposite
        alternative, hedged, tentative, conditional, soft = self._flags(number, clause)
        words = tuple(clause.tokens[k].word for k in sorted(chosen))
        return Match(
            phrase,
            clause,
            not negated,
            hedged or (tentative if naming else soft),
            words,
            alternative,
            conditional,
            (number, i),
            frozenset(chosen),
        )

    def _keywords(self, number: int, clause: Clause) -> tuple[bool, bool, bool, bool]:
        """Whether a clause holds any word the polarity patterns start from (most clauses hold none, and then the
        per-match searches are skipped): (negation, exoneration, fix/check context, sarcasm tag)."""
        found = self.memo.get(("keywords", number))
        if found is None:
            text = clause.text
            found = self.memo[("keywords", number)] = (
                bool(_NEGATION_KEYWORD.search(text)),
                bool(_EXONERATION_KEYWORD.search(text)),
                bool(_CONTEXT_KEYWORD.search(text)),
                bool(_SARCASM.search(text)),
            )
        assert isinstance(found, tuple)
        return found

    def _flags(self, number: int, clause: Clause) -> tuple[bool, bool, bool, bool, bool]:
        """(offers alternatives, hedged, tentative, conditional, soft remedy) for one clause, computed once."""
        flags = self.memo.get(("flags", number))
        if flags is None:
            text = clause.text
            alternative = self.undecided or bool(_ALTERNATIVE_HINT.search(text) and _ALTERNATIVE.search(text))
            hedged = alternative or bool(_HEDGE.search(text))
            conditional = any(w in text for w in _CONDITION_WORDS) and bool(_CONDITION.search(text))
            flags = self.memo[("flags", number)] = (
                alternative,
                hedged,
                bool(_TENTATIVE.search(text)),
                conditional,
                bool(_SOFT_REMEDY.search(text)),
            )
        assert isinstance(flags, tuple)
        return flags


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


def stem_of(word: str) -> str:
    return canonical(word)
