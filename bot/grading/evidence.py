"""Which signatures a reply claims, how firmly, and the one it commits to (if any)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .boundary import compile_hoisted
from .matcher import Match, Reply
from .polarity import HEDGE, RHETORICAL, SAME_BRANCH, SELF_CORRECTION
from .rulebook import CompiledRubric
from .wordgate import WordGate, words

_COMMIT = re.compile(
    r"(?:^\W*its (?:a|an|the|just|clearly|definitely|def|probably|totally|100%|all|not|classic|textbook)\b"
    r"|\b(?:it's|it is|this is|that'?s|that is|i'?d (?:go|bet|say|call)|"
    r"my (?:bet|money|call|verdict|answer|diagnosis|read|guess is|leading hypothesis|pick|vote)|verdict|diagnosis|"
    r"conclusion|final answer|most likely|i'?ll (?:say|go with|call it|bet)|(?:i'?m )?(?:going to|gonna) (?:say|go with"
    r"|call it)|"
    r"root cause|culprit|definitely|clearly|going with|go with|pretty sure|confident|bottom line|tl;?dr|"
    r"the (?:real|actual) (?:problem|issue|cause)|the problem is|the issue is|what'?s happening|you have|we have|"
    r"classic|textbook|(?:put|bet) (?:my|the) money|i lean|leaning|points? to|convinced|must be|has to be|"
    r"so the answer|the answer is|i'?m calling|call it|confirms?|diagnos\w+|i'?ll commit|committing to|here it'?s|"
    r"here is)\b"
    r"|(?:^\W*|,\s*)is (?:a|an|the)\b)"
)
_COMMIT_WORDS = WordGate(_COMMIT)  # skipped on a clause holding none of its words
_OPENING_GUESS = compile_hoisted(
    r"^\W*(?:maybe|perhaps|possibly|probably|prob|might be|could be|i think|i suspect|i guess|my guess|not sure|"
    r"looks like maybe|i'?d guess)\b|\?\s*$"
)


# An opening question that asks for a figure ("what's DRAM throughput in ncu?") guesses nothing; nor do questions the
# reply answers itself ("idle at step start? stuck in next()? yes and yes").
_ASKS_FOR = re.compile(r"^\W*(?:(?:so|ok|okay|hmm+|and)\W+)?(?:what|what'?s|which|how|where|when|who)\b")
_ANSWERED = re.compile(r"^\W*(?:yes|yep|yeah|yup|it does|they do|correct|exactly|both|and it is|no|nope|nah)\b")


def _asked_not_guessed(reply: Reply, opening: int, rubrics: dict[str, CompiledRubric]) -> bool:
    """The opening question asks for a figure or is answered by the reply, which hedges nowhere: "yes and yes", or
    it goes on to deny candidates ("healthy? launch-bound? memory-bound? … so not launch-bound …")."""
    clauses = reply.clauses
    if reply.hedged:
        return False
    if _ASKS_FOR.search(clauses[opening].text):
        return True
    if not clauses[opening].text.endswith("?"):
        return False
    after = (c.text for c in clauses[opening + 1 : opening + 4])
    return any(_ANSWERED.search(t) for t in after) or any(
        denies(m) and m.at[0] > opening for comp in rubrics.values() for m in reply.find(comp.signature)
    )


@dataclass(slots=True)
class Evidence:
    """How one signature is named in a reply (built while reading its matches in order)."""

    strength: float  # 1 = named, 0.5 = only a symptom described
    first: Match  # the strongest first positive match, quoted in feedback
    clauses: set[int]  # clauses holding a positive match of that strength
    asserted_in: set[int]  # clauses that name it and commit ("it's …", "my bet …", "root cause …")
    confident: bool  # never hedged, or asserted outright somewhere ("it's …" without a "maybe")
    decided: bool  # some match is not offered as one of several possibilities
    first_at: int  # the first clause that names it
    first_offered: bool = False  # first named only in a list of candidates
    outright: bool = False  # called by one of its own names, as a verdict ("it's a sync stall", "allocator stall, …")
    by_name: bool = False  # called by one of its own names, not offered as a candidate (hedged or not)

    def add(self, m: Match, asserted: bool, offered: bool) -> None:
        """Another positive match of the same strength."""
        at = m.at[0]
        self.clauses.add(at)
        if asserted and not m.hedged:
            self.asserted_in.add(at)
        if self.first.hedged and not m.hedged:
            self.first = m
        if (asserted or self.first_offered) and not m.hedged:
            # an outright assertion anywhere commits; so does a plain statement after the name was first only
            # listed among candidates ("three suspects: X, Y, Z … it's Z")
            self.confident = True
        elif at < self.first_at:  # otherwise the diagnosis stands or falls with its first statement
            self.confident = not m.hedged
        self.first_at = min(self.first_at, at)
        self.decided = self.decided or not offered


@dataclass(frozen=True, slots=True)
class Claims:
    """What a reply says the problem is."""

    evidence: dict[str, Evidence]  # per signature named
    several: bool  # several diagnoses in play: "if it's X" offers X as one branch
    named_any: frozenset[str]  # every signature named, strongly or by a symptom only
    committed: frozenset[str]  # the signatures named by name, or else those named by a symptom
    named: str | None  # the one the reply chooses, if it does
    committed_to: str | None  # … and commits to: decided and not hedged
    undecided: int  # signatures named only as possibilities
    verdict: str | None = None  # the one diagnosis among several called by its own name as a verdict


def read_claims(reply: Reply, rubrics: dict[str, CompiledRubric]) -> Claims:
    commits: dict[int, bool] = {}  # per clause: it commits ("it's …", "my money is on …"), read once
    evidence = _as_cause(reply, rubrics, _evidence(reply, rubrics, commits)) or _implied(reply, rubrics)
    restart, kept = _corrected(reply, rubrics)
    evidence = _retract(evidence, kept)
    # with several diagnoses in play, "if it's X" offers X as one branch; so with two branches when X is named only in
    # branches or as an alternative ("if the spikes track long prompts it's prefill blocking; if not, host jitter")
    several = len(evidence) >= 2 or (bool(evidence) and _only_in_branches(reply, rubrics, evidence))
    if several:  # the ones named only inside a check or a fix step back
        again = _evidence(reply, rubrics, commits, skip_tools=True, several=True)
        evidence = _retract(_as_cause(reply, rubrics, again), kept) or evidence
    _pick_by_reference(reply, rubrics, evidence)
    strong = frozenset(s for s, e in evidence.items() if e.strength >= 1.0)
    weak = frozenset(s for s, e in evidence.items() if e.strength < 1.0)
    # a name offered only as a possibility ("sometimes the allocator does this") does not outrank a symptom the reply
    # commits to ("it's the loader"): then both are in play and support decides
    firm_weak = frozenset(s for s in weak if evidence[s].asserted_in)
    if not strong:
        committed = weak
    elif any(evidence[s].decided for s in strong) or not firm_weak:
        committed = strong
    else:
        committed = strong | firm_weak
    opening = reply.clauses[restart].text
    if (
        _OPENING_GUESS.search(opening)
        and not RHETORICAL.search(opening)
        # "any gaps? ~3% … so it's fine. healthy.": an opening question that names nothing, before a verdict the
        # reply asserts, guesses nothing
        and (not any(e.asserted_in for e in evidence.values()) or _names_any(reply, rubrics, restart))
        and not _asked_not_guessed(reply, restart, rubrics)
    ):
        # "maybe the dataloader? the gpu idles at step start…": the opening guess sets the tone of what follows
        for e in evidence.values():
            if not e.asserted_in:
                e.confident = False
    verdicts = frozenset(s for s in committed if evidence[s].decided and evidence[s].asserted_in)
    decided = frozenset(s for s in committed if evidence[s].decided)
    if len(verdicts) == 1 and all(not evidence[s].decided for s in committed - verdicts):
        # names only offered as candidates step back for the one the reply goes on to give as its verdict
        committed = verdicts
    elif len(decided) == 1 and len(committed) > 1 and _settles_on(evidence[next(iter(decided))], evidence, committed):
        # "two options: cudaMalloc or a synchronize … it's cudaStreamSynchronize": the one it settles on
        committed = decided
    if "healthy" in committed and (
        _clean_timeline_first(evidence, committed)
        or _healthy_in_part(evidence, committed)
        # "the GPU is ~95% busy throughout", "wall-to-wall": health named only by a symptom beside another diagnosis is
        # part of that one's picture (prefill blocking decode, a memory-bound kernel), not a verdict that all is well
        or (evidence["healthy"].strength < 1.0 and len(committed) > 1)
    ):
        # "the timeline is clean, so I look at the top kernel: it's memory-bound": a clean timeline is the first
        # step of reading order, not a verdict beside the problem the reply goes on to find
        committed = committed - {"healthy"}
    named = (
        _choose(committed, evidence)
        or _unrejected(committed, reply, rubrics)
        or _most_said(committed, evidence, reply, rubrics)
    )
    chosen = evidence[named] if named is not None else None
    if (
        named is not None
        and chosen is not None
        and not (chosen.confident or chosen.asserted_in)
        and (
            any(e.first_offered for e in evidence.values())
            or any(m.positive and m.alternative and not m.conditional for m in reply.find(rubrics[named].signature))
        )
    ):
        # "maybe launch overhead? … or perhaps the allocator", "maybe a straggler? … the network or a slow rank":
        # a hedge between two, not a choice
        named = None
    firm = named is not None and evidence[named].decided and evidence[named].confident
    undecided = sum(1 for e in evidence.values() if not e.decided)
    # "with_stack shows loss.item() … allocator stall": of several diagnoses in play, the one called by its own name as
    # a verdict is the one the reply gives (used for the signature's credit, not to excuse a catalogue)
    outright = [s for s in committed if evidence[s].outright]
    verdict = outright[0] if len(outright) == 1 and len(committed) > 1 else None
    by_name = [s for s in committed if evidence[s].by_name]
    others = [s for s in committed if s not in by_name]
    if (
        verdict is None
        and len(by_name) == 1
        and len(committed) == 2  # the reply's name against a described twin
        and all(
            evidence[s].decided and not evidence[s].asserted_in and rubrics[s].rubric.signature.names for s in others
        )
    ):
        # "sync stall, there's a gap between every kernel": the one diagnosis called by its name is the answer; the
        # others are only described (hedged or not, the name is what the reply offers)
        verdict = by_name[0]
    return Claims(evidence, several, strong | weak, committed, named, named if firm else None, undecided, verdict)


# "if so", "if confirmed" confirm the one diagnosis; they open no other branch
_BRANCH = re.compile(r"(?:^|[,;]\s*)\W*(?:(?:if|when|unless)\b" + SAME_BRANCH + r"|otherwise\b|else\b)")
BRANCHES = 2  # "if …, it's X …, if not …": a diagnosis offered as one branch of two


def _only_in_branches(reply: Reply, rubrics: dict[str, CompiledRubric], evidence: dict[str, Evidence]) -> bool:
    """The reply opens two or more branches ("if …", "otherwise …"), and names its diagnoses only inside them or as
    one of alternatives: the other branch may be a cause outside the ten ("… if they don't, it's host jitter")."""
    if not all(
        m.conditional or m.alternative for s in evidence for m in reply.find(rubrics[s].signature) if m.positive
    ):
        return False  # the common case: a plain mention, decided without reading the branches
    return sum(len(_BRANCH.findall(c.text)) for c in reply.clauses) >= BRANCHES


# A diagnosis's trigger placed in another diagnosis's mechanism is that one's cause, not a rival: beside an all-reduce
# said to run exposed, "a torch.cuda.synchronize() after loss.backward()", "a grad hook that calls .item()" is why
# the gradient exchange waits for backward (its fix table: "remove a sync between backward and comm").
CAUSE_OF = {"sync_stall": "unoverlapped_allreduce"}
_BEHIND = ("backward", "gradient")  # where such a trigger sits: after backward, in a gradient hook


def _as_cause(reply: Reply, rubrics: dict[str, CompiledRubric], evidence: dict[str, Evidence]) -> dict[str, Evidence]:
    """The evidence without a diagnosis that is only the trigger of another the reply names: never called by its
    own name ("host sync stall after backward" is still a sync stall), and every mention placed after backward or in
    a gradient hook (in its clause or the next)."""
    dropped = [
        sig
        for sig, effect in CAUSE_OF.items()
        if sig in evidence
        and effect in evidence
        and all(
            not m.phrase.name and any(k in near for near in reply.index[m.at[0] : m.at[0] + 2] for k in _BEHIND)
            for m in reply.find(rubrics[sig].signature)
            if m.positive
        )
    ]
    return {s: e for s, e in evidence.items() if s not in dropped} if dropped else evidence


def _names_any(reply: Reply, rubrics: dict[str, CompiledRubric], at: int) -> bool:
    """Some diagnosis is named in this clause (or not named only because it is doubted or asked about)."""
    return any(m.at[0] == at for comp in rubrics.values() for m in reply.find(comp.signature))


def _corrected(reply: Reply, rubrics: dict[str, CompiledRubric]) -> tuple[int, frozenset[str] | None]:
    """Where the reply takes back what it said ("… no wait, …", "scratch that", "edit:"), and the signatures that
    stand: those named before the mark and not named again after it are withdrawn. (0, None) when nothing is."""
    marks = list(SELF_CORRECTION.finditer(reply.text))
    mark = marks[-1] if marks else None
    if mark is None or mark.start() == 0:
        return 0, None
    restart = _clause_at(reply, mark.end())
    if restart == 0:
        return 0, None
    later = frozenset(  # named outright after the mark (a shared symptom there does not keep a name alive)
        sig
        for sig, comp in rubrics.items()
        if any(m.positive and m.phrase.weight >= 1.0 and m.at[0] >= restart for m in reply.find(comp.signature))
    )
    earlier = frozenset(
        sig
        for sig, comp in rubrics.items()
        if any(m.positive and m.at[0] < restart for m in reply.find(comp.signature))
    )
    if earlier <= later or (not later and not _TAKES_BACK.search(mark.group())):
        # nothing withdrawn ("edit: added the per-rank times"), or a note with no new answer after it; "scratch
        # that — it's probably just the network" withdraws what came before even with no signature after it
        return 0, None
    return restart, frozenset(rubrics) - (earlier - later)


_TAKES_BACK = re.compile(r"scratch|strike|forget|ignore|take (?:that|it) back|no,? wait|wait,? no|actually,? no")


_IF_BEFORE = re.compile(r"\b(?:if|when|unless|assuming|in case|whether)\b")
_REFERENCE = re.compile(r"\b(?:the )?(latter|former)\b(?! (?:half|part|case|step|stage|rank))")


def _pick_by_reference(reply: Reply, rubrics: dict[str, CompiledRubric], evidence: dict[str, Evidence]) -> None:
    """ "Either the GPU is on vacation or you're launch-bound — probably the latter": the diagnosis the reply picks out
    of its own "X or Y" by reference is decided (hedged if the pick is)."""
    if "latter" not in reply.text and "former" not in reply.text:
        return
    for k, clause in enumerate(reply.clauses[1:], start=1):
        ref = _REFERENCE.search(clause.text)
        if ref is None or _IF_BEFORE.search(clause.text, 0, ref.start()):
            continue  # "if it's the former, …" is a branch, not a pick
        options = reply.clauses[k - 1]
        split = options.text.rfind(" or ")
        if split < 0:
            continue
        for sig, comp in rubrics.items():
            e = evidence.get(sig)
            if e is None or e.decided:
                continue
            for m in reply.find(comp.signature):
                after = options.tokens[m.at[1]].start > split
                if m.positive and m.at[0] == k - 1 and after == (ref.group(1) == "latter"):
                    e.decided = True
                    e.confident = not bool(HEDGE.search(clause.text))
                    e.first_offered = False
                    e.asserted_in.add(k)  # the pick is its verdict, hedged or not


def observed_then_weighed(reply: Reply, rubrics: dict[str, CompiledRubric], e: Evidence, signature: str) -> bool:
    """ "Many small gaps between kernels. Is it launch overhead, or syncs in the loop?": a diagnosis first met as a
    plain description of the trace, then put beside another as one of two options in one clause, and never asserted
    nor said plainly after that, is offered, not decided: the description is what the options explain. (Read for the
    signature's credit only: whether the reply is a list is the catalogue's question.)"""
    if not e.decided or e.asserted_in:
        return False
    offered_in: dict[str, set[int]] = {}
    plain_at: list[int] = []
    for sig, comp in rubrics.items():
        for m in reply.find(comp.signature):
            if not m.positive:
                continue
            if m.alternative and not m.conditional:
                offered_in.setdefault(sig, set()).add(m.at[0])
            elif sig == signature and not (m.hedged or m.conditional):
                plain_at.append(m.at[0])
    own = offered_in.get(signature, set())
    paired = [k for k in own if any(k in ks for s, ks in offered_in.items() if s != signature)]
    return bool(paired) and all(at < min(paired) for at in plain_at)


def _clause_at(reply: Reply, offset: int) -> int:
    """The first clause that ends after this offset of the reply's text (0 if the clauses cannot be located)."""
    at = 0
    for k, clause in enumerate(reply.clauses):
        found = reply.text.find(clause.quote.lower(), at)
        if found < 0:
            return 0
        at = found + len(clause.quote)
        if at > offset:
            return k
    return 0


