"""Scoring a reply against the true signature: three parts, a numbers bonus, and the rules of fairness.

Rules (../shared/domain/signatures.md): each part is earned independently; naming the twin (and not the
signature) earns 0 with the twin's tell as feedback; a rejected hypothesis followed by a commitment earns the
signature; hedging between signatures earns 0; three or more signatures, or a buzzword list, earns nothing.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..scenarios.ids import SIGNATURE_IDS
from ..scenarios.model import Scenario
from .bonus import number_bonus
from .catalogue import is_catalogue
from .evidence import Claims, observed_then_weighed, read_claims
from .matcher import Match, Reply
from .model import Grade, PartResult
from .polarity import SAME_BRANCH, offers_alternatives, on_guess
from .rubric import PART_WEIGHTS, Rubric
from .rulebook import CompiledRubric, compiled
from .text import quantities

MAX_ANSWER_CHARS = 4000  # longer replies are graded on their first 4,000 characters, and told so


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
    reply = Reply.parse(answer)
    if not reply.clauses:
        notes.append("Nothing to grade: the reply has no words.")
        return _nothing(signature, target.rubric, notes)
    claims = read_claims(reply, rubrics)
    if is_catalogue(reply, rubrics, answer, claims):
        notes.append("Reads as a list of several diagnoses; commit to one and say why.")
        return _nothing(signature, target.rubric, notes, "several signatures named")
    return _scored(signature, target, reply, claims, answer, figures, notes)


def _nothing(signature: str, rubric: Rubric, notes: list[str], why: str = "") -> Grade:
    parts = (
        PartResult(0.0, None, rubric.signature.hint, why),
        PartResult(0.0, None, rubric.measurement.hint),
        PartResult(0.0, None, rubric.fix.hint),
    )
    return Grade(signature, *parts, 0.0, None, 0.0, tuple(notes))


def _scored(
    signature: str,
    target: CompiledRubric,
    reply: Reply,
    claims: Claims,
    answer: str,
    figures: dict[str, float],
    notes: list[str],
) -> Grade:
    rubric = target.rubric
    sig_part = _signature_part(signature, rubric, claims, reply)
    # "either X or something else; if it's X, check A": a diagnosis offered as one possibility makes its checks and
    # fixes branches, whether or not the other possibility is one of the ten
    offered = (*reply.find(target.measurement), *reply.find(target.fix))
    rivals = _rival_clauses(reply, target, signature) if any(m.alternative for m in offered) else frozenset()
    own = claims.evidence.get(signature)
    guessed = own is not None and not own.confident
    weighs = _Weighing(claims.several or claims.undecided > 0, rivals, _branching(reply, target), guessed)
    # a check offered while the reply stays open between this diagnosis and another ("either X or Y; I'd run A")
    # is the check of one possibility among several, even when it is the check that would tell them apart
    open_between = (
        own is not None
        and (not own.decided or _weighs_options(reply))
        and sig_part.credit == 0.0
        and _checks_each(reply, target)
    )
    meas_part = _plain_part(reply.find(target.measurement), rubric.measurement.hint, weighs._replace(open=open_between))
    fix_part = _fix_part(reply.find(target.fix), reply.find(target.wrong_fix), rubric.fix.hint, weighs)
    earned = (
        PART_WEIGHTS["signature"] * sig_part.credit
        + PART_WEIGHTS["measurement"] * meas_part.credit
        + PART_WEIGHTS["fix"] * fix_part.credit
    )
    bonus = 0.0
    if earned > 0:
        bonus = number_bonus(quantities(answer), figures, rubric.quantities, notes)
    score = round(min(1.0, earned + bonus), 4)
    return Grade(signature, sig_part, meas_part, fix_part, score, claims.named, bonus, tuple(notes))


def _signature_part(signature: str, rubric: Rubric, claims: Claims, reply: Reply) -> PartResult:
    hint, twin, named, committed, evidence = (
        rubric.signature.hint,
        rubric.twin,
        claims.verdict or claims.named,
        claims.committed,
        claims.evidence,
    )
    if signature in evidence and (named == signature or (named is None and signature in committed)):
        e = evidence[signature]
        if observed_then_weighed(reply, compiled(), e, signature):
            return PartResult(0.0, e.first.quote(), hint, "offered as one of several possibilities; commit to one")
    if named == signature:
        e = evidence[signature]
        if not e.decided:
            return PartResult(0.0, e.first.quote(), hint, "offered as one of several possibilities; commit to one")
        if not e.confident:
            return PartResult(0.5, e.first.quote(), hint, "hedged")
        return PartResult(1.0, e.first.quote(), hint)
    if named is None and signature in committed:
        return _level(signature, hint, claims, reply)
    if twin is not None and (named == twin or (named is None and twin in committed)):
        return PartResult(0.0, evidence[twin].first.quote(), hint, f"that is the twin — {rubric.tell}")
    if named is not None:
        return PartResult(0.0, evidence[named].first.quote(), hint, "a different signature")
    if committed:
        return PartResult(0.0, evidence[sorted(committed)[0]].first.quote(), hint, "a different signature")
    return PartResult(0.0, None, hint)


def _level(signature: str, hint: str, claims: Claims, reply: Reply) -> PartResult:
    """The signature is named beside others, none with clearly more support."""
    evidence, others_named = claims.evidence, claims.committed - {signature}
    quote = evidence[signature].first.quote()
    others = ", ".join(sorted(others_named)) or "another possibility"
    if not others_named and not _weighs_options(reply):
        # "maybe healthy? I'd check the metrics rows first": offered tentatively, but as the only candidate — no
        # other diagnosis, named or not, was put beside it ("either launch-bound or the kernels are slow" was)
        return PartResult(0.5, quote, hint, "hedged")
    if reply.hedged:
        return PartResult(0.0, quote, hint, f"hedged between this and {others} without committing")
    if not evidence[signature].decided:
        # "malloc? sync? nccl?": offered only as one candidate among others, it was never put forward
        return PartResult(0.0, quote, hint, "offered as one of several possibilities; commit to one")
    if not others_named and not _said_plainly(reply, signature, evidence[signature].strength):
        # "nothing I can find … I'd lean toward healthy … so, tentatively healthy": it is the only candidate, but
        # never said without a hedge or a condition ("alloc or sync? the bar says cudaMalloc, so the allocator" is)
        return PartResult(0.5, quote, hint, "hedged")
    if not others_named:
        return PartResult(1.0, quote, hint)
    if all(evidence[signature].first_at < evidence[s].first_at for s in others_named):
        # Level support and no hedge: the reply leads with its diagnosis; later mentions are side remarks ("my
        # leading hypothesis is X, though there's a fair chance it's Y": a lead only as sure as its own words)
        if not evidence[signature].confident:
            return PartResult(0.5, quote, hint, f"hedged; also mentions {others}")
        return PartResult(1.0, quote, hint, f"also mentions {others}")
    return PartResult(0.5, quote, hint, f"also named {others}; commit to one")


def _said_plainly(reply: Reply, signature: str, strength: float) -> bool:
    """Some mention of the signature, as strong as its best, is neither hedged, nor a condition, nor an option."""
    return any(
        m.positive and m.phrase.weight >= strength and not (m.hedged or m.conditional or m.alternative)
        for m in reply.find(compiled()[signature].signature)
    )


def _weighs_options(reply: Reply) -> bool:
    """A clause that names a diagnosis, or asks, offers possibilities side by side ("either launch-bound or the kernels
    are just slow", "could be memory bound, could be fine", "a sync maybe, hard to tell", "is DDP wrapping it or is this
    a hand-rolled all-reduce?"); "drop the sync, or log every N steps" weighs remedies, not diagnoses."""
    if reply.undecided:
        return True
    naming = {m.at[0] for comp in compiled().values() for m in reply.find(comp.signature) if m.positive}
    return any(offers_alternatives(c.text) for k, c in enumerate(reply.clauses) if k in naming or c.text.endswith("?"))


class _Weighing(NamedTuple):
    several: bool  # several diagnoses in play: "if it's X, do A" is one branch
    rivals: frozenset[int]  # the clauses that weigh another diagnosis
    branching: bool = False  # the diagnosis is only ever a branch: a check or fix in a condition is that branch's
    guessed: bool = False  # the diagnosis is offered as a guess: a fix that waits on it ("if so, …") is as tentative
    open: bool = False  # the reply never commits between this diagnosis and another: its check is one branch's


_NONE = _Weighing(False, frozenset())
# A second branch: "if they don't, it's host jitter", "otherwise count the kernels", "if they're all equal, …"
# ("if so", "if confirmed" carry on with the same branch)
_BRANCHES = re.compile(
    r"\b(?:if|when|unless)\b" + SAME_BRANCH + r".*\b(?:if|when|unless)\b" + SAME_BRANCH + r"|\botherwise\b|\bor else\b",
    re.DOTALL,
)


def _branching(reply: Reply, target: CompiledRubric) -> bool:
    """The reply names the diagnosis only as a guess or a condition's consequence, beside another branch ("if the
    spikes line up with long prompts it's prefill blocking decode, if they don't it's host jitter"; "either rank 3 is
    slow or the fabric is … if one is longer it's a straggler, if they're all equal it's the interconnect"): it has not
    committed, so a check or fix it makes conditional is one branch's, whether or not the other hypothesis is among
    the ten. (The check that tells the branches apart is not itself conditional: "time each rank's backward" earns
    it.)"""
    own = [m for m in reply.find(target.signature) if m.positive]
    offered = all(m.conditional or m.alternative or m.hedged for m in own)
    return bool(own) and offered and bool(_BRANCHES.search(reply.text))


def _rival_clauses(reply: Reply, target: CompiledRubric, signature: str) -> frozenset[int]:
    """The clauses that name another diagnosis, or offer another one's check or fix in words of its own ("either
    scatter ITL …, or check one TP rank's clocks"): "or" there weighs diagnoses. A reply that will not commit weighs
    them everywhere."""
    if reply.undecided:
        return frozenset(range(len(reply.clauses)))
    own = [(m.at[0], m.span) for m in (*reply.find(target.measurement), *reply.find(target.fix)) if m.positive]
    rivals: set[int] = set()
    for sig, comp in compiled().items():
        if sig == signature:
            continue
        rivals.update(m.at[0] for m in reply.find(comp.signature) if m.positive)
        for m in (*reply.find(comp.measurement), *reply.find(comp.fix)):
            if m.positive and not any(at == m.at[0] and m.span <= span for at, span in own):
                rivals.add(m.at[0])
    return frozenset(rivals)


# A second check joined to the first ("…, and also look for cudaMalloc", "and separately run ncu", "for the other one,
# …"): the reply checks each possibility in turn
_SECOND_CHECK = re.compile(r"\b(?:also|separately|as well)\b|\bfor the other\b")


def _checks_each(reply: Reply, target: CompiledRubric) -> bool:
    """The right check is one of several offered side by side, joined by "also" or "separately", in its clause or
    the next."""
    near = {k for m in reply.find(target.measurement) if m.positive for k in (m.at[0], m.at[0] + 1)}
    return any(_SECOND_CHECK.search(reply.clauses[k].text) for k in near if k < len(reply.clauses))


# The branches meet: "either way the fix is on that rank", "whichever it is, drain the node", "in both cases …" (at
# a clause's start or after ; or ,) — the check or fix said there holds on every branch, so it is not one branch's
_EITHER_WAY = re.compile(
    r"(?:^\W*|[;,]\s*)(?:either way|whichever(?: one)? it is|in both cases|in either case|both ways)\b"
)


def _tentative(m: Match, weighs: _Weighing) -> bool:
    """A check or fix offered without conviction, or as one branch among several diagnoses ("if it's X, do A",
    "either X or Y — ncu will tell", "either count the NCCL kernels or compare per-rank times"); "bump the
    micro-batch or fuse", between two remedies of one diagnosis, is a choice, not a doubt."""
    if not m.hedged and not m.conditional and _EITHER_WAY.search(m.clause.text):
        return False
    return (
        m.hedged
        or weighs.open
        or (weighs.branching and (m.conditional or m.alternative))
        or (weighs.guessed and on_guess(m.clause))
        or (weighs.several and m.conditional)
        or (m.alternative and m.at[0] in weighs.rivals)
    )


def _plain_part(matches: list[Match], hint: str, several: _Weighing = _NONE) -> PartResult:
    """A check or fix: ½ when tentative, or when it is one branch of "if it's X do A, if it's Y do B"."""
    positive = [m for m in matches if m.positive]
    if not positive:
        return PartResult(0.0, None, hint)
    best = next((m for m in positive if not _tentative(m, several)), positive[0])
    tentative = _tentative(best, several)
    return PartResult(0.5 if tentative else 1.0, best.quote(), hint, "hedged" if tentative else "")


def _fix_part(right: list[Match], wrong: list[Match], hint: str, several: _Weighing = _NONE) -> PartResult:
    part = _plain_part(right, hint, several)
    wrong_positive = [m for m in wrong if m.positive]
    if wrong_positive and part.credit > 0:
        # A fix from another problem alongside the right one is not a committed fix; as branches of
        # "if it's X do A, if it's Y do B" the right one among them earns half.
        branches = part.credit < 1.0 or any(m.positive and (m.conditional or m.alternative) for m in right)
        credit = 0.5 if branches else 0.0
        note = f"also proposes “{wrong_positive[0].quote()}”, which belongs to another problem"
        return PartResult(credit, part.evidence, hint, note)
    if wrong_positive:
        return PartResult(0.0, wrong_positive[0].quote(), hint, "that fix belongs to another problem")
    return part
