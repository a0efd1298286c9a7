"""Keyword stuffing, recognised by structure: a catalogue of diagnoses, checks and fixes with no committed favourite.

A long answer that weighs several hypotheses and lands on one is not a catalogue; a list of every signature's
checks and fixes is, whatever its prose.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from .boundary import compile_hoisted
from .evidence import Claims, denies, named_only_in_remedies, negated
from .literals import Gated
from .matcher import Match, Reply
from .polarity import QUESTION_BACK
from .rulebook import CompiledRubric, RulePart

WORDS_PER_TOPIC = 30  # a catalogue is dense; a long answer that weighs the same topics in depth is not one
STUFFED_TOPICS = 4  # checks or fixes of this many other signatures, with no diagnosis committed to, is a catalogue
CATALOGUE_TOPICS = 4  # signatures touched (named, checked or fixed) by an uncommitted reply that names two or more
CATALOGUE_WORDS_PER_TOPIC = 25  # fewer words than this per topic touched is listing them, not weighing them
HEADED_CATALOGUE_WORDS_PER_TOPIC = 10  # committed replies that weigh others use 11+ words per topic (dev, all writers)
CHECKLIST_TOPICS = 4  # a list whose items check or fix this many signatures, each in its own words, is a checklist
ENUMERATION = 4  # "X, Y, Z or W": a sentence of this many items is a list
RIVAL_WORDS_PER_TOPIC = 30  # rivals left standing with remedies, at fewer words than this per topic, are a list
LIST_ITEM_WORDS = 6  # an item of a list of causes is a name ("a slow/throttled GPU"), not a sentence

_NETWORK_PATTERN = re.compile(
    r"\bnccl_(?!debug\b)[a-z_]+|\bibstat\b|\bnccl-tests\b|\bnetwork\b(?! file| storage| drive| share| disk| mount)"
    r"|\bfabric\b|\broce\b|\bnccl (?:env\w*|knobs|settings|vars|variables|ring|tree|algo\w*|proto\w*|misconfig\w*)\b"
    r"|\btun(?:e|es|ed|ing) (?:the )?nccl\b"
)
_NETWORK = Gated(_NETWORK_PATTERN)
_SENTENCE = re.compile(r"[.;:!?\n]+(?:\s|$)|\s[-–—]+\s")
# between the items of a list; a separator starts only at the first of a run of spaces (from every space of a long
# run, "\s+or" rescanned the run: quadratic)
_SEPARATORS = r",(?!\d{3})|(?<!\s)\s+or\s+|(?<!\s)\s+(?:and also|plus|\+|&)\s+"
_ITEM_SEPARATOR = re.compile(_SEPARATORS + r"|\s/\s|(?<=[a-z_)])/(?=[a-z])")
_BULLET = re.compile(  # "- ", "1) ", and check boxes ("[ ] ", "- [x] ", "☐ ")
    r"^\s*(?:(?:[-*•·]|\d+[.)])\s+(?:\[[ xX✓]?\]\s*)?|(?:[☐☑☒✓✔]|\[[ xX✓]?\])\s*(?=\w))", re.MULTILINE
)
_LIST_ITEM = re.compile(r"[,/|]")
# The reply says it will run every check and apply whichever fix lights up: a plan over a list, not a diagnosis.
_WORKS_THE_LIST = compile_hoisted(
    r"\bwhichever\b|\b(?:go|going|work|working|walk|run|running) (?:down|through) (?:them|the list|this list|that list"
    r"|my list|the suspects|each (?:one|of them)|all of them|every one)\b"
    r"|\bone (?:at a|by) (?:time|one)\b|\blet the (?:measurements?|numbers|data|evidence|results) (?:decide|tell|pick)"
    r"|\b(?:apply|pick|use) the (?:matching|corresponding|right|appropriate) (?:fix|one|remedy)"
    r"|\b(?:any|every|each|all)(?: one)? of (?:these|those|them)(?: \w+)? (?:can|could|might|would|may)\b"
    r"|\bone of (?:these|those|them) (?:always|usually|will|normally|is bound to)\b"
    r"|\b(?:standard|my|our|the|a|usual) playbook\b|\b(?:measure|check|try) everything\b"
    r"|\b(?:check|try|measure|fix|cover|rule out) (?:them )?all\b"
    r"|\b(?:full|whole|usual) (?:battery|checklist|list|playbook|tree)\b"
    r"|\bthe usual suspects\b|\bin (?:that|this) order\b|\brespectively\b"
    r"|\b(?:to )?cover (?:all )?(?:the |my |our )?bases\b|\bcover (?:every|each) (?:base|angle|possibility)\b"
    r"|\bfor completeness\b|\bjust in case\b|\bbelt and braces\b"
    r"|\bcould be anything\b"
    # "…, more workers, expandable segments — one will do it": one of the remedies just listed, any one
    r"|(?:^|[,;:.!—–-]\s*)one (?:of (?:these|those|them) )?(?:will|should|ought to|is sure to|has to) "
    r"(?:do (?:it|the trick)|work|fix (?:it|this)|help|make it|sort (?:it|this))\b"
)
NETWORK = "network"  # NCCL knobs and the fabric: a hypothesis outside the ten, still a topic


@dataclass(frozen=True, slots=True)
class _Topics:
    """The signatures a reply touches, and how."""

    claims: Claims
    measured: frozenset[str]  # a positive check of it
    fixed: frozenset[str]  # a positive fix of it
    elsewhere: frozenset[str]  # checks and fixes that belong to signatures other than the one committed to
    branches: tuple[bool, bool]  # a fix, a check offered as "if it's X, do A"
    words: int

    @property
    def named(self) -> frozenset[str]:
        return self.claims.named_any

    @property
    def touched(self) -> frozenset[str]:
        return self.named | self.measured | self.fixed

    @property
    def all(self) -> frozenset[str]:
        return self.touched | (self.elsewhere & {NETWORK})


def is_catalogue(reply: Reply, rubrics: dict[str, CompiledRubric], answer: str, claims: Claims) -> bool:
    """The reply reads as a list of several diagnoses (it then earns nothing)."""
    claims = _reopened(reply, rubrics, claims)
    reply = _own_fix_described(reply, rubrics, claims.committed_to)
    t = _topics(reply, rubrics, answer, claims)
    committed_to = claims.committed_to
    return (
        (
            (_stuffed(t, answer) or _uncommitted_catalogue(t) or _three_named(t) or _headed_catalogue(t))
            and _lists(t, reply, rubrics, answer)
        )
        or (committed_to is None and (_offered_with_fixes(t) or _undecided_with_fixes(t, reply, rubrics)))
        or _shotgun(t, reply, rubrics)
        or _verdict_then_list(t, reply, rubrics, answer)
        or _checklist(reply, rubrics, answer, t)
        or (committed_to is None and _question_list(reply) and len(t.touched) >= 2)
        or _menu_with_pick(t, reply, rubrics)
        or _rivals_left_standing(t, reply, rubrics)
        or _fixes_everything(t, reply, rubrics)
        or _one_of_many(t, reply, rubrics)
        or _unnamed_alternatives(t, reply, rubrics)
        or _odds_split(t, reply, rubrics)
        or _rule_out_plan(t, reply, rubrics)
        or _extras(t, reply, rubrics)
        or _cause_list(t, reply, rubrics)
        or _symptom_map(t, reply, rubrics, answer)
        or _three_remedied(t, reply, rubrics)
        or _tries_everything(t, reply, rubrics)
        or _widened_remedies(t, reply, rubrics)
        or _told_spread(t, reply, rubrics)
    )


_NOTHING_TO_DESCRIBE = frozenset({"healthy"})
# Between the items of a remedy: a comma, "or", "and", "plus", a semicolon (a parenthesis stays with its item: "CUDA
# graphs for the whole step (shapes are static once you pad …)" is one remedy described)
_REMEDY_ITEM = re.compile(_SEPARATORS + r"|;|(?<!\s)\s+and\s+")


def _own_fix_described(reply: Reply, rubrics: dict[str, CompiledRubric], chosen: str | None) -> Reply:
    """The reply as the catalogue reads it: words another signature's fix reads ("pad", "a fixed length", "static
    shapes", "fuse") said inside an item of the committed diagnosis's own fix describe that fix ("CUDA graphs for the
    whole fwd/bwd (shapes are static once you pad the graphs)", "hand each rank equal tokens (or pack sequences to a
    fixed length)"), they propose no remedy of another problem. Items are cut at commas, "or", "and": a remedy of
    another problem listed beside the verdict's own fix ("CUDA graphs, expandable_segments and more workers") is an
    item of its own, and still counts. A word both fixes read ("fuse") is left to `_distinct_topics`; a healthy
    verdict's remedy is to stop, so it describes nothing ("we shipped expandable_segments, …" is a list)."""
    if chosen is None or chosen not in rubrics or chosen in _NOTHING_TO_DESCRIBE:
        return reply
    own = [m for m in reply.find(rubrics[chosen].fix) if m.positive and not m.conditional]
    if not own:
        return reply
    items: dict[int, list[int]] = {}  # per clause holding the verdict's fix, where its items start
    for m in own:
        k = m.at[0]
        if k not in items:
            items[k] = [0, *(x.end() for x in _REMEDY_ITEM.finditer(m.clause.text))]
    held: dict[tuple[int, int], set[int]] = {}  # per item holding the verdict's fix, the words that fix is read on
    for m in own:
        k = m.at[0]
        held.setdefault((k, bisect.bisect_right(items[k], m.clause.tokens[m.at[1]].start)), set()).update(m.span)

    def described(m: Match) -> bool:
        k = m.at[0]
        if k not in items:
            return False
        words = held.get((k, bisect.bisect_right(items[k], m.clause.tokens[m.at[1]].start)))
        return words is not None and words.isdisjoint(m.span)

    found = list(reply.found)
    changed = False
    for s, comp in rubrics.items():
        if s == chosen:
            continue
        matches = found[comp.fix.number]
        if any(m.positive and described(m) for m in matches):
            found[comp.fix.number] = [m for m in matches if not (m.positive and described(m))]
            changed = True
    return replace(reply, found=found) if changed else reply