def _retract(evidence: dict[str, Evidence], kept: frozenset[str] | None) -> dict[str, Evidence]:
    return evidence if kept is None else {s: e for s, e in evidence.items() if s in kept}


# Signatures whose verdict is itself their remedy: "nothing to fix at the timeline level", "what's left is inside the
# kernels" say the trace is healthy and what to do about it at once, so with several diagnoses in play these words
# still name it (a slow rank's "drain the node" names no straggler).
VERDICT_IS_REMEDY = frozenset({"healthy"})


def named_only_in_remedies(reply: Reply, rubrics: dict[str, CompiledRubric], claims: Claims) -> bool:
    """Every diagnosis the reply names is only the object of one of its own checks or fixes ("more dataloader
    workers", "time next()"): the reply names remedies, not a diagnosis."""
    return bool(claims.evidence) and not _evidence(reply, rubrics, {}, skip_tools=True)


_DIGIT = re.compile(r"\d")
IMPLIED_OTHER_TOPICS = 1  # one side remark with a check or fix of another signature


def _implied(reply: Reply, rubrics: dict[str, CompiledRubric]) -> dict[str, Evidence]:
    """A reply that names no diagnosis but quotes figures, runs one signature's confirming check and applies its
    fix ("cudaLaunchKernel 3,120 calls, 29.8 of the 31 ms step … capture it in a CUDA graph") has diagnosed it in
    numbers: that signature, when it is the only one with both a firm check and a firm fix."""
    if not _DIGIT.search(reply.text):
        return {}
    found: dict[str, Evidence] = {}
    spans: dict[str, set[tuple[int, frozenset[int]]]] = {}  # per signature, the words of its firm checks and fixes
    for sig, comp in rubrics.items():
        checks = [m for m in reply.find(comp.measurement) if _firm(m)]
        fixes = [m for m in reply.find(comp.fix) if _firm(m)]
        spans[sig] = {(m.at[0], m.span) for m in (*checks, *fixes)}
        if checks and fixes:
            m = checks[0]
            found[sig] = Evidence(0.5, m, {m.at[0]}, set(), True, True, m.at[0])
    if len(found) != 1:
        return {}
    mine = spans[next(iter(found))]

    def own_words(span: tuple[int, frozenset[int]]) -> bool:
        return not any(span[0] == at and span[1] <= words for at, words in mine)

    # a reply that also remedies other diagnoses in words of their own has diagnosed none of them
    others = sum(1 for s in spans.values() if any(own_words(x) for x in s))
    return found if others <= IMPLIED_OTHER_TOPICS else {}


