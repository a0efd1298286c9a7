"""Finding rubric phrases in a reply: stems, typos, any order within a window, polarity, hedges."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import NamedTuple, cast

from .phrases import Phrase
from .polarity import (
    ANECDOTE,
    DISMISSAL,
    DISMISSAL_WORDS,
    HEDGE,
    HELD_WORDS,
    LEADS_INTO_RULED_OUT,
    OTHER_BRANCH,
    OTHER_BRANCH_REACH,
    QUESTION_BACK,
    RULED_OUT_UNDONE,
    SAME_HERE,
    UNDECIDED,
    VERDICT_HELD,
    ClauseReading,
    bare_hedge,
    opens_condition,
    sarcasm_tag,
    sets_condition,
)
from .rulebook import Engine, RulePart, correct, engine
from .text import Clause, Token, clauses, clean

__all__ = ["Match", "Reply", "engine"]  # engine: `tracedrill serve` compiles the rule book through this name

PARTS_PER_RUBRIC, CHECK_PART = 4, 1  # the rule book numbers each rubric's parts: signature, check, fix, wrong fix
WINDOW_SLACK = 4  # a k-word phrase may spread over k + 4 words (stop words count), in any order
_NEGATIONS = frozenset({"not", "no"})
# A mocking opener carries the sarcasm of the next sentence's /s tag ("let me guess, it's CUDA graphs. it's always
# CUDA graphs /s"): the tag may close the sentence after the one it opens.
_MOCKING_OPENER = re.compile(r"\W*(?:let me guess|oh sure|oh yes|oh yeah|yeah right|sure sure|of course)\b")
_TURN = re.compile(r"\W*(?:but|however|though|although|whereas|yet|instead|actually|rather)\b")
SHORT_CLAUSE = 2  # "looks as": a scrap the clause splitter leaves between a hedge and what it hedges


class Match(NamedTuple):  # a tuple, not a frozen dataclass: a reply makes a dozen, and a tuple is made fastest
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


# A conclusion drawn with a hedge after an arrow: "→ probably launch overhead?", "=> maybe the allocator"
_HEDGED_CONCLUSION = re.compile(r"\W*(?:so\W+)?(?:probably|prob|maybe|perhaps|possibly|likely|might be|could be)\b")


@dataclass(slots=True)
class Reply:
    text: str  # cleaned, lower case
    clauses: list[Clause]
    index: list[dict[str, list[int]]]  # per clause: word → positions
    hedged: bool
    undecided: bool = False  # says it will not commit: every mention is one possibility among several
    told: bool = False  # tells a story from another job without tying it to this trace ("we had this in 2022")
    stated: bool = True  # some clause is not a question
    held: int = 0  # this many first clauses are held back, the holding one too: "… I'd want ncu before calling it"
    found: list[list[Match]] = field(default_factory=list)  # every rubric part's matches, by part number
    readings: dict[int, ClauseReading] = field(default_factory=dict)  # per clause, made at its first match
    ruled_out: dict[int, bool] = field(default_factory=dict)  # per clause, in a list headed "ruled out:"

    @classmethod
    def parse(cls, raw: str) -> Reply:
        cleaned = clean(raw)
        concepts = engine().concepts
        read = [_corrected(c) for c in clauses(cleaned)]
        low = cleaned.lower()
        told = bool(ANECDOTE.search(low)) and not SAME_HERE.search(low)
        held = (
            next((k + 1 for k, c in enumerate(read) if VERDICT_HELD.search(c.text)), 0)
            if any(w in low for w in HELD_WORDS) and VERDICT_HELD.search(low)
            else 0
        )
        return cls(
            low,
            read,
            [concepts.index(c.tokens) for c in read],
            bool(HEDGE.search(low)),
            bool(UNDECIDED.search(low)),
            told,
            any(not c.text.endswith("?") for c in read),
            held,
        )

    def find(self, part: RulePart) -> list[Match]:
        """Every rule of this rubric part found in the reply, with its polarity, in reading order. A signature's
        rules name a diagnosis: mentions inside a fix or a check do not count.

        The first call matches every rubric part of the rule book in one pass over the reply; later calls read it."""
        if not self.found:
            self.found = self._find_all(engine())
        return self.found[part.number]

    def _find_all(self, eng: Engine) -> list[list[Match]]:
        results: list[list[Match]] = [[] for _ in eng.parts]
        by_first = eng.by_first
        for number, (clause, positions) in enumerate(zip(self.clauses, self.index, strict=True)):
            present = set(positions)  # a set: frozenset <= set is a fast C comparison, dict keys are not
            at_of = tuple([t.position for t in clause.tokens])  # a list first: a generator is slower
            located: dict[tuple[tuple[str, ...], bool], tuple[int, ...] | None] = {}
            seen: set[tuple[int, tuple[int, ...], float]] = set()
            for word in positions:  # in the clause's own order (a set's order would change between processes)
                candidates = by_first.get(word)
                if candidates is None:
                    continue
                for part, naming, phrase, needs in candidates:
                    if not needs <= present or (
                        phrase.exclude
                        and self._excluded(phrase, present, number, results[part - part % PARTS_PER_RUBRIC])
                    ):
                        continue
                    key = (phrase.tokens, phrase.ordered)
                    if key in located:
                        chosen = located[key]
                    else:
                        chosen = located[key] = _locate(phrase.tokens, positions, at_of, phrase.ordered)
                    if chosen is None:
                        continue
                    # Rules that match the very same words say the same thing: keep one (grading reads clauses,
                    # spans and polarity, never how many rules agreed).
                    words = tuple(sorted(chosen))
                    same = (part, words, phrase.weight)
                    if same not in seen:
                        seen.add(same)
                        check = part % PARTS_PER_RUBRIC == CHECK_PART
                        results[part].append(self._match(number, clause, phrase, chosen, words, naming, check))
        for number, found in enumerate(results):
            if len(found) > 1:
                # in reading order: which match is "first" (quoted, and read for the opening tone) must not depend
                # on the order of a set of words, which changes from process to process
                found.sort(key=lambda m: (m.at, m.phrase.text))  # m.at: clause, first word
                if eng.parts[number].naming:
                    results[number] = _denied_within(found)
        return results

    def _excluded(self, phrase: Phrase, present: set[str], number: int, named: list[Match]) -> bool:
        """The rule's `!` words are in its clause, or, for a bare "remove it", in the clause it points back to (`named`:
        the matches so far of the rubric's own signature)."""
        if not present.isdisjoint(phrase.exclude):
            return True
        if _ANAPHORIC not in phrase.needs or len(self.clauses[number].tokens) > _BARE_WORDS:
            return False
        return self._referent_excluded(number, phrase.exclude, named)

    def _referent_excluded(self, number: int, exclude: tuple[str, ...], named: list[Match]) -> bool:
        """A fix said with a bare pronoun ("Remove it.", "drop that") takes its object from the clause before it,
        past a scrap of a word or two ("the .item() sync → gap. drop it"): what the rule excludes there, it excludes
        here ("it's the .item() sync — remove it" is no allocator fix). Not when the two clauses before it name the
        rubric's own problem ("the empty_cache() in the loop forces a sync every step — that's a sync stall. take it
        out")."""
        if any(m.at[0] in (number - 1, number - 2) and m.phrase.weight >= 1.0 for m in named):  # not a weak symptom
            return False
        for k in (number - 1, number - 2):
            if k < 0:
                return False
            if not self.index[k].keys().isdisjoint(exclude):
                return True
            if len(self.clauses[k].tokens) >= _REFERENT_WORDS:  # the object is something else; not a scrap ("gap")
                return False
        return False

    def _reading(self, number: int) -> ClauseReading:
        reading = self.readings.get(number)
        if reading is None:
            lead = self.clauses[number - 1] if number > 0 else None
            follow = self.clauses[number + 1] if number + 1 < len(self.clauses) else None
            clause = self.clauses[number]
            reading = self.readings[number] = ClauseReading(
                clause,
                lead,
                self.undecided,
                follow,
                self.told,
                self._list_lead(number),
                number < self.held,
                lead is not None and lead.text.endswith("?") and bool(QUESTION_BACK.search(lead.text)),
                self._consequent(number),
                self._hedged_by_lead(number),
                self.stated,
                "/s" in self.text and self._sarcastic(number),
            )
        return reading

    def _sarcastic(self, number: int) -> bool:
        """A later clause of the same sentence carries the sarcasm tag ("oh sure, it's a straggler, | that's why all
        8 ranks look the same /s")."""
        sentences = 2 if _MOCKING_OPENER.match(self.clauses[number].text) else 1
        for clause in self.clauses[number:]:
            if sarcasm_tag(clause):
                return True
            if self._turn_after(clause):
                return False  # "I suspect a print(loss), but hey, maybe the GPU needs a break /s": the turn ends it
            if clause.stop:
                sentences -= 1
                if not sentences:
                    return False
        return False

    def _dismissed_after(self, number: int, end: int) -> bool:
        """A bare dismissal ("…, negligible", "harmless", "not the problem") follows the words ending at `end`, within
        this sentence or opening the next one, with no other thing named between: what the sentence names is waved
        away, not diagnosed ("a .item() in the hook, but it fires once per epoch. Harmless."); "the straggler, …, the
        NCCL warning at startup, harmless" waves away the warning only."""
        if not any(w in self.text for w in DISMISSAL_WORDS):
            return False
        text = self.clauses[number].text
        found = DISMISSAL.search(text, end)  # "it happens once per epoch, so negligible"
        if _names_another(text[end : found.start() if found else len(text)].split(",")[1:]):
            return False
        if found:
            return True
        ended = self.clauses[number].stop
        for clause in self.clauses[number + 1 : number + 1 + _DISMISSAL_REACH]:
            found = DISMISSAL.search(clause.text)
            if _names_another(clause.text[: found.start() if found else len(clause.text)].split(",")):
                return False
            if found:
                return True
            if ended:  # the next sentence's first clause was the last to read
                return False
            ended = clause.stop
        return False

    def _turn_after(self, clause: Clause) -> bool:
        """The clause is followed by a turn ("…, but …", "… though …")."""
        at = self.text.find(clause.quote.lower())
        tail = self.text[at + len(clause.quote) : at + len(clause.quote) + 12] if at >= 0 else ""
        return bool(_TURN.match(tail))

    def _hedged_by_lead(self, number: int) -> bool:
        """A bare hedge leads this clause in its sentence ("I suspect — | though I'm not sure — | that the GEMMs are
        bandwidth-bound"; "I might be wrong, | but it rather looks | as though …"), past at most one short clause; or
        an arrow carries this clause on to a conclusion drawn with a hedge ("picket fence on the GPU row → | probably
        launch overhead?"): what it describes is only as sure as that conclusion."""
        if (
            number + 1 < len(self.clauses)
            and self._arrow_after(self.clauses[number])
            and _HEDGED_CONCLUSION.match(self.clauses[number + 1].text)
        ):
            return True
        for k in (number - 1, number - 2):
            if k < 0:
                return False
            lead = self.clauses[k]
            if bare_hedge(lead):
                return True
            if lead.stop or len(lead.tokens) > SHORT_CLAUSE:
                return False
        return False

    def _consequent(self, number: int) -> bool:
        """The clause follows, in the same sentence, a condition that opened it ("if the bar is cudaMalloc, it's
        the allocator → expandable_segments"), or opens the other branch of a condition just before it ("if DRAM
        is near peak it's memory-bound; otherwise it's healthy")."""
        if OTHER_BRANCH.match(self.clauses[number].text) and any(
            sets_condition(lead) for lead in self.clauses[max(0, number - OTHER_BRANCH_REACH) : number]
        ):
            return True
        for k in range(number - 1, -1, -1):
            lead = self.clauses[k]
            if lead.stop and not self._arrow_after(lead):
                return False
            if opens_condition(lead):
                return True
        return False

    def _arrow_after(self, clause: Clause) -> bool:
        """An arrow ends this clause ("it's the overlap → restore bucketing"): the chain goes on with its sentence."""
        if "→" not in self.text and "->" not in self.text:
            return False
        at = self.text.find(clause.quote.lower())
        tail = self.text[at + len(clause.quote) : at + len(clause.quote) + 4] if at >= 0 else ""
        return "→" in tail or "->" in tail

    def _under_ruled_out(self, number: int) -> bool:
        """The clause is an item of a list headed by what the reply ruled out ("Things I excluded: the loader (next()
        is 2 ms), a sync (…)"; "What I ruled out:" over bullet lines): the list runs on from the heading's colon to the
        end of its sentence, or over the lines that each open with a bullet right after it."""
        found = self.ruled_out.get(number)
        if found is None:
            found = self.ruled_out[number] = self._ruled_out_lead(number)
        return found

    def _ruled_out_lead(self, number: int) -> bool:
        if "ruled" not in self.text and not any(w in self.text for w in _RULED_OUT_WORDS):
            return False  # the common case, one look at the reply
        for k in range(number - 1, -1, -1):
            lead = self.clauses[k]
            if lead.colon and _BULLET_ITEM.match(lead.text):
                continue  # an item's own label ("- host sync: no cudaStreamSynchronize")
            if lead.colon:
                heading = LEADS_INTO_RULED_OUT.search(lead.text)
                return heading is not None and not RULED_OUT_UNDONE.search(lead.text, 0, heading.start())
            if lead.stop and not _BULLET_ITEM.match(self.clauses[k + 1].text):
                return False  # a sentence that is not an item of a bulleted list ends the list
        return False

    def _list_lead(self, number: int) -> Clause | None:
        """The clause whose colon opened the list this clause is in, within the same sentence ("Two options: it's
        cudaMalloc, so allocator, or a sync")."""
        for k in range(number - 1, -1, -1):
            lead = self.clauses[k]
            if lead.colon:
                return lead
            if lead.stop:
                return None
        return None

    def _match(
        self,
        number: int,
        clause: Clause,
        phrase: Phrase,
        chosen: tuple[int, ...],
        words: tuple[int, ...],
        naming: bool,
        check: bool = False,
    ) -> Match:
        """A rule found on these words (`chosen` in the rule's order, `words` in the clause's), with its polarity."""
        tokens = clause.tokens
        first = words[0]
        start = tokens[first].start
        reading = self._reading(number)
        # a class term that says "not" itself ("not keeping up", "no gaps") is not a negation of the rule
        says_not = phrase.negative or (
            ("not" in self.index[number] or "no" in self.index[number])
            and any(tokens[k].stem in _NEGATIONS for k in chosen)
        )
        negated = reading.negated(start, tokens[words[-1]].end, says_not, check)
        if naming and not negated:
            negated = reading.not_a_claim(start)
        elif not negated and "/s" in self.text:
            negated = reading.mocked()  # "let's add CUDA graphs to a trace with no gaps /s" rejects the fix
        if not negated and not naming and not check and reading.in_place(start, tokens[words[-1]].end):
            negated = True  # "CUDA graphs keep the launch queue ahead", "workers are already at 8": not proposed
        if not negated and not naming and not check and reading.futile(tokens[words[-1]].end):
            negated = True  # "tuning NCCL won't touch it", "more workers wouldn't change a thing": dismissed
        if not negated and naming and self._dismissed_after(number, tokens[words[-1]].end):
            negated = True  # "the .item() is there, it runs every 100 steps; negligible": named to be waved away
        if not negated and not check and self._under_ruled_out(number):
            negated = True  # "Ruled out: the loader (next() is 2 ms), a sync (…)": listed to be rejected
        if not negated and check and reading.quizzes():
            negated = True  # "how many kernels do you think this step launches?" puts a puzzle, proposes no check
        if not negated and not check and reading.asks():
            # "what's num_workers set to?" names and fixes nothing; "is this just a healthy run?" offers a name
            negated = not (naming and phrase.weight >= 1.0 and reading.puts_forward())
        alternative, hedged, tentative, conditional, soft = reading.flags()
        return Match(
            phrase,
            clause,
            not negated,
            (hedged or tentative) if naming else (soft and reading.remedy_soft(start, tokens[words[-1]].end, check)),
            tuple([tokens[k].word for k in words]),
            alternative,
            conditional and (naming or reading.conditional_at(tokens[words[-1]].end)),
            (number, first),
            frozenset(chosen),
        )


