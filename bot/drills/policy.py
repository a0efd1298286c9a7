"""The scoring policy: points for a score, and a speed bonus for answering early."""

from __future__ import annotations

from datetime import datetime

from ..store.attempts import DrillTiming

SPEED_BONUS_MAX = 20


def points(
    score: float, posted_at: datetime, deadline: datetime, submitted_at: datetime, late: bool, speed_bonus: bool = True
) -> int:
    """round(100 × score) plus up to 20 points, falling linearly from the post to the deadline.

    Late answers earn nothing; a reply with no credit gets no speed bonus either, nor does a drill played
    without a timer (there is no clock to beat).
    """
    if late or score <= 0:
        return 0
    if not speed_bonus:
        return round(100 * score)
    window = (deadline - posted_at).total_seconds()
    left = (deadline - submitted_at).total_seconds()
    fraction = min(max(left / window, 0.0), 1.0) if window > 0 else 0.0
    return round(100 * score) + round(SPEED_BONUS_MAX * fraction)


def points_at(score: float, timing: DrillTiming, submitted_at: datetime, late: bool) -> int:
    """`points` for the store's view of a drill (its PointsRule)."""
    return points(score, timing.posted_at, timing.deadline, submitted_at, late, timing.speed_bonus)
