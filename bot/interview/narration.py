"""The narration score of a mock-interview answer: how it was said, next to what the grader scores.

Three parts, each 0–1: did the read follow the reading order (step → gaps → overlap → top kernels), were the
figures quoted this trace's own, and was the twin (the lookalike) named and rejected. Pure: text and scenario in.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from ..scenarios.ids import SIGNATURE_IDS, TWINS
from ..scenarios.model import Scenario
from ..scenarios.registry import signature

STAGES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("step", re.compile(r"\bsteps?\b|\biterations?\b|\bperiod\b|profilerstep", re.I)),
    ("gaps", re.compile(r"\bgaps?\b|\bidle\b|\bholes?\b|\bbubbles?\b|\bwait(?:s|ing)?\b|\bstall", re.I)),
    (
        "overlap",
        re.compile(r"overlap|\bhidden\b|\bhides?\b|\bexposed\b|serializ|concurren|under (?:the )?compute", re.I),
    ),
    (
        "top kernels",
        re.compile(
            r"top[- ]kernels?|longest kernel|dominant kernel|\bgemms?\b|per-rank compute|"
            r"kernel (?:time|share)|\btop\b",
            re.I,
        ),
    ),
)

# How a person names each signature in speech (for finding the twin in an answer).
SIGNATURE_WORDS: dict[str, re.Pattern[str]] = {
    "unoverlapped_allreduce": re.compile(
        r"unoverlapped|not overlapped|serialized all-?reduce|exposed (?:comm|"
        r"all-?reduce)|no overlap|overlap (?:is )?broken|nccl is slow",
        re.I,
    ),
    "straggler": re.compile(r"straggl|slow rank|one rank is slow|one slow (?:gpu|rank)", re.I),
    "sync_stall": re.compile(r"\bsync(?:hroni[sz]\w*)?\b|\.item\(\)|streamsynchronize|devicesynchronize", re.I),
    "alloc_stall": re.compile(r"cudamalloc|\balloc(?:ator|ation)?s?\b|fragmentation|empty_cache", re.I),
    "healthy": re.compile(r"\bhealthy\b|nothing (?:is )?wrong|nothing to fix", re.I),
    "memory_bound_kernel": re.compile(r"memory[- ]bound|bandwidth[- ]bound|below the ridge", re.I),
    "input_starvation": re.compile(r"data ?loader|input pipeline|starv", re.I),
    "launch_bound": re.compile(r"launch[- ]bound|launch overhead|cpu[- ]bound|host[- ]bound", re.I),
    "pipeline_bubbles": re.compile(r"pipeline bubbles?|\bbubbles?\b", re.I),
    "prefill_blocks_decode": re.compile(r"prefill|head-of-line", re.I),
}
_NEGATION = re.compile(
    r"\bnot\b|n't\b|\bno\b|\brule[sd]? out\b|\bruled\b|\breject|\binstead of\b|\brather than\b|"
    r"\bunlike\b|\bnever\b|\bwrong hypothesis\b|\bisn't\b",
    re.I,
)
# Hypotheses people reach for that are not signatures (for a signature without a twin, rejecting one counts).
_GUESSES = re.compile(
    r"jitter|\bgc\b|garbage collect|network|\bnccl\b|fabric|replicas?|capacity|profiler overhead|"
    r"mfu math|thermal|noise|bandwidth",
    re.I,
)
_QUOTED = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)*)\s*(ms|µs|us|s|%|GB/s|TB/s|GB|MB|MiB|GiB|×|x|tokens|MHz|FLOP)"
    r"(?![\w/])"
)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
NUMBER_TOLERANCE = 0.10  # a quoted figure within 10% of one of this trace's own counts as right


@dataclass(frozen=True, slots=True)
class Narration:
    order: float  # reading order followed
    numbers: float  # this trace's figures quoted correctly
    twin: float  # the lookalike named and rejected
    notes: tuple[str, ...] = field(default=())

    @property
    def score(self) -> float:
        return round((self.order + self.numbers + self.twin) / 3, 3)


def twin_of(signature_id: str) -> str | None:
    return TWINS.get(signature_id)


def reading_order(text: str) -> tuple[float, str]:
    firsts = []
    for name, pattern in STAGES:
        m = pattern.search(text)
        if m is not None:
            firsts.append((m.start(), name))
    found = [name for _, name in firsts]
    names = [n for n, _ in STAGES]
    in_order_positions = [names.index(n) for _, n in sorted(firsts)]
    pairs = list(itertools.pairwise(in_order_positions))
    ordered = sum(a < b for a, b in pairs) / len(pairs) if pairs else 0.0
    # Coverage scales everything: two stages in order are half a read, not three quarters of one.
    score = round(len(found) / len(STAGES) * (0.5 + 0.5 * ordered), 3)
    missing = [n for n in names if n not in found]
    if missing:
        note = f"Reading order: you skipped {', '.join(missing)} (step → gaps → overlap → top kernels)."
    elif ordered < 1:
        said = " → ".join(n for _, n in sorted(firsts))
        note = f"Reading order: you went {said}; the discipline is step → gaps → overlap → top kernels."
    else:
        note = "Reading order: step → gaps → overlap → top kernels, in order."
    return score, note


def quoted_figures(text: str) -> list[tuple[float, str]]:
    out = []
    for m in _QUOTED.finditer(text):
        raw = m.group(1)
        raw = raw.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", raw) else raw.replace(",", ".")
        try:
            out.append((float(raw), m.group(0)))
        except ValueError:
            continue
    return out


def _matches_figure(value: float, figures: list[float]) -> bool:
    return any(abs(value - f) <= NUMBER_TOLERANCE * abs(f) for f in figures if f)


def trace_figures(scenario: Scenario) -> list[float]:
    """Every number this drill stands on: its figures, its hardware, and what its context and reveal state
    (both are written from the figures)."""
    hw = scenario.hardware
    values = [float(v) for v in scenario.figures.values()]
    values += [100 * v for v in values if 0 < v <= 1]  # a fraction said as a percentage
    values += [hw.bf16_tflops, hw.hbm_gbps, hw.hbm_gbps / 1000, hw.link_gbps, float(hw.memory_gb)]
    stated = " ".join([*scenario.context.lines(), scenario.reveal.as_text()])
    values += [v for v, _ in quoted_figures(stated)]
    return values


def numbers(scenario: Scenario, text: str) -> tuple[float, str]:
    figures = trace_figures(scenario)
    quoted = quoted_figures(text)
    if not quoted:
        return 0.0, "Numbers: quote this trace's figures (step time, gap, comm time) — they make the read."
    right = [q for v, q in quoted if _matches_figure(v, figures)]
    wrong = [q for v, q in quoted if not _matches_figure(v, figures)]
    score = round(min(len(right), 2) / 2 * len(right) / len(quoted), 3)
    if wrong:
        return score, f"Numbers: {', '.join(wrong[:3])} — nothing in this trace is near that."
    return score, f"Numbers: {', '.join(right[:3])} — this trace's own figures."


def twin(scenario: Scenario, text: str) -> tuple[float, str]:
    """Credit for naming the lookalike and rejecting it in the same sentence (any other signature when the
    signature has no twin)."""
    sig = scenario.signature
    lookalike = twin_of(sig)
    candidates = [lookalike] if lookalike else [s for s in SIGNATURE_IDS if s != sig] + ["guess"]
    own = SIGNATURE_WORDS.get(sig)
    for sentence in _SENTENCES.split(text):
        for other in candidates:
            pattern = SIGNATURE_WORDS.get(other, _GUESSES)
            if not pattern.search(sentence) or not _NEGATION.search(sentence):
                continue
            # "it's a straggler, not an unoverlapped all-reduce": the negation must not only reject our own.
            if own is not None and own.search(sentence) and not _rejects(sentence, pattern):
                continue
            what = "a wrong hypothesis" if other == "guess" else _title(other)
            return 1.0, f"Twin: you named and rejected {what}."
    if lookalike:
        return 0.0, f"Twin: say why it is not {_title(lookalike)} — {scenario.reveal.tell}"
    return 0.0, f"Near-miss: name a wrong hypothesis and reject it — {scenario.reveal.tell}"


def _title(signature_id: str) -> str:
    return signature(signature_id).title.lower()


def _rejects(sentence: str, pattern: re.Pattern[str]) -> bool:
    """True when a negation sits right before (within ~40 characters of) the lookalike's name."""
    return any(_NEGATION.search(sentence[max(0, m.start() - 40) : m.start()]) for m in pattern.finditer(sentence))


def narration(scenario: Scenario, text: str) -> Narration:
    text = (text or "")[:4000]
    o, on = reading_order(text)
    n, nn = numbers(scenario, text)
    t, tn = twin(scenario, text)
    return Narration(o, n, t, (on, nn, tn))