_RULED_OUT_WORDS = ("exclud", "dismiss", "eliminat", "discard", "cleared", "crossed off", "reject", "not")
_BULLET_ITEM = re.compile(r"^\W*(?:[-*•·]\s|\d{1,2}\W*$)")  # "- the loader", or a bare item number left as a clause
_ANAPHORIC = "removeit"  # the folded "remove it" / "drop that": a fix whose object is named before it
_BARE_WORDS = 2  # "remove it", "so drop that": a clause with no object of its own
_REFERENT_WORDS = 3  # a clause of fewer words ("gap", "idle gpu") names no referent of its own
_DISMISSAL_REACH = 3  # clauses a dismissal may come after the thing it waves away ("…, but it fires once. Harmless.")
_ANOTHER_THING = re.compile(r"\s*(?:the|a|an|another|some|those|these|our|my|your|their)\s+\w")


def _names_another(pieces: list[str]) -> bool:
    """One of these comma pieces opens a noun phrase of its own ("the NCCL warning at startup"), not a remark on the
    same thing ("it fires once per epoch", "one per epoch")."""
    return any(_ANOTHER_THING.match(piece) for piece in pieces)


def _denied_within(found: list[Match]) -> list[Match]:
    """A name inside a longer one that is denied is denied with it: "I didn't think it was a single slow GPU" denies
    "slow GPU" as it denies "single slow GPU", though the denial is further back than a short name's reach. Only a
    denial before the longer name (it starts earlier), and not of a rule that says "not" itself."""
    denied = [m for m in found if not m.positive and not m.phrase.negative]
    if not denied:
        return found
    return [
        m._replace(positive=False)
        if m.positive
        and not m.phrase.negative
        and any(d.at[0] == m.at[0] and d.at[1] <= m.at[1] and m.span < d.span for d in denied)
        else m
        for m in found
    ]


