"""Scoring a reply against the true signature: three parts, a numbers bonus, and the rules of fairness.

Rules (../shared/domain/signatures.md): each part is earned independently; naming the twin (and not the
signature) earns 0 with the twin's tell as feedback; a rejected hypothesis followed by a commitment earns the
signature; hedging between signatures earns 0; three or more signatures, or a buzzword list, earns nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..scenarios.ids import SIGNATURE_IDS
from ..scenarios.model import Scenario
from .matcher import CompiledRubric, Match, Reply, compiled
from .rubric import PART_WEIGHTS
from .text import Quantity, quantities

MAX_ANSWER_CHARS = 4000  # longer replies are graded on their first 4,000 characters, and told so
NUMBER_BONUS = 0.05  # per stated figure within tolerance of this scenario's own, at most two
CONSISTENT_ARITHMETIC_BONUS = 0.05
WORDS_PER_TOPIC = 30  # a catalogue is dense; a long answer that weighs the same topics in depth is not one
STUFFED_TOPICS = 4  # checks or fixes of this many other signatures, with no diagnosis committed to, is a catalogue
CATALOGUE_TOPICS = 4  # signatures touched (named, checked or fixed) by an uncommitted reply that names two or more
CATALOGUE_WORDS_PER_TOPIC = 25  # fewer words than this per topic touched is listing them, not weighing them
HEADED_CATALOGUE_WORDS_PER_TOPIC = 10  # committed replies that weigh others use 11+ words per topic (dev, all writers)


@dataclass(frozen=True, slots=True)
class PartResult:
    credit: float  # 0, 0.5 or 1
    evidence: str | None  # the span of the reply that earned it
    hint: str  # what would have earned it
    note: str = ""


@dataclass(frozen=True, slots=True)
class Grade:
    signature_id: str
    signature: PartResult
    measurement: PartResult
    fix: PartResult
    score: float
    named: str | None  # the signature the reply committed to, if any
    bonus: float = 0.0
    notes: tuple[str, ...] = field(default=())

    def parts(self) -> list[tuple[str, PartResult]]:
        return [("Signature", self.signature), ("Measurement", self.measurement), ("Fix", self.fix)]

    def feedback(self) -> str:
        """A short per-part table for a chat thread: ✓ / ~ / ✗, the quoted span, or the hint."""
        from .feedback import render_feedback

        return render_feedback(self)

    def as_dict(self) -> dict[str, Any]:
        return {
            "signature": self.signature.credit,
            "measurement": self.measurement.credit,
            "fix": self.fix.credit,
            "score": self.score,
            "named": self.named,
            "feedback": self.feedback(),
        }


def grade(scenario_or_signature: Scenario | str, text: object) -> Grade:
    """Grade a free-text diagnosis. Pure: no I/O, never raises on any reply."""
    if isinstance(scenario_or_signature, Scenario):
        signature, figures = scenario_or_signature.signature, scenario_or_signature.figures
    else:
        signature, figures = scenario_or_signature, {}
    if signature not in SIGNATURE_IDS:
        raise ValueError(f"unknown signature {signature!r}")
    notes: list[str] = []
    answer = text if isinstance(text, str) else ("" if text is None else str(text))
    if len(answer) > MAX_ANSWER_CHARS:
        answer = answer[:MAX_ANSWER_CHARS]
        notes.append(f"Only the first {MAX_ANSWER_CHARS:,} characters were graded.")
    rubrics = compiled()
    target = rubrics[signature]
    rubric = target.rubric
    reply = Reply.parse(answer)

    if not reply.clauses:
        notes.append("Nothing to grade: the reply has no words.")
        empty = (
            PartResult(0.0, None, rubric.signature.hint),
            PartResult(0.0, None, rubric.measurement.hint),
            PartResult(0.0, None, rubric.fix.hint),
        )
        return Grade(signature, *empty, 0.0, None, 0.0, tuple(notes))

    evidence = _evidence(reply, rubrics)
    several = len(evidence) >= 2  # with several diagnoses in play, "if it's X" offers X as one branch
    if several:  # the ones named only inside a check or a fix step back
        claims = _evidence(reply, rubrics, skip_tools=True, several=True)
        evidence = claims or evidence
    strong = {s for s, e in evidence.items() if e.strength >= 1.0}
    weak = {s for s, e in evidence.items() if e.strength < 1.0}
    committed = strong or weak
    fix_signatures = {s for s, comp in rubrics.items() if any(m.positive for m in reply.find(comp.fix))}
    measure_signatures = {s for s, comp in rubrics.items() if any(m.positive for m in reply.find(comp.measurement))}

    named_any = strong | weak
    if reply.clauses and _opens_tentatively(reply):
        # "maybe the dataloader? the gpu idles at step start…": the opening guess sets the tone of what follows
        for e in evidence.values():
            if not e.asserted_in:
                e.confident = False
    named = _choose(committed, evidence)
    committed_to = named if named is not None and evidence[named].decided and evidence[named].confident else None
    # Checks and fixes that belong to signatures other than the one the reply commits to.
    elsewhere = (measure_signatures | fix_signatures) - {committed_to}
    undecided = sum(1 for e in evidence.values() if not e.decided)
    # A catalogue of diagnoses, checks and fixes with no committed favourite is stuffing; a long answer that weighs
    # several and lands on one is not.
    if _NETWORK.search(reply.text):  # NCCL knobs and the fabric: a hypothesis outside the ten, still a topic
        elsewhere = elsewhere | {"network"}
    topics = named_any | measure_signatures | fix_signatures | (elsewhere & {"network"})
    # Structural signals: checks or fixes from three or more signatures with no committed diagnosis; or several
    # diagnoses all offered as alternatives, each with its fix, and no "if it's X, do A" branch among the fixes.
    fix_branches = any(m.positive and m.conditional for comp in rubrics.values() for m in reply.find(comp.fix))
    check_branches = any(
        m.positive and m.conditional for comp in rubrics.values() for m in reply.find(comp.measurement)
    )
    if fix_branches or check_branches:
        # In "if it's X, do A" branches a tool or fix several signatures share ("ncu", "fuse") names none of them
        # in particular: a signature is a topic of its own only if some check or fix of it is in words of its own.
        real = {s for s in elsewhere | {committed_to} if s in rubrics}
        elsewhere = (_distinct_topics(reply, rubrics, real) | (elsewhere & {"network"})) - {committed_to}
    offered_with_fixes = (
        len(named_any) >= 2
        and undecided == len(named_any)
        and len((fix_signatures | measure_signatures) & named_any) >= 2
        and len(fix_signatures & named_any) >= 1
        and not fix_branches
        and not check_branches
    )
    stuffing = (
        committed_to is None
        and len(topics) >= 3
        and (
            (len(elsewhere - {"network"}) >= STUFFED_TOPICS - 1 and undecided == len(named_any) and not fix_branches)
            or len(elsewhere) >= STUFFED_TOPICS
            or (len(elsewhere) >= STUFFED_TOPICS - 1 and (len(named_any) >= 3 or undecided >= 1))
            or (len(named_any) >= 2 and _list_like(answer))
            or (
                len(elsewhere) + len(named_any) >= 3
                and (len(named_any) != 1 or undecided >= 1)
                and _longest_enumeration(answer) >= ENUMERATION
            )
        )
        and len(answer.split()) <= WORDS_PER_TOPIC * max(len(elsewhere), len(named_any))
    )
    # The plain shape of a catalogue, whatever its prose: two or more diagnoses named, checks or fixes spanning four
    # signatures, no committed favourite, and too few words to weigh them ("healthy" is a foil, not a topic).
    spread = (named_any | measure_signatures | fix_signatures) - {"healthy"}
    catalogue = (
        committed_to is None
        and len(named_any - {"healthy"}) >= 2
        and len(spread) >= CATALOGUE_TOPICS
        and len(answer.split()) <= CATALOGUE_WORDS_PER_TOPIC * len(topics)
    )
    # A verdict up front does not license a catalogue after it: "it's X; could also be Y; worth ruling out Z …"
    # with checks or fixes for three other signatures, at a few words each, is the same list with a header.
    touched = named_any | measure_signatures | fix_signatures
    after_verdict = touched - {committed_to, "healthy"}
    headed_catalogue = (
        committed_to is not None
        and bool(named_any - {committed_to, "healthy"})
        and len(after_verdict) >= STUFFED_TOPICS - 1
        and len(answer.split()) <= HEADED_CATALOGUE_WORDS_PER_TOPIC * len(touched)
    )
    stuffing = stuffing or catalogue or headed_catalogue or (committed_to is None and offered_with_fixes)
    if stuffing:
        notes.append("Reads as a list of several diagnoses; commit to one and say why.")
        zero = (
            PartResult(0.0, None, rubric.signature.hint, "several signatures named"),
            PartResult(0.0, None, rubric.measurement.hint),
            PartResult(0.0, None, rubric.fix.hint),
        )
        return Grade(signature, *zero, 0.0, None, 0.0, tuple(notes))

    sig_part = _signature_part(
        signature, rubric.twin, rubric.tell, rubric.signature.hint, committed, named, evidence, reply.hedged
    )
    meas_part = _plain_part(reply.find(target.measurement), rubric.measurement.hint, several)
    fix_part = _fix_part(reply.find(target.fix), reply.find(target.wrong_fix), rubric.fix.hint, several)

    earned = (
        PART_WEIGHTS["signature"] * sig_part.credit
        + PART_WEIGHTS["measurement"] * meas_part.credit
        + PART_WEIGHTS["fix"] * fix_part.credit
    )
    bonus = 0.0
    if earned > 0:
        bonus = _number_bonus(quantities(answer), figures, rubric.quantities, notes)
    score = round(min(1.0, earned + bonus), 4)
    return Grade(signature, sig_part, meas_part, fix_part, score, named, bonus, tuple(notes))


_NETWORK = re.compile(r"\bnccl_(?!debug\b)[a-z_]+|\bibstat\b|\bnccl-tests\b|\bnetwork\b|\bfabric\b|\broce\b")
_SENTENCE = re.compile(r"[.;:!?\n]+(?:\s|$)|\s[-–—]+\s")
_ITEM_SEPARATOR = re.compile(r",(?!\d{3})|\s/\s|(?<=[a-z_)])/(?=[a-z])|\s+or\s+")
ENUMERATION = 4  # "X, Y, Z or W": a sentence of this many items is a list


def _longest_enumeration(answer: str) -> int:
    """The most items any one sentence lists (separated by commas, slashes, "or", "and")."""
    return max((len(_ITEM_SEPARATOR.split(s)) for s in _SENTENCE.split(answer.lower())), default=0)


_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.)])\s+", re.MULTILINE)


def _list_like(answer: str) -> bool:
    """A reply that is mostly bullet items or slash/comma lists of short words reads as buzzwords."""
    lines = [ln for ln in answer.splitlines() if ln.strip()]
    bullets = len(_BULLET.findall(answer))
    if bullets >= 3 and bullets >= 0.6 * len(lines):
        return True
    items = re.split(r"[,/|]", answer)
    return len(items) >= 5 and sum(len(i.split()) <= 3 for i in items) >= 0.7 * len(items)


@dataclass(slots=True)
class _Evidence:
    strength: float  # 1 = named, 0.5 = only a symptom described
    first: Match  # the strongest first positive match, quoted in feedback
    clauses: set[int]  # clauses holding a positive match of that strength
    asserted_in: set[int]  # clauses that name it and commit ("it's …", "my bet …", "root cause …")
    confident: bool  # never hedged, or asserted outright somewhere ("it's …" without a "maybe")
    decided: bool  # some match is not offered as one of several possibilities
    first_at: int  # the first clause that names it


_COMMIT = re.compile(
    r"(?:^\W*its\b|\b(?:it's|it is|this is|that'?s|that is|i'?d (?:go|bet|say|call)|"
    r"my (?:bet|money|call|verdict|answer|diagnosis|read|guess is|leading hypothesis|pick|vote)|verdict|diagnosis|"
    r"conclusion|final answer|most likely|"
    r"root cause|culprit|definitely|clearly|going with|go with|pretty sure|confident|bottom line|tl;?dr|"
    r"the (?:real|actual) (?:problem|issue|cause)|the problem is|the issue is|what'?s happening|you have|we have|"
    r"classic|textbook|(?:put|bet) (?:my|the) money|i lean|leaning|points? to|convinced|must be|has to be|"
    r"so the answer|the answer is|i'?m calling|call it|confirms?|diagnos\w+)\b)"
)


def _evidence(
    reply: Reply, rubrics: dict[str, CompiledRubric], *, skip_tools: bool = False, several: bool = False
) -> dict[str, _Evidence]:
    """Per signature: how strongly and how often the reply claims it (negated mentions do not count). With
    `skip_tools`, words that only name one of its checks or fixes do not count as naming it."""
    out: dict[str, _Evidence] = {}
    for sig, comp in rubrics.items():
        # Words that name this signature's check or fix ("bubble fraction", "interleaved 1F1B") are not a diagnosis.
        tools: dict[int, set[int]] = {}
        for m in (*reply.find(comp.measurement), *reply.find(comp.fix)):
            tools.setdefault(m.at[0], set()).update(m.span)
        for m in reply.find(comp.signature, naming=True):
            if not m.positive or (skip_tools and m.span <= tools.get(m.at[0], set())):
                continue
            at = m.at[0]
            offered = m.alternative or (several and m.conditional)
            asserted = reply.memo.get(("commit", at))
            if asserted is None:
                asserted = reply.memo[("commit", at)] = bool(_COMMIT.search(m.clause.text))
            asserted = asserted and not m.conditional  # "if it's a malloc, …" is a branch, not a verdict
            e = out.get(sig)
            if e is None or m.phrase.weight > e.strength:
                out[sig] = _Evidence(
                    m.phrase.weight,
                    m,
                    {at},
                    {at} if asserted and not m.hedged else set(),
                    not m.hedged,
                    not offered,
                    at if e is None else min(at, e.first_at),
                )
            elif m.phrase.weight == e.strength:
                e.clauses.add(at)
                if asserted and not m.hedged:
                    e.asserted_in.add(at)
                if e.first.hedged and not m.hedged:
                    e.first = m
                if asserted and not m.hedged:
                    e.confident = True  # an outright assertion anywhere commits
                elif at < e.first_at:  # otherwise the diagnosis stands or falls with its first statement
                    e.confident = not m.hedged
                e.first_at = min(e.first_at, at)
                e.decided = e.decided or not offered
    return out


def _distinct_topics(reply: Reply, rubrics: dict[str, CompiledRubric], signatures: set[str]) -> set[str]:
    """The signatures among these with a positive check or fix in words no other signature's check or fix uses."""
    spans = {
        s: {(m.at[0], m.span) for m in (*reply.find(rubrics[s].measurement), *reply.find(rubrics[s].fix)) if m.positive}
        for s in signatures
    }
    return {s for s in signatures if any(all(k not in spans[o] for o in signatures if o != s) for k in spans[s])}