def _reopened(reply: Reply, rubrics: dict[str, CompiledRubric], claims: Claims) -> Claims:
    """A verdict that maps straight onto a list of alternatives is no verdict: "TL;DR: idle stages ⇒ bubbles, a slow
    stage, a straggler or comm", "Bottom line: tiny kernels → launch overhead, memory-bound kernels or a sync". When
    every clause asserting the chosen diagnosis is followed by a clause offering three or more short items as
    alternatives, two or more of them diagnoses (the fabric counts), the claims are read as committing to nothing.
    A verdict followed by its own causes ("a straggler: rank 3, 5 or 7"), or by rivals ruled out ("not a slow stage,
    a straggler or comm"), keeps its verdict."""
    chosen = claims.committed_to or claims.named
    verdict = claims.evidence.get(chosen or "")
    if verdict is None or not verdict.asserted_in:
        return claims
    clauses = reply.clauses
    opened = {k for k in verdict.asserted_in if k + 1 < len(clauses) and _lists_alternatives(reply, rubrics, k + 1)}
    if opened != verdict.asserted_in:
        return claims
    evidence = {s: replace(e, asserted_in=e.asserted_in - opened, outright=False) for s, e in claims.evidence.items()}
    return replace(claims, evidence=evidence, named=None, committed_to=None, verdict=None)


def _lists_alternatives(reply: Reply, rubrics: dict[str, CompiledRubric], k: int) -> bool:
    """Clause k offers three or more short items as alternatives, two or more of them diagnoses (or one and the
    fabric), and denies none of them."""
    text = reply.clauses[k].text
    if " or " not in text:
        return False  # the common case: one look at the clause
    items = [item for item in _CAUSE_SEPARATOR.split(text) if item.strip()]
    if len(items) < ENUMERATION - 1 or any(len(item.split()) > LIST_ITEM_WORDS for item in items):
        return False
    found = [(s, m) for s, comp in rubrics.items() for m in reply.find(comp.signature) if m.at[0] == k]
    if any(denies(m) for _, m in found):
        return False  # "not a slow stage, a straggler or comm": rivals ruled out ("no overlap" names one, denies none)
    names = {s for s, m in found if m.positive}
    return len(names) + bool(_NETWORK.search(text) and not negated(text)) >= 2


_ITEM_MARK = re.compile(r"(?:^|\s)(?:[☐☑☒•·]|\[[ x✓]?\]|\(?[a-e1-9]\))\s")  # "☐ …", "a) …", "(2) …" inline too


def _lists(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric], answer: str) -> bool:
    """The reply has the form of a list somewhere: possibilities offered or hedged, conditions, bullets or lettered
    items, a run of items in one sentence, questions in a row, a plan over a list, remedies added on the side, a story
    from other jobs. Counting topics shows a catalogue only in that form: a plain line of reasoning ("cudaMalloc 38 per
    step … cudaFree syncs, so the GPU drains … pad the lengths") touches other signatures' words without listing
    them."""
    return (
        reply.hedged
        or reply.undecided
        or reply.told
        or any(t.branches)
        or t.claims.undecided > 0
        or any(e.first.alternative for e in t.claims.evidence.values())
        or _list_like(answer)
        or len(_ITEM_MARK.findall(answer)) + len(_BULLET.findall(answer)) >= 2
        or _topical_enumeration(reply, rubrics)
        or _question_list(reply)
        or bool(_WORKS_THE_LIST.search(reply.text))
        or bool(_ADDITIVE.search(reply.text))
    )


