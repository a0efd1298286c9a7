"""A person's history as text: per-signature accuracy, streaks, weakest signatures (the store computes them)."""

from __future__ import annotations

from ..store.boards import SignatureSkill, UserStats

__all__ = ["SignatureSkill", "UserStats", "stats_text"]


def stats_text(st: UserStats) -> str:
    lines = [
        f"{st.answers} answers · {st.total_points} points · mean {st.mean_score:.2f} · streak "
        f"{st.streak} (best {st.best_streak})"
    ]
    if st.weakest:
        lines.append("Weakest: " + ", ".join(st.weakest))
    lines += [
        f"• {k.signature}: {k.answers} answered, mean {k.mean_score:.2f}, named right {k.named_right}"
        for k in st.skills
        if k.answers
    ]
    return "\n".join(lines)