def _opens_tentatively(reply: Reply) -> bool:
    """The reply's first clause is a guess ("maybe a sync?", "I think it's probably fine?")."""
    return bool(_OPENING_GUESS.search(reply.clauses[0].text))


_OPENING_GUESS = re.compile(
    r"^\W*(?:maybe|perhaps|possibly|probably|prob|might be|could be|i think|i suspect|i guess|my guess|not sure|"
    r"looks like maybe|i'?d guess)\b|\?\s*$"
)


def _choose(committed: set[str], evidence: dict[str, _Evidence]) -> str | None:
    """The one signature the reply commits to, if it does: the only one named, or the one with clearly the most
    support (clauses that name it, counting double where the clause commits: "it's …", "my bet …")."""
    if len(committed) == 1:
        return next(iter(committed))
    if not committed:
        return None
    support = {s: len(evidence[s].clauses) + 2 * len(evidence[s].asserted_in) for s in committed}
    ranked = sorted(committed, key=lambda s: support[s], reverse=True)
    top, second = support[ranked[0]], support[ranked[1]]
    if top >= second + 2 or (top > second and top >= 1.5 * second):
        return ranked[0]
    return None


def _signature_part(
    signature: str,
    twin: str | None,
    tell: str,
    hint: str,
    committed: set[str],
    named: str | None,
    evidence: dict[str, _Evidence],
    hedged: bool,
) -> PartResult:
    if named == signature:
        e = evidence[signature]
        if not e.decided:
            return PartResult(0.0, e.first.quote(), hint, "offered as one of several possibilities; commit to one")
        if not e.confident:
            return PartResult(0.5, e.first.quote(), hint, "hedged")
        return PartResult(1.0, e.first.quote(), hint)
    if named is None and signature in committed:
        quote = evidence[signature].first.quote()
        others = ", ".join(sorted(committed - {signature}))
        if hedged:
            return PartResult(0.0, quote, hint, f"hedged between this and {others} without committing")
        if all(evidence[signature].first_at < evidence[s].first_at for s in committed - {signature}):
            # Level support and no hedge: the reply leads with its diagnosis; later mentions are side remarks.
            return PartResult(1.0, quote, hint, f"also mentions {others}")
        return PartResult(0.5, quote, hint, f"also named {others}; commit to one")
    if twin is not None and named == twin:
        return PartResult(0.0, evidence[twin].first.quote(), hint, f"that is the twin — {tell}")
    if named is not None:
        return PartResult(0.0, evidence[named].first.quote(), hint, "a different signature")
    if twin is not None and twin in committed:
        return PartResult(0.0, evidence[twin].first.quote(), hint, f"that is the twin — {tell}")
    if committed:
        return PartResult(0.0, evidence[sorted(committed)[0]].first.quote(), hint, "a different signature")
    return PartResult(0.0, None, hint)


