"""Appeals: a person contests the grade of their attempt after the reveal; a reviewer rules per part.

Accepting regrades the attempt (credit → score → points, the speed bonus as first earned, hint costs kept), so
leaderboards and stats move with it. Accepted appeals are labelled replies for the grader corpus, and a reviewer
may remember the accepted wording as a workspace synonym. Platform-free; the transactions live in
bot.store.appeals, and every query there is workspace-scoped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta

from ..grading.rubric import PART_WEIGHTS
from ..store import appeals as store
from ..store.appeals import (
    AppealInfo,
    AppealRefused,
    AppealStatus,
    Filing,
    Refusal,
    Reviewer,
    RulingContext,
    RulingDecision,
    RulingRecord,
    RulingRequest,
    parts_of,
)
from .engine import Drills
from .errors import DrillError, DrillNotFound
from .hints import attempt_points
from .ports import UserRef
from .synonyms import PARTS, SynonymError, validate_phrase

__all__ = ["STATUSES", "AppealError", "AppealInfo", "AppealService", "AppealStatus", "Reviewer", "Ruling", "parts_of"]

APPEAL_WINDOW = timedelta(days=7)
MAX_REASON_CHARS = 1000
STATUSES = tuple(s.value for s in AppealStatus)
CREDITS = (0.0, 0.5, 1.0)


class AppealError(DrillError):
    """The message is fit to show a person."""


@dataclass(frozen=True, slots=True)
class Ruling:
    appeal_id: int
    status: AppealStatus
    part: str
    credit: float
    score: float
    points: int
    points_before: int
    appellant: UserRef
    drill_id: int
    remembered: str | None

    @classmethod
    def of(cls, r: RulingRecord) -> Ruling:
        d = r.decision
        appellant = UserRef(r.platform, r.workspace, r.appellant, r.appellant_name)
        return cls(
            r.appeal_id,
            r.status,
            d.part,
            d.credit_after,
            d.score,
            d.points,
            r.points_before,
            appellant,
            r.drill_id,
            d.phrase,
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "appeal_id": self.appeal_id,
            "status": self.status,
            "part": self.part,
            "credit": self.credit,
            "score": self.score,
            "points": self.points,
            "points_before": self.points_before,
            "remembered": self.remembered,
        }

    def appellant_text(self, note: str = "") -> str:
        head = f"Your appeal #{self.appeal_id} on drill #{self.drill_id} ({self.part}) was {self.status}."
        change = f" Your points: {self.points_before} → {self.points}." if self.points != self.points_before else ""
        return head + change + (f" Reviewer's note: {note}" if note else "")


@dataclass(frozen=True, slots=True)
class _RulingAsked:
    """A reviewer's ruling, checked before the database is touched."""

    accept: bool
    part: str
    credit: float | None
    remember: str | None


def _refusal_error(exc: AppealRefused, drill_id: int = 0, appeal_id: int = 0) -> DrillError:
    if exc.refusal is Refusal.NO_DRILL:
        return DrillNotFound(drill_id)
    return AppealError(
        {
            Refusal.NOT_REVEALED: f"Appeals on drill #{drill_id} open after its reveal.",
            Refusal.WINDOW_CLOSED: f"Appeals on drill #{drill_id} closed 7 days after its reveal.",
            Refusal.NO_ATTEMPT: f"You have no scored answer on drill #{drill_id} to appeal.",
            Refusal.PART_TAKEN: f"You already appealed the {', '.join(exc.parts)} of drill #{drill_id}: "
            "one appeal per part.",
            Refusal.DOUBLE_FILING: f"You already appealed that part of drill #{drill_id}.",
            Refusal.NO_APPEAL: f"No appeal #{appeal_id} in this workspace.",
            Refusal.ALREADY_RULED: f"The {', '.join(exc.parts)} of appeal #{appeal_id} has already been ruled on.",
        }[exc.refusal]
    )