LABEL_TOKENS = 4  # "host sync.", "Sync stall, mate.", "allocator stall, set expandable_segments"


def _label(m: Match) -> bool:
    """The name opens a short clause: a label, not a sentence about the signature ("a sync stall is periodic …")."""
    return m.at[1] <= 1 and len(m.clause.tokens) <= LABEL_TOKENS


def _firm(m: Match) -> bool:
    return m.positive and not m.hedged and not m.conditional and not m.alternative


_IN_PART = re.compile(r"\b(?:part|parts|portion|rest|otherwise|apart from|besides|itself|remaining|beyond that)\b")


def _healthy_in_part(evidence: dict[str, Evidence], committed: frozenset[str]) -> bool:
    """ "The busy part is healthy", "the rest looks fine": healthy said of a part, beside a problem that is decided."""
    others = [evidence[s] for s in committed if s != "healthy"]
    return (
        bool(others) and all(e.decided for e in others) and bool(_IN_PART.search(evidence["healthy"].first.clause.text))
    )


def _clean_timeline_first(evidence: dict[str, Evidence], committed: frozenset[str]) -> bool:
    """The reply calls the timeline clean, then names one problem, decided, further on."""
    healthy = evidence["healthy"]
    others = [evidence[s] for s in committed if s != "healthy"]
    return (
        "timeline" in healthy.first.clause.text
        and len(others) == 1
        and others[0].decided
        and others[0].first_at > healthy.first_at
    )


