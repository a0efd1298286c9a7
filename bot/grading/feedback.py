"""The per-part table a person reads in a thread."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .scorer import Grade

MARK = {1.0: "✓", 0.5: "~", 0.0: "✗"}


def render_feedback(g: Grade) -> str:
    lines = []
    for name, part in g.parts():
        mark = MARK.get(part.credit, "~")
        if part.credit > 0 and part.evidence:
            line = f"{mark} {name}: “{part.evidence}”"
            if part.note:
                line += f" ({part.note})"
        else:
            line = f"{mark} {name}: {part.hint}"
            if part.note and part.evidence:
                line = f"{mark} {name}: you wrote “{part.evidence}” — {part.note.rstrip('.')}. {part.hint}"
            elif part.note:
                line += f" ({part.note})"
        lines.append(line)
    lines.extend(f"• {n}" for n in g.notes)
    lines.append(f"Score {round(100 * g.score)}/100")
    return "\n".join(lines)