def _plain_part(matches: list[Match], hint: str, several: bool = False) -> PartResult:
    """A check or fix: ½ when tentative, or when it is one branch of "if it's X do A, if it's Y do B"."""
    positive = [m for m in matches if m.positive]
    if not positive:
        return PartResult(0.0, None, hint)

    def tentative(m: Match) -> bool:
        return m.hedged or (several and m.conditional)

    best = next((m for m in positive if not tentative(m)), positive[0])
    return PartResult(0.5 if tentative(best) else 1.0, best.quote(), hint, "hedged" if tentative(best) else "")


def _fix_part(right: list[Match], wrong: list[Match], hint: str, several: bool = False) -> PartResult:
    part = _plain_part(right, hint, several)
    wrong_positive = [m for m in wrong if m.positive]
    if wrong_positive and part.credit > 0:
        # A fix from another problem alongside the right one is not a committed fix; as branches of
        # "if it's X do A, if it's Y do B" the right one among them earns half.
        branches = part.credit < 1.0 or any(m.positive and m.conditional for m in right)
        credit = 0.5 if branches else 0.0
        note = f"also proposes “{wrong_positive[0].quote()}”, which belongs to another problem"
        return PartResult(credit, part.evidence, hint, note)
    if wrong_positive:
        return PartResult(0.0, wrong_positive[0].quote(), hint, "that fix belongs to another problem")
    return part