def _evidence(
    reply: Reply,
    rubrics: dict[str, CompiledRubric],
    commits: dict[int, bool],
    *,
    skip_tools: bool = False,
    several: bool = False,
) -> dict[str, Evidence]:
    """Per signature: how strongly and how often the reply claims it (negated mentions do not count). With
    `skip_tools`, words that only name one of its checks or fixes do not count as naming it."""
    out: dict[str, Evidence] = {}
    for sig, comp in rubrics.items():
        tools = _tool_words(reply, comp) if skip_tools and sig not in VERDICT_IS_REMEDY else {}
        for m in reply.find(comp.signature):
            if not m.positive or (skip_tools and any(m.span <= span for span in tools.get(m.at[0], ()))):
                continue
            at = m.at[0]
            offered = m.alternative or (several and m.conditional)
            asserted = _asserts(commits, m, reply) and not m.conditional  # "if it's a malloc, …" is a branch
            e = out.get(sig)
            if e is None or m.phrase.weight > e.strength:
                committed = {at} if asserted and not m.hedged else set()
                first_at = at if e is None else min(at, e.first_at)
                out[sig] = Evidence(
                    m.phrase.weight, m, {at}, committed, not m.hedged, not offered, first_at, m.alternative
                )
            elif m.phrase.weight == e.strength:
                e.add(m, asserted, offered)
            elif asserted and not m.hedged:
                # "… it's the input pipeline": a plain word, but a verdict, which settles a name first offered with a
                # doubt ("maybe the loader? … it's the loader")
                e.asserted_in.add(at)
                e.confident = True
            if m.phrase.name and not m.hedged and not offered and (asserted or _label(m)):
                out[sig].outright = True  # "it's a sync stall", or the name as a label ("allocator stall, set …")
            if m.phrase.name and not offered:
                out[sig].by_name = True
    return out