class AppealService:
    def __init__(self, engine: Drills) -> None:
        self.engine = engine
        self.db = engine.db

    # -- filing -------------------------------------------------------------------------------------------------
    async def file(self, drill_id: int, user: UserRef, reason: str, part: str = "all") -> AppealInfo:
        reason = " ".join(str(reason).split())
        if not reason:
            raise AppealError("Say why the grade is wrong (the reason is empty).")
        if len(reason) > MAX_REASON_CHARS:
            raise AppealError(f"Keep the reason under {MAX_REASON_CHARS} characters.")
        if part not in ("all", *PARTS):
            raise AppealError(f"Part must be one of: all, {', '.join(PARTS)}.")
        filing = Filing(user.platform, user.workspace, user.user, drill_id, part, reason)
        try:
            return await asyncio.to_thread(store.file_appeal, self.db, filing, self.engine.clock(), APPEAL_WINDOW)
        except AppealRefused as exc:
            raise _refusal_error(exc, drill_id=drill_id) from exc

    # -- listing ------------------------------------------------------------------------------------------------
    async def list_appeals(self, platform: str, workspace: str, status: str | None = None) -> list[AppealInfo]:
        if status is not None and status not in STATUSES:
            raise AppealError(f"Status must be one of: {', '.join(STATUSES)}.")
        wanted = None if status is None else AppealStatus(status)
        return await asyncio.to_thread(store.list_appeals, self.db, platform, workspace, wanted)

    # -- reviewers ----------------------------------------------------------------------------------------------
    async def add_reviewer(self, platform: str, workspace: str, kind: str, external_id: str) -> None:
        reviewer = Reviewer(kind, external_id)
        await asyncio.to_thread(store.add_reviewer, self.db, platform, workspace, reviewer, self.engine.clock())

    async def reviewers(self, platform: str, workspace: str) -> list[Reviewer]:
        return await asyncio.to_thread(store.reviewers, self.db, platform, workspace)

    async def may_review(self, reviewer: UserRef, *, is_admin: bool, groups: Sequence[str] = ()) -> bool:
        """Admins always; otherwise a person or group set as reviewer. With none set, a terminal operator may."""
        if is_admin:
            return True
        listed = await self.reviewers(reviewer.platform, reviewer.workspace)
        if not listed:
            return reviewer.platform == "terminal"
        return Reviewer("user", reviewer.user) in listed or any(Reviewer("group", g) in listed for g in groups)

    # -- ruling -------------------------------------------------------------------------------------------------
    async def resolve(
        self,
        platform: str,
        workspace: str,
        appeal_id: int,
        *,
        accept: bool,
        part: str,
        reviewer: str,
        credit: float | None = None,
        note: str = "",
        remember: str | None = None,
        told: bool = False,
    ) -> Ruling:
        """told=True: the caller tells the appellant now (chat); otherwise the scheduler's notice sweep will."""
        asked = _checked(_RulingAsked(accept, part, credit, remember))
        reviewer, note = reviewer.strip()[:200], " ".join(note.split())[:MAX_REASON_CHARS]
        if not reviewer:
            raise AppealError("Name the reviewer.")
        request = RulingRequest(platform, workspace, appeal_id, reviewer, note, told)

        def decide(ctx: RulingContext) -> RulingDecision:
            return _decide(ctx, asked, reviewer)

        try:
            record = await asyncio.to_thread(store.rule, self.db, request, self.engine.clock(), decide)
        except AppealRefused as exc:
            raise _refusal_error(exc, appeal_id=appeal_id) from exc
        return Ruling.of(record)

    async def untold(self, appeal_id: int) -> None:
        """Telling failed: leave the ruling to the notice sweep."""
        await asyncio.to_thread(store.forget_told, self.db, appeal_id)

    # -- the corpus ---------------------------------------------------------------------------------------------
    async def export_rows(self, platform: str | None, workspace: str | None) -> list[dict[str, object]]:
        """Accepted appeals as labelled replies (tests/data/LABELLING.md), the credits as the reviewer ruled."""
        accepted = await asyncio.to_thread(store.accepted_appeals, self.db, platform, workspace)
        return [
            {
                "signature": a.signature,
                "answer": a.answer,
                "expect": {p: _label(c) for p, c in a.credits.items()},
                "named": a.named,
                "note": f"appeal: {a.reason}"[:200],
                "persona": f"{a.platform} appeal",
                "writer": f"appeal-{a.workspace_id}-{a.appeal_id}",
                "source": f"appeal:{a.platform}#{a.appeal_id}",
            }
            for a in accepted
        ]


def _checked(asked: _RulingAsked) -> _RulingAsked:
    if asked.part not in PARTS:
        raise AppealError(f"Part must be one of: {', '.join(PARTS)}.")
    if asked.credit is not None and asked.credit not in CREDITS:
        raise AppealError("Credit must be 0, 0.5 or 1.")
    if not asked.accept and (asked.credit is not None or asked.remember):
        raise AppealError("--credit and remember go with accepting; a rejection keeps the grade.")
    return asked


def _decide(ctx: RulingContext, asked: _RulingAsked, reviewer: str) -> RulingDecision:
    """The ruling on the attempt as it stands (inside the appeal's lock): who may rule, the credit before and
    after, the regraded score and points, and the phrase to remember."""
    part = asked.part
    if part not in parts_of(ctx.appeal_part):
        raise AppealError(f"Appeal #{ctx.appeal_id} is about the {ctx.appeal_part}, not the {part}.")
    if reviewer == ctx.appellant_id or (ctx.appellant_name and reviewer == ctx.appellant_name):
        raise AppealError("Nobody rules on their own appeal.")
    before = ctx.credits[part]
    phrase = _phrase(ctx, part, asked.remember) if asked.remember else None
    if not asked.accept:
        return RulingDecision(part, False, before, before, ctx.attempt.score, ctx.points, phrase)
    after = 1.0 if asked.credit is None else asked.credit
    score = _regraded_score(ctx.credits, {**ctx.credits, part: after}, ctx.attempt.score)
    points = attempt_points(replace(ctx.attempt, score=score))
    return RulingDecision(part, True, before, after, score, points, phrase)


def _phrase(ctx: RulingContext, part: str, remember: str) -> str:
    try:
        return validate_phrase(ctx.signature, part, remember, ctx.answer)
    except SynonymError as exc:
        raise AppealError(str(exc)) from exc


def _earned(credits: dict[str, float]) -> float:
    return sum(PART_WEIGHTS[p] * credits[p] for p in PARTS)


def _regraded_score(old: dict[str, float], new: dict[str, float], score: float) -> float:
    """The grader's weights over the ruled credits; a numbers bonus first earned stays (the old surplus)."""
    old_earned = _earned(old)
    bonus = max(0.0, score - old_earned) if old_earned > 0 else 0.0
    return round(min(1.0, _earned(new) + bonus), 4)


def _label(credit: float) -> float | int:
    return int(credit) if credit in (0.0, 1.0) else credit  # the corpus writes 0, 0.5, 1