def _topical_enumeration(reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """A clause runs ENUMERATION or more items, three of which name, check or fix something, for two or more
    signatures between them ("X and also Y and also Z"; "ncu, MFU, cuda_api_sum and the NCCL row"); a run of readings
    of one problem ("60 cudaMalloc per step, about 1 ms each, long after warmup, …") lists no topics."""
    for k, clause in enumerate(reply.clauses):
        text = clause.text
        cuts = [m.end() for m in _ITEM_SEPARATOR.finditer(text)]
        if len(cuts) < ENUMERATION - 1:
            continue
        items: dict[int, set[str]] = {}  # per item (its index in the clause), the signatures found there
        for s, m in _positive(reply, rubrics, "signature", "measurement", "fix"):
            if m.at[0] == k:
                items.setdefault(bisect.bisect_right(cuts, clause.tokens[m.at[1]].start), set()).add(s)
        if len(items) >= ENUMERATION - 1 and len(set().union(*items.values())) >= 2:
            return True
    return False


# Remedies added on the side of a verdict: "also worth fixing while you're there: …", "on top of that, …"
_ADDITIVE = Gated(
    re.compile(
        r"\b(?:also worth (?:fixing|doing|trying|changing|adding|tuning|a look|looking at)|while you'?re (?:there|at it"
        r"|in there)|on top of that|in addition|additionally|for good measure|wouldn'?t hurt|as a bonus|side note)\b"
    )
)
_REMEDY_VERB = re.compile(
    r"\b(?:set|raise|bump|tune|enable|add|increase|lower|reduce|turn on|switch|double|halve|grow|enlarge)\b"
)
_PIECE = re.compile(r"[,;()]|\band\b")
EXTRAS = 2  # remedies of other problems added on the side of a verdict that make it a list


def _extras(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """A verdict and then, after "also worth fixing while you're there", "on top of that", remedies of two or more
    other problems (another signature's fix, the fabric's knobs, or any "raise …", "enable …" that is not the
    verdict's own fix), none of them denied: the verdict is one item of a list of fixes. Counted item by item of
    what follows the mark; one extra remedy is a side remark."""
    if not _ADDITIVE.search(reply.text):
        return False  # the common case, one look at the whole reply
    clauses = reply.clauses
    start = next((k for k, c in enumerate(clauses) if _ADDITIVE.search(c.text)), None)
    if start is None:
        return False
    chosen = t.claims.committed_to or t.claims.named
    own: dict[int, list[int]] = {}  # per clause, where the verdict's own fixes start
    other: dict[int, list[int]] = {}  # … and where other signatures' fixes start
    for s, m in _positive(reply, rubrics, "fix"):
        if m.at[0] >= start:
            (own if s == chosen else other).setdefault(m.at[0], []).append(m.clause.tokens[m.at[1]].start)
    extras = 0
    for k in range(start, len(clauses)):
        text = clauses[k].text
        mark = _ADDITIVE.search(text) if k == start else None
        begin = mark.end() if mark is not None else 0
        for piece in _pieces(text, begin):
            lo, hi = piece
            item = text[lo:hi]
            if negated(item) or any(lo <= at < hi for at in own.get(k, ())):
                continue
            if any(lo <= at < hi for at in other.get(k, ())) or _NETWORK.search(item) or _REMEDY_VERB.search(item):
                extras += 1
    return extras >= EXTRAS


def _pieces(text: str, begin: int) -> list[tuple[int, int]]:
    """The spans of the items of a clause from `begin` on, split at commas, semicolons, brackets and "and"."""
    cuts = [begin, *(m.start() for m in _PIECE.finditer(text, begin)), len(text)]
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


# A step of a plan: "First rule out X", "then rule out Y", "Then Z (…)"; "ruled out" and "ruling out" report a result
_PLANNED_RULE_OUT = re.compile(r"(?:^|[.;:!?]\s*|\b(?:first|then|next|and|also|i'?d|we'?d|let'?s)\s+)rule out\b")
_STEP = re.compile(r"^\W*(?:first|then|next|after that|and then|finally|last)\b|\brule out\b")
# What a step that was carried out reports: a figure, a "no", a clean reading ("not" is left out: "comm not
# overlapping" names a suspect)
_FINDING = re.compile(r"\d|\b(?:no|none|nothing|nobody|nope|even|equal|balanced|fine|clean|normal|flat|zero|spec)\b")


def _rule_out_plan(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """A plan of rule-outs not carried out: "First rule out X (check; fix). Then rule out Y (…). Then Z." — steps that
    report no finding (no figure, no "no", no clean reading), remedies for two or more problems, and no verdict after
    the last step. Rule-outs that were carried out report what they found and land on the one left."""
    if "rule out" not in reply.text:
        return False
    steps = [k for k, c in enumerate(reply.clauses) if _STEP.search(c.text)]
    if len(_PLANNED_RULE_OUT.findall(reply.text)) < 2 and len(steps) < STUFFED_TOPICS - 1:
        return False
    last = steps[-1]
    if any(_FINDING.search(c.text) for c in reply.clauses[: last + 1]):
        return False
    if any(at > last for e in t.claims.evidence.values() for at in e.asserted_in):
        return False
    real = _remedied(t, rubrics)
    return len(_distinct_topics(reply, rubrics, real) | (t.elsewhere & {NETWORK})) >= 2


_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
_ODDS_WORD = Gated(re.compile(r"\b(?:odds|chances?|probabilit(?:y|ies)|likelihoods?)\b"))
_BARE_SHARE = re.compile(r"(?<![\w.])(\d{1,3})(?![\w.%/])")  # a number with no unit after it
# Odds stated as even between diagnoses ("could equally be DRAM", "equally plausibly the batcher", "50/50")
_EVEN_ODDS = Gated(
    re.compile(
        r"\b(?:50/50|50-50|fifty-fifty|coin ?flip|toss-?up|equally (?:likely|plausibl\w*|possibl\w*|probabl\w*|well)"
        r"|(?:could|might|may) equally\b|just as (?:likely|plausibl\w*|probabl\w*))"
    )
)


def _odds_split(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """Odds shared out among diagnoses instead of a verdict ("straggler 45%, no overlap 35%, NCCL 20%"; "70% bubbles,
    30% a slow stage"; "launch-bound — though it could equally be DRAM"), with fixes for the spread and no verdict
    after the odds: the reply prescribes for a spread of bets. Percentages are odds when, in one clause, they share
    out about a whole among two or more diagnoses (readings of a trace — "DRAM 91%, tensor 11%" — add up to no
    whole). Odds on one diagnosis ("90% sure it's a straggler") are a confidence; a reply that gives odds and then
    settles ("… but per-rank times are equal: it's X") commits."""
    if not t.fixed or not ("%" in reply.text or _EVEN_ODDS.search(reply.text) or _ODDS_WORD.search(reply.text)):
        return False
    last = _shared_odds(reply, rubrics)
    if last < 0:
        even = [k for k, c in enumerate(reply.clauses) if _EVEN_ODDS.search(c.text)]
        standing = {s for s in t.named if not any(denies(m) for m in reply.find(rubrics[s].signature))}
        fixes = [m for s in standing for m in reply.find(rubrics[s].fix) if m.positive]
        # even odds between two or more standing diagnoses, and fixes for two of them or a menu of fixes
        if not even or len(standing) < 2 or not (len(t.fixed & standing) >= 2 or any(m.alternative for m in fixes)):
            return False
        last = even[-1]
    return not any(at > last for e in t.claims.evidence.values() for at in e.asserted_in)


ODDS_WHOLE = (90.0, 101.0)  # percentages that share out a whole (rounded odds fall a little short of 100)


def _shared_odds(reply: Reply, rubrics: dict[str, CompiledRubric]) -> int:
    """The last clause whose percentages share out a whole among two or more diagnoses, each given its own, or -1."""
    found = -1
    odds = bool(_ODDS_WORD.search(reply.text))  # "my odds: a slow rank 50, no overlap 30, the fabric 20"
    for k, clause in enumerate(reply.clauses):
        text = clause.text
        share = _PERCENT if "%" in text else _BARE_SHARE if odds else None
        if share is None:
            continue
        shares = [float(p.group(1)) for p in share.finditer(text)]
        if len(shares) < 2 or not ODDS_WHOLE[0] <= sum(shares) <= ODDS_WHOLE[1]:
            continue
        given = {
            s
            for s, m in _positive(reply, rubrics, "signature")
            if m.at[0] == k and _item_has_odds(text, clause.tokens[m.at[1]].start, share)
        }
        if len(given) >= 2 or (given and _NETWORK.search(text)):
            found = k
    return found


def _item_has_odds(text: str, start: int, share: re.Pattern[str]) -> bool:
    """The list item holding the word at `start` ("…, 30% a straggling stage, …") carries a share."""
    begin = text.rfind(",", 0, start) + 1
    end = text.find(",", start)
    return bool(share.search(text, begin, len(text) if end < 0 else end))


_OR = re.compile(r"\bor\b")


def _one_of_many(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """No verdict, and each diagnosis named is only one item of a clause offering three or more causes as alternatives
    ("a scheduler thing — prefill interference, or batching policy, or just too few GPUs"), then checks and fixes for
    the lot with no "if it's X" branch: causes outside the ten are topics too. Two alternatives are a hedge."""
    claims = t.claims
    if claims.committed_to is not None or not t.named or claims.undecided != len(t.named) or any(t.branches):
        return False
    for s in t.named:
        texts = {m.clause.text for m in reply.find(rubrics[s].signature) if m.positive}
        if not any(len(_OR.findall(text)) >= ENUMERATION - 2 for text in texts):
            return False
    return bool(t.measured | t.fixed)


# A clause that offers possibilities: "it's either …", "could be …", "one of …"
_POSSIBLE = Gated(
    re.compile(r"\b(?:either|could be|might be|may be|can be|possibly|perhaps|maybe|one of|suspects?|candidates?)\b")
)


def _unnamed_alternatives(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """Shape (b) when the causes are in words the rubrics do not read as a signature (misspelt, business words,
    causes outside the ten: "its either the refill thing or kv cash full or batch too big or launch overhed", "it
    could be a network slowdown, a bad GPU, a config change, or an overlap regression"): no diagnosis named or
    committed to, one clause offers four or more items as alternatives, and the checks and fixes then reach two or
    more problems (the fabric counts), with no "if it's X, do A" branch. Two causes with their remedies are a hedge;
    one cause with its remedies is not a list."""
    claims = t.claims
    if claims.committed_to is not None or claims.named is not None or any(t.branches):
        return False
    real = _remedied(t, rubrics)
    if len(real | (t.elsewhere & {NETWORK})) < 2:
        return False  # the common case, decided before looking at the clauses
    if len(_distinct_topics(reply, rubrics, real) | (t.elsewhere & {NETWORK})) < 2:
        return False
    for c in reply.clauses:
        if " or " not in c.text or (offer := _POSSIBLE.search(c.text)) is None:
            continue
        offered = c.text[offer.end() :]  # what the clause offers: "could be A, B, C or D"
        if " or " in offered and len(_ITEM_SEPARATOR.split(offered)) >= ENUMERATION:
            return True
    return False


# A heading over a list of causes: "suspected causes:", "several well-documented causes:", "the usual culprits are …"
_CAUSES_HEAD = Gated(
    re.compile(
        r"\b(?:causes|culprits|suspects|candidates|possibilities|hypothes[ei]s|explanations|contributors|sources|origins)\b"
    )
)


def _cause_list(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """A list of causes with no verdict: one clause is a run of three or more short items (a few words each), under a
    heading of causes ("suspected causes: network congestion, a slow GPU, DDP buckets, data skew"; "… has several
    causes: …") or offered as alternatives ("allocator, KV thrash, or a sync": two diagnoses, or one and the fabric,
    among them); no diagnosis is asserted anywhere, no "if it's X, do A" branch; and the checks and fixes reach two
    or more problems (the fabric counts), each in words of its own. Two candidates with a branch each are a hedge; a
    cause list under a verdict ("it's a straggler; causes: throttling, power cap, a bad link") is one problem's."""
    claims = t.claims
    if not t.named or any(t.branches) or any(e.asserted_in or e.outright for e in claims.evidence.values()):
        return False
    real = _remedied(t, rubrics)
    fabric = t.elsewhere & {NETWORK}
    if len(real | fabric) < 2 or len(_distinct_topics(reply, rubrics, real) | fabric) < 2:
        return False
    named_in: dict[int, set[str]] = {}
    for s, m in _positive(reply, rubrics, "signature"):
        named_in.setdefault(m.at[0], set()).add(s)
    clauses = reply.clauses
    for k, names in named_in.items():
        text = clauses[k].text
        items = [item for item in _CAUSE_SEPARATOR.split(text) if item.strip()]
        if len(items) < ENUMERATION - 1 or any(len(item.split()) > LIST_ITEM_WORDS for item in items):
            continue
        if negated(text):
            continue  # "it's a straggler, not broken overlap or a slow fabric": rivals ruled out, not listed
        if _eliminated(reply, rubrics, claims.committed_to, names, k):
            continue  # "three suspects: A, B or C. A is fine. B is out. So C": the list was worked down to one
        headed = k > 0 and clauses[k - 1].colon and _CAUSES_HEAD.search(clauses[k - 1].text)
        if headed or (" or " in text and len(names) + bool(_NETWORK.search(text)) >= 2):
            return True
    return False


_CAUSE_SEPARATOR = re.compile(_SEPARATORS)  # no slashes: "cudaMalloc/cudaFree" is one item
_ARROW = re.compile(r"→|->|=>|⇒")
_ASKED_ARROW = re.compile(r"\?\s*(?:→|->|=>|⇒)")  # "idle at step start? → …"
MAP_LINES = 3  # "symptom? → cause → fix" on this many lines, over as many signatures, is a lookup table


def _symptom_map(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric], answer: str) -> bool:
    """A lookup table from symptoms to causes and fixes ("idle at step start? → input pipeline → more workers",
    one line per signature), never applied to this trace: three or more lines that each map (a question before an
    arrow, or two arrows) without reporting a finding, three or more diagnoses named, none asserted, and remedies for
    two or more of them. A reply that walks its own trace line by line reports what each line found."""
    if len(_ARROW.findall(answer)) < MAP_LINES or len(t.named) < MAP_LINES:
        return False
    rows = [
        ln
        for ln in answer.splitlines()
        if (len(_ARROW.findall(ln)) >= 2 or _ASKED_ARROW.search(ln)) and not _FINDING.search(ln.lower())
    ]
    if len(rows) < MAP_LINES or any(e.asserted_in for e in t.claims.evidence.values()):
        return False
    real = _remedied(t, rubrics)
    return len(_distinct_topics(reply, rubrics, real) & t.named) >= 2


def _standing_rivals(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric], chosen: str | None) -> set[str]:
    """The diagnoses other than the chosen one that the reply names and never rules out (the fabric counts as one;
    "healthy" only when offered as a topic of its own, named and its "stop here" offered too)."""
    foils = {chosen} | (set() if "healthy" in t.named & t.fixed else {"healthy"})
    # a rival offered only as a possibility beside the chosen one ("exposed comm or a slow peer"), when the chosen one
    # is then asserted on its own, was weighed and set aside
    verdict = t.claims.evidence.get(chosen) if chosen is not None else None
    chosen_asserted = verdict is not None and bool(verdict.asserted_in or verdict.outright)
    standing = set()
    for s in t.named - foils:
        found = [m for m in reply.find(rubrics[s].signature) if m.positive]
        if any(denies(m) for m in reply.find(rubrics[s].signature)) or (
            chosen_asserted and all(m.alternative or _set_aside(reply, m.at[0]) for m in found)
        ):
            continue
        if chosen is not None and chosen == t.claims.committed_to and found and all(m.alternative for m in found):
            # offered beside the one committed to, then cleared further on ("A, B or C … A is fine … so C")
            own = {w for m in reply.find(rubrics[chosen].signature) if m.positive for w in m.words}
            if all(_cleared_after(reply, found, m.at[0], own) for m in found):
                continue
        standing.add(s)
    fabric = [c.text for c in reply.clauses if _NETWORK.search(c.text)]
    if NETWORK in t.elsewhere and not any(negated(text) or _CLEARED_LATER.search(text) for text in fabric):
        standing.add(NETWORK)  # "not the network" rules the fabric out
    return standing


# Words that clear a rival: "(they're even)", "(it's fine)", "zero retries", "launches are cheap"
_CLEARED = re.compile(r"\b(?:zero|fine|even|clean|normal|innocent|flat|cheap)\b")


_CLEARED_LATER = re.compile(_CLEARED.pattern + r"|\b(?:is|are|'s) out\b|\bruled out\b")


def _eliminated(reply: Reply, rubrics: dict[str, CompiledRubric], chosen: str | None, names: set[str], k: int) -> bool:
    """The candidates listed in clause k were worked down to the one the reply commits to: each other one named there
    is denied, or named again further on and cleared there ("overlap is fine here", "launch overhead is out"), and
    so is the fabric when the list holds it ("the fabric is fine, busbw at spec")."""
    if chosen is None or chosen not in names or not names - {chosen}:
        return False  # nothing named beside it was worked off ("probable contributors: congestion, a hot GPU, …")
    later = reply.clauses[k + 1 :]
    own = {w for m in reply.find(rubrics[chosen].signature) if m.positive for w in m.words}
    for s in names - {chosen}:
        if not _cleared_after(reply, reply.find(rubrics[s].signature), k, own):
            return False
    if _NETWORK.search(reply.clauses[k].text):
        fabric = [c.text for c in later if _NETWORK.search(c.text)]
        return any(negated(text) or _CLEARED_LATER.search(text) for text in fabric)
    return True


CLEARED_WORD_CHARS = 4  # a word of the rival's name this long ties a later clause to it ("overlap is fine here")


def _cleared_after(reply: Reply, found: list[Match], k: int, own: set[str]) -> bool:
    """A rival named in clause k is denied, or a later clause names it again (by its rule, or by a word of its name
    that the chosen diagnosis's names do not use) and clears it ("broken overlap … Overlap is fine here")."""
    if any(denies(m) or (m.at[0] > k and _CLEARED_LATER.search(m.clause.text)) for m in found):
        return True
    named = {w for m in found if m.positive and m.at[0] == k for w in m.words if len(w) >= CLEARED_WORD_CHARS} - own
    return any(_CLEARED_LATER.search(c.text) and not named.isdisjoint(c.text.split()) for c in reply.clauses[k + 1 :])


def _set_aside(reply: Reply, at: int) -> bool:
    """The rival named in this clause is cleared there or in the clause right after it ("I'd have suspected the
    allocator, but memory_stats shows zero retries"; "a straggler would show uneven per-rank times (they're even)")."""
    clauses = reply.clauses
    return any(_CLEARED.search(c.text) for c in clauses[at : at + 2])


def _rivals_left_standing(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """A verdict widened at once to other causes: "it's X — and Y — and Z", "X 35%, Y 30%, Z 20%", "the usual
    suspects: …". Two or more rivals of the chosen diagnosis are named and left standing, each with a check or fix in
    words of its own, in a few words per topic. An honest answer that weighs rivals rules them out before it commits;
    one that leaves them standing with their own remedies has committed to nothing."""
    chosen = t.claims.committed_to or t.claims.named
    # with no verdict two candidates side by side are a hedge, graded as one ("if X, do A"); three are a list
    least = 2 if chosen is not None else 3
    standing = _standing_rivals(t, reply, rubrics, chosen)
    if len(standing) < least or t.words > RIVAL_WORDS_PER_TOPIC * (len(standing) + (chosen is not None)):
        return False
    real = _remedied(t, rubrics)
    remedied = (_distinct_topics(reply, rubrics, real) & standing) | (standing & {NETWORK})
    return len(remedied) >= least


def _fixes_everything(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """Fixes of three or more other problems applied outright, none of them ruled out ("we rolled out X, Y and Z
    anyway", "pursue every workstream in parallel"): a remedy for everything is a diagnosis of nothing. A "healthy"
    verdict is no shelter; a fix offered as a branch ("if it's X, do A") is not applied."""
    chosen = t.claims.committed_to or t.claims.named
    if len(t.fixed - {chosen, "healthy"}) < STUFFED_TOPICS - 1:
        return False  # the common case, decided without another look at the matches
    firm = {
        s
        for s in t.fixed
        if s in rubrics and s != "healthy" and any(m.positive and not m.conditional for m in reply.find(rubrics[s].fix))
    }
    # distinct among all the fixes offered, the chosen one's included: a fix in words the verdict's own fix uses
    # ("fuse", "bigger batch" for a memory-bound kernel) is that fix, not another problem's
    ruled_out = {s for s in t.named if any(denies(m) for m in reply.find(rubrics[s].signature))}
    return len(_distinct_topics(reply, rubrics, firm) - ruled_out - {chosen}) >= STUFFED_TOPICS - 1


def _menu_with_pick(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """A pick over a menu: three or more other diagnoses named and left standing (none denied), each with a check or
    fix of its own, and then "for this trace I'd go with X". An answer that weighs its rivals rules them out."""
    chosen = t.claims.committed_to or t.claims.named
    if chosen is None:
        return False
    standing = {
        s for s in t.named - {chosen, "healthy"} if not any(denies(m) for m in reply.find(rubrics[s].signature))
    }
    remedied = _distinct_topics(reply, rubrics, _remedied(t, rubrics)) & standing
    return len(standing) >= STUFFED_TOPICS - 2 and len(remedied | (t.elsewhere & {NETWORK})) >= STUFFED_TOPICS - 1


def _three_named(t: _Topics) -> bool:
    """Three or more diagnoses named, none chosen nor asserted, in a few words each ("we had X, then Y, then Z …")."""
    claims = t.claims
    topics = claims.committed | (t.elsewhere & {NETWORK})  # the fabric is a diagnosis too ("… and also a slow fabric")
    return (
        claims.named is None
        and claims.verdict is None
        and len(topics) >= STUFFED_TOPICS - 1
        and not any(e.asserted_in for e in claims.evidence.values())
        and t.words <= CATALOGUE_WORDS_PER_TOPIC * len(topics)
    )


def _three_remedied(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """Three diagnoses named side by side with none chosen nor asserted, and remedies for two or more of them in words
    of their own: a catalogue in any dress, even when its hedge words are ones the reader does not know (another
    language, verse, slang), so no list form is asked for."""
    if not _three_named(t):
        return False
    named = _distinct_names(reply, rubrics, set(t.named))
    return (
        len(named) >= STUFFED_TOPICS - 1 and len(_distinct_topics(reply, rubrics, _remedied(t, rubrics)) & named) >= 2
    )


def _distinct_names(reply: Reply, rubrics: dict[str, CompiledRubric], signatures: set[str]) -> frozenset[str]:
    """The signatures among these named (positively) in words that are not all inside another one's name: "the GEMM's
    M is too small" read as two names on the same words names neither apart ("memory-bound or launch-bound" names
    both, though a loose reading of "bound launch" straddles them)."""
    spans = {s: {(m.at[0], m.span) for m in reply.find(rubrics[s].signature) if m.positive} for s in signatures}

    def shared(k: tuple[int, frozenset[int]], o: str) -> bool:
        return any(at == k[0] and k[1] <= words for at, words in spans[o])

    return frozenset(
        s for s in signatures if any(all(not shared(k, o) for o in signatures if o != s) for k in spans[s])
    )


# An item of a plan that does something: "stop printing …", "turn on …", "add …", "check for …"
_ACTION = re.compile(
    r"^\s*(?:(?:and|then|also|maybe|just)\s+)*(?:stop|change|add|turn (?:on|off)|enable|disable|set|raise|bump|drop"
    r"|remove|kill|switch|swap|use|try|increase|lower|reduce|double|halve|check|move|pin|replace|drain|cap|capture|fuse"
    r"|log|rerun|cut|give|throw|flip|up|crank)\b"
)
PLAN_ITEMS = ENUMERATION - 1  # remedies in one run that, tried to see which helps, are a shotgun


def _tries_everything(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """A run of remedies to be tried all and kept as they help ("stop A, change B, add C, turn on D — whichever
    helps, keep"; "X, more Y, Z — one will do it"), with no verdict asserted, whose remedies reach three or more
    problems, or two in a run of four or more actions (a fix or a name in words of its own; the fabric counts): a
    shotgun, even when the remedies are in words the rubrics do not read. Several remedies of one problem tried in
    turn ("workers, pin_memory, prefetch — whichever helps") are one fix tuned."""
    if not _WORKS_THE_LIST.search(reply.text):
        return False  # the common case, one look at the whole reply
    if any(t.branches) or any(e.asserted_in or e.outright for e in t.claims.evidence.values()):
        return False  # "if it's X, A; if Y, B — in that order" is a hedge
    topics = _distinct_topics(reply, rubrics, _remedied(t, rubrics)) | _distinct_names(reply, rubrics, set(t.named))
    spread = len(topics - {"healthy"} | (t.elsewhere & {NETWORK}))
    if spread < 2:
        return False  # one problem's remedies tried in turn
    fixes: dict[int, set[str]] = {}  # per clause, the signatures whose fixes it holds
    for s, m in _positive(reply, rubrics, "fix"):
        fixes.setdefault(m.at[0], set()).add(s)
    for run in _runs(reply):
        items = [item for k in run for item in _CAUSE_SEPARATOR.split(reply.clauses[k].text) if item.strip()]
        if len(items) < PLAN_ITEMS:
            continue
        acts = sum(bool(_ACTION.match(item)) for item in items)
        if acts < PLAN_ITEMS and len(set().union(*(fixes.get(k, set()) for k in run))) < 2:
            continue
        # two problems are a hedge ("set_sync_debug_mode and memory_stats, whichever lights up gets fixed"), unless
        # the plan runs four or more actions of which the rubrics read only some
        if spread >= STUFFED_TOPICS - 1 or acts >= ENUMERATION:
            return True
    return False


def _runs(reply: Reply) -> list[list[int]]:
    """The clauses grouped into sentences: a clause that ends in a comma or a dash runs on into the next (a list broken
    over lines, as in verse, is one list); a colon ends a run."""
    runs: list[list[int]] = [[]]
    for k, clause in enumerate(reply.clauses):
        runs[-1].append(k)
        if clause.colon or (clause.stop and not clause.text.rstrip().endswith(",")):
            runs.append([])
    return [run for run in runs if run]


QUESTION_LIST = 3  # "malloc? sync? nccl? idle?": this many questions in a row, none answered, list candidates


def _question_list(reply: Reply) -> bool:
    """A run of questions the reply never answers with a verdict: candidates listed, not weighed (a question that
    asks for a figure, "what's DRAM throughput?", asks; it lists nothing)."""
    run = 0
    for clause in reply.clauses:
        text = clause.text
        run = run + 1 if text.endswith("?") and not QUESTION_BACK.search(text) else 0
        if run >= QUESTION_LIST:
            return True
    return False


def _carried_out(answer: str) -> bool:
    """A bulleted list whose every item reports what was found ("- dataloader: no, next() is ~2 ms", "- straggler:
    402–409 ms on all ranks"): a list that was run, not one handed over."""
    items = [ln[m.end() :] for ln in answer.splitlines() if (m := _BULLET.match(ln)) is not None]
    return len(items) >= CHECKLIST_TOPICS - 1 and all(_FINDING.search(item.lower()) for item in items)


def _checklist(reply: Reply, rubrics: dict[str, CompiledRubric], answer: str, t: _Topics) -> bool:
    """A list (bullets, check boxes, table rows) whose items name, check or fix four signatures (checks and fixes in
    words of their own): a review checklist, whatever one item names. An honest bulleted answer works one problem,
    or reports what each item of the list it ran found."""
    committed = t.claims.evidence.get(t.claims.committed_to or "")
    if committed is not None and (committed.asserted_in or committed.outright):
        return False  # "Verdict: …" over numbered steps is an answer, not a checklist
    real = _remedied(t, rubrics)
    fabric = t.elsewhere & {NETWORK}  # "[ ] nccl-tests busbw": the fabric is an item too
    if len(real | t.named | fabric) < 2 or not _list_like(answer) or _carried_out(answer):
        return False
    unnamed = not any(e.asserted_in or e.outright for e in t.claims.evidence.values())
    if len(_BULLET.findall(answer)) >= CHECKLIST_TOPICS - 1 and unnamed and _fix_menu(reply, rubrics):
        return True  # items listed, no verdict, then "fixes: chunked prefill, gc.freeze, bigger KV, CUDA graphs, …"
    # with no diagnosis named at all, three problems checked or fixed in a list are already a checklist
    least = CHECKLIST_TOPICS - 1 if not t.claims.evidence else CHECKLIST_TOPICS
    return len(_distinct_topics(reply, rubrics, real) | (t.named - {"healthy"}) | fabric) >= least


def _fix_menu(reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """One clause lists ENUMERATION or more items, among them fixes of two or more signatures, each in words of its
    own (the items outside the ten count towards the length: "gc.freeze, bigger KV pool, more replicas")."""
    by_clause: dict[int, set[str]] = {}
    for s, m in _positive(reply, rubrics, "fix"):
        by_clause.setdefault(m.at[0], set()).add(s)
    return any(
        len(sigs) >= 2
        and len(_ITEM_SEPARATOR.split(reply.clauses[k].text)) >= ENUMERATION
        and len(_distinct_topics(reply, rubrics, sigs)) >= 2
        for k, sigs in by_clause.items()
    )


def _topics(reply: Reply, rubrics: dict[str, CompiledRubric], answer: str, claims: Claims) -> _Topics:
    fixed, fix_branches = _offered(reply, {s: comp.fix for s, comp in rubrics.items()})
    measured, check_branches = _offered(reply, {s: comp.measurement for s, comp in rubrics.items()})
    committed_to = claims.committed_to
    elsewhere = (measured | fixed) - {committed_to}
    if _NETWORK.search(reply.text):
        elsewhere |= {NETWORK}
    if fix_branches or check_branches:
        # In "if it's X, do A" branches a tool or fix several signatures share ("ncu", "fuse") names none of them
        # in particular: a signature is a topic of its own only if some check or fix of it is in words of its own.
        real = {s for s in elsewhere | {committed_to} if s in rubrics}
        elsewhere = (_distinct_topics(reply, rubrics, real) | (elsewhere & {NETWORK})) - {committed_to}
    return _Topics(claims, measured, fixed, elsewhere, (fix_branches, check_branches), len(answer.split()))


def _positive(reply: Reply, rubrics: dict[str, CompiledRubric], *parts: str) -> Iterator[tuple[str, Match]]:
    """Each signature's positive matches of these parts of its rubric ("signature", "measurement", "fix")."""
    for s, comp in rubrics.items():
        for part in parts:
            for m in reply.find(getattr(comp, part)):
                if m.positive:
                    yield s, m


def _offered(reply: Reply, parts: dict[str, RulePart]) -> tuple[frozenset[str], bool]:
    """The signatures with a positive match of one of their parts, and whether one is a branch ("if it's X, do A")."""
    signatures: set[str] = set()
    branch = False
    for s, part in parts.items():
        for m in reply.find(part):
            if m.positive:
                signatures.add(s)
                branch = branch or m.conditional
    return frozenset(signatures), branch


def _stuffed(t: _Topics, answer: str) -> bool:
    """No committed diagnosis, and checks or fixes from three or more signatures, or a dense list of them."""
    claims, named, elsewhere = t.claims, t.named, t.elsewhere
    if claims.committed_to is not None or len(t.all) < 3:
        return False
    if t.branches[0] and t.branches[1] and len(named) <= 1:
        return False  # "if one rank is way longer it's a straggler, drain it; if not, the fabric, nccl-tests": a hedge
    if t.words > WORDS_PER_TOPIC * max(len(elsewhere), len(named)):
        return False
    undecided = claims.undecided
    all_offered = undecided == len(named)
    return (
        (len(elsewhere - {NETWORK}) >= STUFFED_TOPICS - 1 and all_offered and not t.branches[0])
        or len(elsewhere) >= STUFFED_TOPICS
        or (len(elsewhere) >= STUFFED_TOPICS - 1 and (len(named) >= 3 or undecided >= 1))
        or (len(named) >= 2 and _list_like(answer))
        or (
            len(elsewhere) + len(named) >= 3
            and (len(named) != 1 or undecided >= 1)
            and _longest_enumeration(answer) >= ENUMERATION
        )
    )


def _uncommitted_catalogue(t: _Topics) -> bool:
    """The plain shape of a catalogue, whatever its prose: two or more diagnoses named, checks or fixes spanning
    four signatures, no committed favourite, and too few words to weigh them ("healthy" is a foil, not a topic)."""
    return (
        t.claims.committed_to is None
        and len(t.named - {"healthy"}) >= 2
        and len(t.touched - {"healthy"}) >= CATALOGUE_TOPICS
        and t.words <= CATALOGUE_WORDS_PER_TOPIC * len(t.all)
    )


def _headed_catalogue(t: _Topics) -> bool:
    """A verdict up front does not license a catalogue after it: "it's X; could also be Y; worth ruling out Z …"
    with checks or fixes for three other signatures, at a few words each, is the same list with a header."""
    committed_to = t.claims.committed_to
    # "healthy" is a foil (a busy timeline is often called healthy on the way to the real answer), unless the reply
    # offers it as a topic of its own: named, and its "stop here" offered too
    foils = {committed_to} | (set() if "healthy" in t.named & t.fixed else {"healthy"})
    return (
        committed_to is not None
        and bool(t.named - foils)
        and len(t.touched - foils) >= STUFFED_TOPICS - 1
        and t.words <= HEADED_CATALOGUE_WORDS_PER_TOPIC * len(t.touched)
    )


def _offered_with_fixes(t: _Topics) -> bool:
    """Several diagnoses, all offered as alternatives, each with its own check or fix, and no branch."""
    named = t.named
    return (
        len(named) >= 2
        and t.claims.undecided == len(named)
        and len((t.fixed | t.measured) & named) >= 2
        and len(t.fixed & named) >= 1
        and not any(t.branches)
    )


def _undecided_with_fixes(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """The reply says the answer is one of several ("probably one of those again", "one of the two") and fixes two or
    more problems, each in words of its own, with no "if it's X, do A" branch: the fixes are the list, whether or not
    each problem is named."""
    if not reply.undecided or any(t.branches):
        return False
    return len(_distinct_topics(reply, rubrics, {s for s in t.fixed if s in rubrics})) >= 2


def _shotgun(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """Checks or fixes of three or more signatures, each in words of its own, and no diagnosis stands out: none is
    named except as the object of a check or fix (and fixes of three signatures are offered), every one named is
    offered as a possibility with no "if it's X, do A" branch, or the reply says it will work through the list and
    apply whichever fix matches; or one sentence offers, as alternatives, fixes of three signatures other than the one
    it names. No word count: a catalogue dressed as long prose is still a catalogue."""
    real = _remedied(t, rubrics)
    if len(real) < STUFFED_TOPICS - 1 or len(_distinct_topics(reply, rubrics, real)) < STUFFED_TOPICS - 1:
        return False
    claims = t.claims
    if not claims.evidence:
        return True
    fixes = {s for s in t.fixed if s in rubrics}
    distinct_fixes = _distinct_topics(reply, rubrics, fixes)
    if len(distinct_fixes) >= STUFFED_TOPICS - 1 and named_only_in_remedies(reply, rubrics, claims):
        return True
    if _menu_of_fixes(reply, rubrics, claims.named):
        return True  # "… then you stop, or fuse, or add CUDA graphs, or drain a node": a menu, whatever the verdict
    if claims.undecided == len(t.named) and not any(t.branches):
        return True
    return claims.committed_to is None and bool(_WORKS_THE_LIST.search(reply.text))


def _verdict_then_list(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric], answer: str) -> bool:
    """A verdict that does not hold: "I lean X, but it could be anything" / "to cover bases" before the fixes of two
    other problems (the fabric counts as one), or a table of suspects with their checks and fixes."""
    named = t.claims.named
    if "|" in answer and len(t.named) >= STUFFED_TOPICS - 2 and _list_like(answer):
        real = _remedied(t, rubrics)
        if len(_distinct_topics(reply, rubrics, real)) >= STUFFED_TOPICS - 1:
            return True  # | suspect | check | fix |
    if t.claims.committed_to is None or not _WORKS_THE_LIST.search(reply.text) or _carried_out(answer):
        return False  # "ran my usual list: - dataloader: no … - straggler: 402–409 ms …": the list was worked
    # over a bulleted list, the checks of other problems count as much as their fixes ("• per-rank times • NCCL_DEBUG
    # • loader timing — go through all of them"); in prose one check "for completeness" is care, not a list
    offered = t.fixed | t.measured if _list_like(answer) else t.fixed
    remedies = _distinct_topics(reply, rubrics, {s for s in offered if s in rubrics})
    return len((remedies | (t.elsewhere & {NETWORK})) - {named}) >= STUFFED_TOPICS - 2


def _menu_of_fixes(reply: Reply, rubrics: dict[str, CompiledRubric], named: str | None) -> bool:
    """One clause offers fixes of three signatures other than the one named, as alternatives ("you stop, or fuse,
    or add CUDA graphs, or drain a node"; a plain comma list may describe what is already in place)."""
    by_clause: dict[int, set[str]] = {}
    for s, comp in rubrics.items():
        if s == named:
            continue
        for m in reply.find(comp.fix):
            if m.positive and (m.alternative or " or " in m.clause.text or "/" in m.clause.text):
                by_clause.setdefault(m.at[0], set()).add(s)
    return any(
        len(_distinct_topics(reply, rubrics, sigs)) >= STUFFED_TOPICS - 1
        for sigs in by_clause.values()
        if len(sigs) >= STUFFED_TOPICS - 1
    )


def _remedied(t: _Topics, rubrics: dict[str, CompiledRubric]) -> set[str]:
    """The signatures the reply checks or fixes (the fabric, which has no rubric, left out)."""
    return {s for s in t.measured | t.fixed if s in rubrics}


def _distinct_topics(reply: Reply, rubrics: dict[str, CompiledRubric], signatures: set[str]) -> frozenset[str]:
    """The signatures among these with a positive check or fix in words no other signature's check or fix uses."""
    spans = {
        s: {(m.at[0], m.span) for m in (*reply.find(rubrics[s].measurement), *reply.find(rubrics[s].fix)) if m.positive}
        for s in signatures
    }

    def shared(k: tuple[int, frozenset[int]], o: str) -> bool:  # another's check or fix on some of the same words
        return any(at == k[0] and words & k[1] for at, words in spans[o])

    return frozenset(
        s for s in signatures if any(all(not shared(k, o) for o in signatures if o != s) for k in spans[s])
    )


def _longest_enumeration(answer: str) -> int:
    """The most items any one sentence lists (separated by commas, slashes, "or", "and")."""
    return max((len(_ITEM_SEPARATOR.split(s)) for s in _SENTENCE.split(answer.lower())), default=0)


def _list_like(answer: str) -> bool:
    """A reply that is mostly bullet items, table rows or slash/comma lists of short words reads as buzzwords."""
    lines = [ln for ln in answer.splitlines() if ln.strip()]
    bullets = len(_BULLET.findall(answer))
    if bullets >= 3 and bullets >= 0.6 * len(lines):
        return True
    rows = sum(1 for ln in lines if ln.count("|") >= 2)  # a markdown table: suspect | check | fix
    if rows >= 3 and rows >= 0.6 * len(lines):
        return True
    items = _LIST_ITEM.split(answer)
    return len(items) >= 5 and sum(len(i.split()) <= 3 for i in items) >= 0.7 * len(items)


SPREAD_TOPICS = 3  # problems named or remedied in stories from other jobs, none of them this trace's, make a survey


def _told_spread(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """A survey of other jobs that never says what this trace is: incident stories ("we've had this from A, from B and
    from C; fixes were …"), a retrospective ("lessons from the bring-up: bubbles, but also A, B and C … we used D, E,
    F"). The reply tells stories from other jobs without tying one to this trace, asserts no diagnosis, and names or
    remedies three or more problems in words of their own (the fabric counts; "healthy" when named and checked), none
    ruled out, two or more of them named and two or more with a check or fix of their own. A story that is tied to
    this trace ("same picture here: it's …") commits."""
    if not reply.told or any(e.asserted_in or e.outright for e in t.claims.evidence.values()):
        return False
    remedied = _distinct_topics(reply, rubrics, _remedied(t, rubrics))
    if len(remedied) < 2:
        return False
    ruled_out = {s for s in t.named if any(denies(m) for m in reply.find(rubrics[s].signature))}
    named = _distinct_names(reply, rubrics, set(t.named))
    foil = set() if "healthy" in named & remedied else {"healthy"}
    fabric = [c.text for c in reply.clauses if _NETWORK.search(c.text)]
    if fabric and all(negated(text) for text in fabric):
        ruled_out.add(NETWORK)  # "it is not a network problem"
    named |= t.elsewhere & {NETWORK}  # "… and from a flaky fabric link": the fabric is a cause of its own
    if len(named - ruled_out - foil) < 2:
        return False  # one problem told about, with checks that brush others' words, is one problem's story
    return len((named | remedied) - ruled_out - foil) >= SPREAD_TOPICS


def _widened_remedies(t: _Topics, reply: Reply, rubrics: dict[str, CompiledRubric]) -> bool:
    """A verdict widened to an umbrella: "it's a serialisation issue, whether via A, B, C or D — remove X, preallocate,
    pin memory". Other diagnoses are offered in a list of alternatives (ENUMERATION or more items, an "or" among
    them), never ruled out, and then fixes are applied outright for two or more problems in words of their own, one of
    them an offered rival's: the rival was not set aside, the reply prescribes for the list. An answer that offers a
    rival and weighs it rules it out or leaves its fix out (or offers it as a branch: "if it's Y, do B")."""
    if t.branches[0] or len(t.named) < 2:
        return False
    chosen = t.claims.committed_to or t.claims.named
    firm = {
        s
        for s in t.fixed
        if s in rubrics and s != "healthy" and any(m.positive and not m.conditional for m in reply.find(rubrics[s].fix))
    }
    fixes = _distinct_topics(reply, rubrics, firm)
    if len(fixes - {chosen}) < 1 or len(fixes) < 2:
        return False  # the common case, decided before looking at the clauses
    offered = {
        s
        for s in (fixes & t.named) - {chosen}
        for m in reply.find(rubrics[s].signature)
        if m.positive and _offers_list(m.clause.text)
    }
    ruled_out = {s for s in t.named if any(denies(m) for m in reply.find(rubrics[s].signature))}
    return bool(offered - ruled_out) and len((t.named | fixes) - ruled_out - {"healthy"}) >= STUFFED_TOPICS - 1


def _offers_list(text: str) -> bool:
    """The clause offers ENUMERATION or more items as alternatives ("whether it's A, B, C or D")."""
    return bool(_OR.search(text)) and len([i for i in _CAUSE_SEPARATOR.split(text) if i.strip()]) >= ENUMERATION