def _tool_words(reply: Reply, comp: CompiledRubric) -> dict[int, list[frozenset[int]]]:
    """Per clause, the words of each of this signature's checks or fixes found there ("bubble fraction",
    "interleaved 1F1B"): words inside one of them are not a diagnosis. One at a time: two checks that overlap a
    reading ("the main thread sits in next() for 80 ms") do not together swallow the reading."""
    tools: dict[int, list[frozenset[int]]] = {}
    for m in (*reply.find(comp.measurement), *reply.find(comp.fix)):
        tools.setdefault(m.at[0], []).append(m.span)
    return tools


# A clause that is only a heading ("Verdict:", "Root cause —", "Bottom line:") commits the clause it heads.
_HEADING = re.compile(
    r"^\W*(?:(?:my |the |final )?(?:verdict|diagnosis|conclusion|answer|root cause|culprit|bottom line|call)"
    r"|tl;?dr|(?:(?:ok|okay|so|and)\W+)?final)\W*$"  # a thread's "ok final: sync stall from the per-step print"
)


def _asserts(commits: dict[int, bool], m: Match, reply: Reply) -> bool:
    """The match's clause commits ("it's …", "my money is on …"), or a heading before it does ("Verdict: healthy")."""
    at = m.at[0]
    asserted = commits.get(at)
    if asserted is None:
        text = m.clause.text
        asserted = commits[at] = bool(_COMMIT_WORDS.search(text, words(text))) or (
            at > 0 and bool(_HEADING.search(reply.clauses[at - 1].text))
        )
    return asserted