def _corrected(clause: Clause) -> Clause:
    """The clause with misspelt words read as the rubric words they are closest to."""
    tokens = clause.tokens
    fixed: list[Token] | None = None
    for k, t in enumerate(tokens):
        stem = correct(t.stem, t.word)
        if stem != t.stem:
            if fixed is None:
                fixed = list(tokens)
            fixed[k] = t._replace(stem=stem)
    return clause if fixed is None else Clause(clause.text, clause.quote, tuple(fixed), clause.colon, clause.stop)


def _locate(
    tokens: tuple[str, ...], positions: dict[str, list[int]], at_of: tuple[int, ...], ordered: bool = False
) -> tuple[int, ...] | None:
    """Indices of the words that hold every token of the rule within its window (in order if `ordered`), or None.
    `at_of` is each word's position in the clause (stop words and commas count)."""
    if len(tokens) == 2:  # most rules: the same search without the lists a longer rule needs
        return _locate_pair(tokens, positions, at_of, ordered)
    lists = [positions.get(t) for t in tokens]
    if None in lists:
        return None
    first, *rest = cast(list[list[int]], lists)
    if not rest:
        return (first[0],)
    window = len(tokens) + WINDOW_SLACK
    negation_first = tokens[0] in _NEGATIONS
    for anchor in first:
        chosen = _following(anchor, rest, at_of) if ordered else _nearest(anchor, rest, at_of)
        if chosen is None:
            continue
        spread = [at_of[k] for k in chosen]
        low, high = min(spread), max(spread)
        if negation_first and low != spread[0]:
            continue  # "no overlap" needs the negation first; "overlap … no" is another sentence
        if len(set(chosen)) < len(chosen):
            continue  # one word cannot stand for two parts of a rule
        if ordered and any(a >= b for a, b in itertools.pairwise(spread)):
            continue
        if high - low < window:
            return tuple(chosen)
    return None


