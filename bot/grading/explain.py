"""`tracedrill grade --explain`: which concepts and rules matched where, clause by clause."""

from __future__ import annotations

from .matcher import Reply
from .rulebook import compiled
from .scorer import MAX_ANSWER_CHARS, grade
from .wording import MODEL as WORDING
from .wording import diagnosis_text, ruled_on


def explain(signature: str, answer: str) -> str:
    """The grade, then every clause with the concept classes it expresses and the rules that fired in it."""
    g = grade(signature, answer)
    reply = Reply.parse(answer[:MAX_ANSWER_CHARS])
    lines = [g.feedback(), "", f"named: {g.named or '(none)'}   hedged reply: {'yes' if reply.hedged else 'no'}"]
    lines += [_wording_line(reply, signature), ""]
    rubrics = compiled()
    for number, (clause, positions) in enumerate(zip(reply.clauses, reply.index, strict=True), start=1):
        concepts = sorted(k[1:] for k in positions if k.startswith("@"))
        lines.append(f"[{number}] “{clause.quote}”")
        lines.append(f"    words: {' '.join(t.stem for t in clause.tokens)}")
        if concepts:
            lines.append(f"    concepts: {', '.join(concepts)}")
    lines.append("")
    for sig, comp in rubrics.items():
        groups = (
            ("signature", reply.find(comp.signature)),
            ("measurement", reply.find(comp.measurement)),
            ("fix", reply.find(comp.fix)),
            ("wrong fix", reply.find(comp.wrong_fix)),
        )
        for part, matches in groups:
            for m in matches:
                where = reply.clauses.index(m.clause) + 1
                polarity = "+" if m.positive else "− (negated)"
                weight = "" if m.phrase.weight >= 1 else " weak"
                hedge = " hedged" if m.hedged else ""
                lines.append(
                    f"{'*' if sig == signature else ' '} {sig}/{part}: rule “{m.phrase.text}” in [{where}] "
                    f"on “{' '.join(m.words)}” {polarity}{weight}{hedge}"
                )
    return "\n".join(lines)


def _wording_line(reply: Reply, signature: str) -> str:
    """What the wording model reads, and whether the scorer would ask it (only when no rule read a diagnosis)."""
    text = diagnosis_text(reply)
    if not text:
        return "wording model: no statement left once checks, fixes and questions are set aside"
    reading = WORDING.read(text)
    asked = "not asked: the rules read a diagnosis" if ruled_on(reply, signature) else "asked when no rule names one"
    return f"wording model: {reading.label} {reading.probability:.3f} from {', '.join(reading.words)} ({asked})"
