"""Appeals: a person contests the grade of their attempt after the reveal; a reviewer rules per part.

Accepting regrades the attempt (credit → score → points, the speed bonus as first earned, hint costs kept), so
leaderboards and stats move with it. Accepted appeals are labelled replies for the grader corpus, and a reviewer
may remember the accepted wording as a workspace synonym. Platform-free; every query is workspace-scoped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..grading.rubric import PART_WEIGHTS
from ..store import repo
from ..store.models import Appeal, AppealReviewer, AppealRuling, Attempt, Drill, User, Workspace, WorkspaceSynonym
from .engine import DrillEngine
from .errors import DrillError, DrillNotFound
from .hint_store import attempt_points
from .ports import UserRef
from .synonyms import PARTS, SynonymError, validate_phrase

APPEAL_WINDOW = timedelta(days=7)
MAX_REASON_CHARS = 1000
STATUSES = ("open", "accepted", "rejected")
CREDITS = (0.0, 0.5, 1.0)


class AppealError(DrillError):
    """The message is fit to show a person."""


@dataclass(frozen=True, slots=True)
class AppealInfo:
    appeal_id: int
    drill_id: int
    user: str
    part: str  # all | signature | measurement | fix
    reason: str
    status: str
    created_at: str
    answer: str
    credits: dict[str, float]
    score: float
    points: int
    rulings: tuple[dict[str, object], ...] = ()

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Ruling:
    appeal_id: int
    status: str
    part: str
    credit: float
    score: float
    points: int
    points_before: int
    appellant: UserRef
    drill_id: int
    remembered: str | None

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
        verdict = "accepted" if self.status == "accepted" else "rejected"
        head = f"Your appeal #{self.appeal_id} on drill #{self.drill_id} ({self.part}) was {verdict}."
        change = f" Your points: {self.points_before} → {self.points}." if self.points != self.points_before else ""
        return head + change + (f" Reviewer's note: {note}" if note else "")


def parts_of(part: str) -> tuple[str, ...]:
    return PARTS if part == "all" else (part,)


class AppealService:
    def __init__(self, engine: DrillEngine) -> None:
        self.engine = engine
        self.db = engine.db

    # -- filing -------------------------------------------------------------------------------------------------
    async def file(self, drill_id: int, user: UserRef, reason: str, part: str = "all") -> AppealInfo:
        return await asyncio.to_thread(self._file, drill_id, user, reason, part)

    def _file(self, drill_id: int, user: UserRef, reason: str, part: str) -> AppealInfo:
        reason = " ".join(str(reason).split())
        if not reason:
            raise AppealError("Say why the grade is wrong (the reason is empty).")
        if len(reason) > MAX_REASON_CHARS:
            raise AppealError(f"Keep the reason under {MAX_REASON_CHARS} characters.")
        if part not in ("all", *PARTS):
            raise AppealError(f"Part must be one of: all, {', '.join(PARTS)}.")
        now = self.engine.clock()
        with self.db.session() as s:
            ws = repo.find_workspace(s, user.platform, user.workspace)
            d = repo.drill(s, ws.id, drill_id) if ws else None
            if ws is None or d is None:
                raise DrillNotFound(drill_id)
            if d.revealed_at is None:
                raise AppealError(f"Appeals on drill #{drill_id} open after its reveal.")
            if now - d.revealed_at > APPEAL_WINDOW:
                raise AppealError(f"Appeals on drill #{drill_id} closed 7 days after its reveal.")
            u = repo.find_user(s, ws, user.user)
            a = (
                s.scalars(
                    select(Attempt).where(Attempt.drill_id == d.id, Attempt.user_id == u.id, Attempt.late.is_(False))
                ).first()
                if u
                else None
            )
            if a is None or u is None:
                raise AppealError(f"You have no scored answer on drill #{drill_id} to appeal.")
            taken = {p for (p,) in s.execute(select(Appeal.part).where(Appeal.attempt_id == a.id))}
            overlap = {p for t in taken for p in parts_of(t)} & set(parts_of(part))
            if overlap:
                raise AppealError(
                    f"You already appealed the {', '.join(sorted(overlap))} of drill #{drill_id}: one appeal per part."
                )
            appeal = Appeal(
                workspace_id=ws.id,
                attempt_id=a.id,
                drill_id=d.id,
                user_id=u.id,
                part=part,
                reason=reason,
                status="open",
                created_at=now,
            )
            try:
                with s.begin_nested():  # a double submit of the same part: the database keeps one
                    s.add(appeal)
            except IntegrityError as exc:
                raise AppealError(f"You already appealed that part of drill #{drill_id}.") from exc
            return _info(s, appeal, a, u)

    # -- listing ------------------------------------------------------------------------------------------------
    async def list_appeals(self, platform: str, workspace: str, status: str | None = None) -> list[AppealInfo]:
        return await asyncio.to_thread(self._list, platform, workspace, status)

    def _list(self, platform: str, workspace: str, status: str | None) -> list[AppealInfo]:
        if status is not None and status not in STATUSES:
            raise AppealError(f"Status must be one of: {', '.join(STATUSES)}.")
        with self.db.session() as s:
            ws = repo.find_workspace(s, platform, workspace)
            if ws is None:
                return []
            q = (
                select(Appeal, Attempt, User)
                .join(Attempt, Attempt.id == Appeal.attempt_id)
                .join(User, User.id == Appeal.user_id)
                .where(Appeal.workspace_id == ws.id)
                .order_by(Appeal.created_at, Appeal.id)
            )
            if status is not None:
                q = q.where(Appeal.status == status)
            return [_info(s, ap, a, u) for ap, a, u in s.execute(q).all()]

    # -- reviewers ----------------------------------------------------------------------------------------------
    async def add_reviewer(self, platform: str, workspace: str, kind: str, external_id: str) -> None:
        def run() -> None:
            with self.db.session() as s:
                ws = repo.workspace(s, platform, workspace, "", self.engine.clock())
                if s.get(AppealReviewer, (ws.id, kind, external_id)) is None:
                    s.add(AppealReviewer(workspace_id=ws.id, kind=kind, external_id=external_id[:64]))

        await asyncio.to_thread(run)

    async def reviewers(self, platform: str, workspace: str) -> list[tuple[str, str]]:
        def run() -> list[tuple[str, str]]:
            with self.db.session() as s:
                ws = repo.find_workspace(s, platform, workspace)
                if ws is None:
                    return []
                q = select(AppealReviewer.kind, AppealReviewer.external_id).where(AppealReviewer.workspace_id == ws.id)
                return [(str(k), str(e)) for k, e in s.execute(q)]

        return await asyncio.to_thread(run)

    async def may_review(self, reviewer: UserRef, *, is_admin: bool, groups: Sequence[str] = ()) -> bool:
        """Admins always; otherwise a person or group set as reviewer. With none set, a terminal operator may."""
        if is_admin:
            return True
        listed = await self.reviewers(reviewer.platform, reviewer.workspace)
        if not listed:
            return reviewer.platform == "terminal"
        return ("user", reviewer.user) in listed or any(("group", g) in listed for g in groups)

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
        return await asyncio.to_thread(
            self._resolve, platform, workspace, appeal_id, accept, part, reviewer, credit, note, remember, told
        )

    def _resolve(
        self,
        platform: str,
        workspace: str,
        appeal_id: int,
        accept: bool,
        part: str,
        reviewer: str,
        credit: float | None,
        note: str,
        remember: str | None,
        told: bool,
    ) -> Ruling:
        if part not in PARTS:
            raise AppealError(f"Part must be one of: {', '.join(PARTS)}.")
        if credit is not None and credit not in CREDITS:
            raise AppealError("Credit must be 0, 0.5 or 1.")
        if not accept and (credit is not None or remember):
            raise AppealError("--credit and remember go with accepting; a rejection keeps the grade.")
        reviewer, note = reviewer.strip()[:200], " ".join(note.split())[:MAX_REASON_CHARS]
        if not reviewer:
            raise AppealError("Name the reviewer.")
        now = self.engine.clock()
        with self.db.session() as s:
            ws = repo.find_workspace(s, platform, workspace)
            ap = (
                s.scalars(
                    select(Appeal).where(Appeal.id == appeal_id, Appeal.workspace_id == ws.id).with_for_update()
                ).first()
                if ws
                else None
            )
            if ws is None or ap is None:
                raise AppealError(f"No appeal #{appeal_id} in this workspace.")
            if part not in parts_of(ap.part):
                raise AppealError(f"Appeal #{appeal_id} is about the {ap.part}, not the {part}.")
            a = s.get(Attempt, ap.attempt_id)
            d = s.get(Drill, ap.drill_id)
            u = s.get(User, ap.user_id)
            assert a is not None
            assert d is not None
            assert u is not None
            if u.external_id == reviewer or (u.display_name and u.display_name == reviewer):
                raise AppealError("Nobody rules on their own appeal.")
            before = _credit(a, part)
            after = (1.0 if credit is None else credit) if accept else before
            phrase = None
            if remember:
                try:
                    phrase = validate_phrase(d.signature, part, remember, a.answer_text)
                except SynonymError as exc:
                    raise AppealError(str(exc)) from exc
            ruling = AppealRuling(
                appeal_id=ap.id,
                attempt_id=a.id,
                part=part,
                accepted=accept,
                credit_before=before,
                credit_after=after,
                reviewer=reviewer,
                note=note,
                created_at=now,
            )
            try:
                with s.begin_nested():
                    s.add(ruling)
            except IntegrityError as exc:
                raise AppealError(f"The {part} of appeal #{appeal_id} has already been ruled on.") from exc
            points_before = a.points
            if accept:
                old_earned = _earned(a)
                _set_credit(a, part, after)
                a.score = _regraded_score(a, old_earned)
                a.points = attempt_points(d, a)
                if part == "signature" and after > 0:
                    a.named = d.signature  # the reviewer ruled that the reply commits to the true signature
            ap.status = "accepted" if accept or ap.status == "accepted" else "rejected"
            ap.resolved_at = now
            if told:
                ap.notified_at = now
            if phrase is not None:
                exists = s.scalars(
                    select(WorkspaceSynonym).where(
                        WorkspaceSynonym.workspace_id == ws.id,
                        WorkspaceSynonym.signature == d.signature,
                        WorkspaceSynonym.part == part,
                        WorkspaceSynonym.phrase == phrase,
                    )
                ).first()
                if exists is None:
                    s.add(
                        WorkspaceSynonym(
                            workspace_id=ws.id,
                            signature=d.signature,
                            part=part,
                            phrase=phrase,
                            appeal_id=ap.id,
                            created_by=reviewer,
                            created_at=now,
                        )
                    )
            w = s.get(Workspace, ws.id)
            assert w is not None
            appellant = UserRef(w.platform, w.external_id, u.external_id, u.display_name)
            return Ruling(ap.id, ap.status, part, after, a.score, a.points, points_before, appellant, d.id, phrase)

    async def untold(self, appeal_id: int) -> None:
        """Telling failed: leave the ruling to the notice sweep."""

        def run() -> None:
            with self.db.session() as s:
                ap = s.get(Appeal, appeal_id)
                if ap is not None:
                    ap.notified_at = None

        await asyncio.to_thread(run)

    # -- the corpus ---------------------------------------------------------------------------------------------
    async def export_rows(self, platform: str | None, workspace: str | None) -> list[dict[str, object]]:
        return await asyncio.to_thread(self._export, platform, workspace)

    def _export(self, platform: str | None, workspace: str | None) -> list[dict[str, object]]:
        """Accepted appeals as labelled replies (tests/data/LABELLING.md), the credits as the reviewer ruled."""
        with self.db.session() as s:
            q = (
                select(Appeal, Attempt, Drill, Workspace)
                .join(Attempt, Attempt.id == Appeal.attempt_id)
                .join(Drill, Drill.id == Appeal.drill_id)
                .join(Workspace, Workspace.id == Appeal.workspace_id)
                .where(Appeal.status == "accepted")
                .order_by(Appeal.id)
            )
            if platform is not None and workspace is not None:
                ws = repo.find_workspace(s, platform, workspace)
                if ws is None:
                    return []
                q = q.where(Appeal.workspace_id == ws.id)
            rows: list[dict[str, object]] = []
            for ap, a, d, w in s.execute(q).all():
                if d.trace_id is not None:
                    continue  # a team's own trace: its reply is about data we must not publish as corpus
                rows.append(
                    {
                        "signature": d.signature,
                        "answer": a.answer_text,
                        "expect": {p: _label(_credit(a, p)) for p in PARTS},
                        "named": a.named,
                        "note": f"appeal: {ap.reason}"[:200],
                        "persona": f"{w.platform} appeal",
                        "writer": f"appeal-{w.id}-{ap.id}",
                        "source": f"appeal:{w.platform}#{ap.id}",
                    }
                )
            return rows


def _credit(a: Attempt, part: str) -> float:
    return float({"signature": a.signature_credit, "measurement": a.measurement_credit, "fix": a.fix_credit}[part])


def _label(credit: float) -> float | int:
    return int(credit) if credit in (0.0, 1.0) else credit  # the corpus writes 0, 0.5, 1


def _set_credit(a: Attempt, part: str, value: float) -> None:
    if part == "signature":
        a.signature_credit = value
    elif part == "measurement":
        a.measurement_credit = value
    else:
        a.fix_credit = value


def _earned(a: Attempt) -> float:
    return sum(PART_WEIGHTS[p] * _credit(a, p) for p in PARTS)


def _regraded_score(a: Attempt, old_earned: float) -> float:
    """The grader's weights over the ruled credits; a numbers bonus first earned stays (the old surplus)."""
    bonus = max(0.0, a.score - old_earned) if old_earned > 0 else 0.0
    return round(min(1.0, _earned(a) + bonus), 4)


def _info(s: Session, ap: Appeal, a: Attempt, u: User) -> AppealInfo:
    rulings = tuple(
        {
            "part": r.part,
            "accepted": r.accepted,
            "credit_before": r.credit_before,
            "credit_after": r.credit_after,
            "reviewer": r.reviewer,
            "note": r.note,
        }
        for r in s.scalars(select(AppealRuling).where(AppealRuling.appeal_id == ap.id).order_by(AppealRuling.id))
    )
    return AppealInfo(
        ap.id,
        ap.drill_id,
        u.display_name or u.external_id,
        ap.part,
        ap.reason,
        ap.status,
        ap.created_at.isoformat(),
        a.answer_text,
        {p: _credit(a, p) for p in PARTS},
        a.score,
        a.points,
        rulings,
    )