def _locate_pair(
    tokens: tuple[str, ...], positions: dict[str, list[int]], at_of: tuple[int, ...], ordered: bool
) -> tuple[int, ...] | None:
    """_locate for a rule of two tokens: each anchor, the other token's nearest word, the same tests in two numbers."""
    first = positions.get(tokens[0])
    other = positions.get(tokens[1])
    if first is None or other is None:
        return None
    window = 2 + WINDOW_SLACK
    negation_first = tokens[0] in _NEGATIONS
    for anchor in first:
        at = at_of[anchor]
        if ordered:  # the nearest word after the anchor: one before it cannot stand for the rule's second token
            later = [k for k in other if at_of[k] > at]
            if not later:
                continue
            best = later[0]
        else:
            best = other[0] if len(other) == 1 else _closest(at, other, at_of)
        there = at_of[best]
        if best == anchor or (negation_first and there < at) or (ordered and at >= there):
            continue  # one word for both; "overlap … no"; out of order (as in _locate)
        if abs(there - at) < window:
            return (anchor, best)
    return None


def _nearest(anchor: int, others: list[list[int]], at_of: tuple[int, ...]) -> list[int]:
    """The anchor, and for each other token of the rule the word nearest to it (the first, on a tie)."""
    at = at_of[anchor]
    return [anchor, *(other[0] if len(other) == 1 else _closest(at, other, at_of) for other in others)]


def _following(anchor: int, others: list[list[int]], at_of: tuple[int, ...]) -> list[int] | None:
    """For an ordered rule: the anchor, then for each other token the first of its words after the one chosen before
    ("the gradients go out after backward, rather than while the layers compute": the "compute" after "rather", not
    the "backward" before it). None when a token has no word after the previous one."""
    chosen = [anchor]
    at = at_of[anchor]
    for other in others:
        best = next((k for k in other if at_of[k] > at), None)
        if best is None:
            return None
        chosen.append(best)
        at = at_of[best]
    return chosen


def _closest(at: int, candidates: list[int], at_of: tuple[int, ...]) -> int:
    """The candidate word nearest to position `at` (the first, on a tie)."""
    best = candidates[0]
    distance = abs(at_of[best] - at)
    for k in candidates:
        d = abs(at_of[k] - at)
        if d < distance:
            best, distance = k, d
    return best