_UNIT_SCALE = {
    ("ms", "ms"): 1.0,
    ("s", "ms"): 1000.0,
    ("us", "ms"): 0.001,
    ("us", "us"): 1.0,
    ("ms", "us"): 1000.0,
    ("%", "%"): 1.0,
    ("gb/s", "gb/s"): 1.0,
    ("x", "x"): 1.0,
    ("", ""): 1.0,
}


def _number_bonus(stated: list[Quantity], figures: dict[str, float], checks: list[Any], notes: list[str]) -> float:
    bonus = 0.0
    matched: set[str] = set()
    for q in stated:  # each stated number counts once, for the figure it is closest to
        best: tuple[float, str] | None = None
        for check in checks:
            truth = figures.get(check.figure)
            scale = _UNIT_SCALE.get((q.unit, check.unit))
            if truth is None or scale is None or truth == 0 or check.figure in matched:
                continue
            error = abs(q.value * scale - truth) / abs(truth)
            if error <= check.tolerance and (best is None or error < best[0]):
                best = (error, check.figure)
        if best is not None:
            matched.add(best[1])
            notes.append(f"“{q.text.strip()}” matches this trace ({best[1].replace('_', ' ')}).")
    bonus += NUMBER_BONUS * min(len(matched), 2)
    if not matched and _consistent_arithmetic(stated):
        bonus += CONSISTENT_ARITHMETIC_BONUS
        notes.append("Your numbers are internally consistent.")
    return bonus


def _consistent_arithmetic(stated: list[Quantity]) -> bool:
    """A part, a whole and the percentage between them that agree (e.g. 175 ms of 620 ms = 28%)."""
    times = [q.value for q in stated if q.unit == "ms"]
    percents = [q.value for q in stated if q.unit == "%"]
    return any(abs(100.0 * a / b - p) <= 2.0 for a in times for b in times if b > a > 0 for p in percents)
