"""`tracedrill grade --explain`: which concepts and rules matched where, clause by clause."""

from __future__ import annotations

from .matcher import Reply
from .rulebook import compiled
from .scorer import MAX_ANSWER_CHARS, grade


def explain(signature: str, answer: str) -> str:
    """The grade, then every clause with the concept classes it expresses and the rules that fired in it."""
    g = grade(signature, answer)
    reply = Reply.parse(answer[:MAX_ANSWER_CHARS])
    lines = [g.feedback(), "", f"named: {g.named or '(none)'}   hedged reply: {'yes' if reply.hedged else 'no'}", ""]
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