def _settles_on(chosen: Evidence, evidence: dict[str, Evidence], committed: frozenset[str]) -> bool:
    """The one decided diagnosis is stated without a hedge after every candidate was last offered, or the others are
    only branches of a check ("probably healthy? unless the top kernel is memory bound, I'd ncu it")."""
    others = [evidence[s] for s in committed if evidence[s] is not chosen]
    if all(not e.first_offered for e in others):
        return True  # the others are named only as conditions ("if it's X …", "unless X …"), never offered
    last = max(chosen.clauses)
    return chosen.confident and all(max(e.clauses) < last for e in others)


MOST_SAID = 3  # a diagnosis said in this many times more distinct ways than any other is the one the reply gives


def _most_said(
    committed: frozenset[str], evidence: dict[str, Evidence], reply: Reply, rubrics: dict[str, CompiledRubric]
) -> str | None:
    """Of diagnoses named in as many clauses, the one the reply describes in far more ways ("cudaStreamSynchronize
    per step … loss.item() … acc.cpu() … the GPU idles while python relaunches"): the other is a passing word."""
    if len(committed) != 2 or any(evidence[s].first_offered or not evidence[s].decided for s in committed):
        return None
    ways = {
        s: len({(m.at[0], m.span) for m in reply.find(rubrics[s].signature) if m.positive and not m.alternative})
        for s in committed
    }
    ranked = sorted(committed, key=lambda s: ways[s], reverse=True)
    return ranked[0] if ways[ranked[0]] >= MOST_SAID * max(1, ways[ranked[1]]) else None


