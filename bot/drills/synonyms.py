"""Workspace synonyms: wordings a reviewer accepted on appeal and chose to remember for this workspace.

The shipped rubrics never change here. This is a thin layer over `grade(...)`'s result, owned by the appeals
feature until the concept-rubric grader (issue 12) takes extra phrases per part itself: the hook is
`bot.store.synonyms.extra_phrases` — {part: phrases} — and `apply_extra_phrases` is what the grader's own
parameter will replace.
Stuffing still earns nothing (a reply the grader zeroed as a list of diagnoses gains no credit here), and a
phrase only counts when it is stated, not negated (“not X”, “rather than X”).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..grading import Grade, PartResult, grade
from ..grading.rubric import PART_WEIGHTS
from ..scenarios.ids import SIGNATURE_IDS
from ..store.appeals import PARTS

__all__ = ["PARTS", "SynonymError", "apply_extra_phrases", "normalize", "validate_phrase"]
MAX_PHRASE_CHARS = 60
MAX_PHRASE_WORDS = 6
_NEGATED = re.compile(
    r"(?:\bnot\b|\bno\b|\bnothing\b|\bnobody\b|\bnone\b|\bneither\b|n't\b|\bnever\b|\bwithout\b|\brather than\b"
    r"|\binstead of\b|\bruled? out\b|\bunlikely\b)[^.;!?]{0,40}$"
)
_LIST_MARKS = re.compile(r"[,;/|\n•*]|\band\b|\bor\b")


class SynonymError(ValueError):
    """The message is fit to show a reviewer."""


def normalize(text: str) -> str:
    return " ".join(re.sub(r"[^\w.%()'-]+", " ", text.lower()).split())


def validate_phrase(signature: str, part: str, phrase: str, answer: str) -> str:
    """One short phrase, taken from the accepted reply, that names no other signature. Returns it normalized."""
    if part not in PARTS:
        raise SynonymError(f"part must be one of {', '.join(PARTS)}")
    clean = normalize(phrase)
    if not clean:
        raise SynonymError("The phrase to remember is empty.")
    if len(clean) > MAX_PHRASE_CHARS or len(clean.split()) > MAX_PHRASE_WORDS:
        raise SynonymError(
            f"Remember one short phrase: at most {MAX_PHRASE_WORDS} words, {MAX_PHRASE_CHARS} characters."
        )
    if _LIST_MARKS.search(phrase.lower()):
        raise SynonymError("Remember one phrase, not a list (no commas, slashes, 'and' or 'or').")
    if f" {clean} " not in f" {normalize(answer)} ":
        raise SynonymError("The phrase must be words from the appealed reply.")
    for other in SIGNATURE_IDS:
        if other != signature and grade(other, clean).signature.credit > 0:
            raise SynonymError(f"That phrase already names another signature ({other}); pick a narrower one.")
    return clean


def apply_extra_phrases(g: Grade, text: str, phrases: Mapping[str, Sequence[str]]) -> Grade:
    """Full credit for a part whose remembered phrase the reply states; score recomputed the grader's way."""
    if not phrases or _stuffing(g):
        return g
    body = f" {normalize(text[:4000])} "
    parts = {"signature": g.signature, "measurement": g.measurement, "fix": g.fix}
    changed = False
    for part, wanted in phrases.items():
        current = parts.get(part)
        if current is None or current.credit >= 1.0:
            continue
        for phrase in wanted:
            at = body.find(f" {phrase} ")
            if at >= 0 and not _NEGATED.search(body[max(0, at - 60) : at + 1]):
                parts[part] = PartResult(1.0, phrase, current.hint, "remembered for this workspace")
                changed = True
                break
    if not changed:
        return g
    earned = sum(PART_WEIGHTS[p] * parts[p].credit for p in PARTS)
    named = g.named if parts["signature"].credit < 1.0 or g.named is not None else g.signature_id
    return replace(
        g,
        signature=parts["signature"],
        measurement=parts["measurement"],
        fix=parts["fix"],
        score=round(min(1.0, earned + g.bonus), 4),
        named=named,
    )


def _stuffing(g: Grade) -> bool:
    """The grader zeroed the reply as a catalogue of diagnoses (its part note, or its note to the person)."""
    return g.signature.note == "several signatures named" or any("several diagnoses" in n for n in g.notes)