_DENIAL = re.compile(r"\b(?:not|no|never|nor|neither|without|ruled? out|excluded?)\b|n't\b")


def negated(text: str) -> bool:
    """The clause says no in words ("not", "no", "ruled out", "isn't")."""
    return bool(_DENIAL.search(text))


def denies(m: Match) -> bool:
    """The match is negated in words ("so not a sync", "there's no cudaStreamSynchronize"), or is a negated name; a
    name inside a fix ("drop the .item()") is not a denial."""
    return not m.positive and (m.phrase.name or bool(_DENIAL.search(m.clause.text)))


def _unrejected(committed: frozenset[str], reply: Reply, rubrics: dict[str, CompiledRubric]) -> str | None:
    """Of diagnoses with level support, the one the reply never denies by name, when it denies every other ("my
    first instinct was straggler … it isn't overlapped"; "launch overhead, a sync or the loader … so not launch
    overhead … so not a sync … that leaves the loader")."""
    if len(committed) < 2:
        return None
    kept = [s for s in committed if not any(denies(m) for m in reply.find(rubrics[s].signature))]
    return kept[0] if len(kept) == 1 else None


def _choose(committed: frozenset[str], evidence: dict[str, Evidence]) -> str | None:
    """The one signature the reply commits to, if it does: the only one named, or the one with clearly the most
    support (clauses that name it, counting double where the clause commits: "it's …", "my bet …")."""
    if len(committed) == 1:
        return next(iter(committed))
    if not committed:
        return None
    if all(evidence[s].first_offered and not evidence[s].asserted_in for s in committed):
        return None  # "one reading is X — … the other reading is Y": both offered, neither called, whatever the length
    support = {s: len(evidence[s].clauses) + 2 * len(evidence[s].asserted_in) for s in committed}
    ranked = sorted(committed, key=lambda s: support[s], reverse=True)
    top, second = support[ranked[0]], support[ranked[1]]
    if top >= second + 2 or (top > second and top >= 1.5 * second):
        return ranked[0]
    return None
