"""Appeals in the database: filing, listing, ruling (the attempt regraded under a row lock), reviewers, telling
appellants, and accepted appeals as corpus records. One function = one transaction; plain arguments in, frozen
dataclasses out. What a ruling is worth (credits, score, points, a phrase to remember) is the caller's policy,
passed in as a function so it runs inside the transaction without the store knowing the grader."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from . import repo
from .db import Database, begin_write
from .hints import AttemptScore, attempt_score
from .models import (
    Appeal,
    AppealReviewer,
    AppealRuling,
    Attempt,
    Channel,
    Drill,
    User,
    Workspace,
)
from .synonyms import remember_phrase

PARTS = ("signature", "measurement", "fix")  # the attempt's three credit columns


class AppealStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class Refusal(StrEnum):
    """Why the database side turned a request down; bot.drills words it for people."""

    NO_DRILL = "no_drill"
    NOT_REVEALED = "not_revealed"
    WINDOW_CLOSED = "window_closed"
    NO_ATTEMPT = "no_attempt"
    PART_TAKEN = "part_taken"  # another appeal covers one of these parts
    DOUBLE_FILING = "double_filing"  # two submits of the same part raced; the database kept one
    NO_APPEAL = "no_appeal"
    ALREADY_RULED = "already_ruled"


class AppealRefused(Exception):
    """Raised inside the transaction, so nothing it began is kept."""

    def __init__(self, refusal: Refusal, parts: tuple[str, ...] = ()) -> None:
        super().__init__(refusal.value)
        self.refusal = refusal
        self.parts = parts


def parts_of(part: str) -> tuple[str, ...]:
    return PARTS if part == "all" else (part,)


@dataclass(frozen=True, slots=True)
class AppealInfo:
    appeal_id: int
    drill_id: int
    user: str
    part: str  # all | signature | measurement | fix
    reason: str
    status: AppealStatus
    created_at: str
    answer: str
    credits: dict[str, float]
    score: float
    points: int
    rulings: tuple[dict[str, object], ...] = ()

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Filing:
    platform: str
    workspace: str
    user: str
    drill_id: int
    part: str
    reason: str


@dataclass(frozen=True, slots=True)
class RulingContext:
    """What the ruling policy reads: the appeal, the appellant and the attempt as it stands."""

    appeal_id: int
    appeal_part: str
    appellant_id: str
    appellant_name: str
    signature: str  # the drill's true signature
    answer: str
    credits: dict[str, float]
    attempt: AttemptScore
    points: int  # as stored


@dataclass(frozen=True, slots=True)
class RulingDecision:
    part: str
    accepted: bool
    credit_before: float
    credit_after: float
    score: float  # the attempt's score and points afterwards (as stored, after a rejection)
    points: int
    phrase: str | None  # a wording to remember for this workspace


@dataclass(frozen=True, slots=True)
class RulingRequest:
    platform: str
    workspace: str
    appeal_id: int
    reviewer: str
    note: str
    told: bool  # the caller tells the appellant now: the notice sweep skips it


@dataclass(frozen=True, slots=True)
class RulingRecord:
    appeal_id: int
    status: AppealStatus
    decision: RulingDecision
    points_before: int
    drill_id: int
    platform: str
    workspace: str
    appellant: str
    appellant_name: str


@dataclass(frozen=True, slots=True)
class Reviewer:
    kind: str  # user | group
    external_id: str


@dataclass(frozen=True, slots=True)
class Verdict:
    part: str
    accepted: bool
    note: str


@dataclass(frozen=True, slots=True)
class PendingNotice:
    """A ruling the appellant has not been told about, with what the telling needs."""

    appeal_id: int
    drill_id: int
    status: AppealStatus
    verdicts: tuple[Verdict, ...]  # the rulings since the last notice
    platform: str
    workspace: str
    channel: str
    channel_name: str
    user: str
    user_name: str


@dataclass(frozen=True, slots=True)
class AcceptedAppeal:
    appeal_id: int
    workspace_id: int
    platform: str
    signature: str
    answer: str
    credits: dict[str, float]
    named: str | None
    reason: str


# -- filing ---------------------------------------------------------------------------------------------------
def file_appeal(db: Database, filing: Filing, now: datetime, window: timedelta) -> AppealInfo:
    """Store an open appeal on the person's on-time attempt; raises AppealRefused."""
    with db.session() as s:
        ws = repo.find_workspace(s, filing.platform, filing.workspace)
        d = repo.drill(s, ws.id, filing.drill_id) if ws else None
        if ws is None or d is None:
            raise AppealRefused(Refusal.NO_DRILL)
        if d.revealed_at is None:
            raise AppealRefused(Refusal.NOT_REVEALED)
        if now - d.revealed_at > window:
            raise AppealRefused(Refusal.WINDOW_CLOSED)
        u = repo.find_user(s, ws, filing.user)
        a = _on_time_attempt(s, d.id, u.id) if u else None
        if a is None or u is None:
            raise AppealRefused(Refusal.NO_ATTEMPT)
        taken = {p for (p,) in s.execute(select(Appeal.part).where(Appeal.attempt_id == a.id))}
        overlap = {p for t in taken for p in parts_of(t)} & set(parts_of(filing.part))
        if overlap:
            raise AppealRefused(Refusal.PART_TAKEN, tuple(sorted(overlap)))
        appeal = Appeal(
            workspace_id=ws.id,
            attempt_id=a.id,
            drill_id=d.id,
            user_id=u.id,
            part=filing.part,
            reason=filing.reason,
            status=AppealStatus.OPEN.value,
            created_at=now,
        )
        begin_write(s)  # SQLite: the savepoint must not be the outermost transaction
        try:
            with s.begin_nested():  # a double submit of the same part: the database keeps one
                s.add(appeal)
        except IntegrityError as exc:
            raise AppealRefused(Refusal.DOUBLE_FILING) from exc
        return _info(s, appeal, a, u)


def _on_time_attempt(s: Session, drill_id: int, user_id: int) -> Attempt | None:
    q = select(Attempt).where(Attempt.drill_id == drill_id, Attempt.user_id == user_id, Attempt.late.is_(False))
    return s.scalars(q).first()


# -- listing --------------------------------------------------------------------------------------------------
def list_appeals(db: Database, platform: str, workspace: str, status: AppealStatus | None) -> list[AppealInfo]:
    with db.session() as s:
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
            q = q.where(Appeal.status == status.value)
        return [_info(s, ap, a, u) for ap, a, u in s.execute(q).all()]


# -- reviewers ------------------------------------------------------------------------------------------------
def add_reviewer(db: Database, platform: str, workspace: str, reviewer: Reviewer, now: datetime) -> None:
    with db.session() as s:
        ws = repo.workspace(s, platform, workspace, "", now)
        if s.get(AppealReviewer, (ws.id, reviewer.kind, reviewer.external_id)) is None:
            s.add(AppealReviewer(workspace_id=ws.id, kind=reviewer.kind, external_id=reviewer.external_id[:64]))


def reviewers(db: Database, platform: str, workspace: str) -> list[Reviewer]:
    with db.session() as s:
        ws = repo.find_workspace(s, platform, workspace)
        if ws is None:
            return []
        q = select(AppealReviewer.kind, AppealReviewer.external_id).where(AppealReviewer.workspace_id == ws.id)
        return [Reviewer(str(k), str(e)) for k, e in s.execute(q)]


# -- ruling ---------------------------------------------------------------------------------------------------
def rule(
    db: Database, request: RulingRequest, now: datetime, decide: Callable[[RulingContext], RulingDecision]
) -> RulingRecord:
    """Lock the appeal, let `decide` rule on the attempt as it stands (it may raise to refuse: nothing is kept),
    record the ruling once per part, regrade the attempt, and remember the phrase for the workspace. On SQLite the
    write lock is taken first (FOR UPDATE is a no-op there): two reviewers ruling parts of one appeal at once must
    each regrade the attempt as the other left it."""
    with db.session(immediate=True) as s:
        ws = repo.find_workspace(s, request.platform, request.workspace)
        ap = _locked_appeal(s, ws.id, request.appeal_id) if ws else None
        if ws is None or ap is None:
            raise AppealRefused(Refusal.NO_APPEAL)
        a, d, u = s.get_one(Attempt, ap.attempt_id), s.get_one(Drill, ap.drill_id), s.get_one(User, ap.user_id)
        decision = decide(_context(ap, a, d, u))
        _insert_ruling(s, ap, decision, request, now)
        points_before = a.points
        if decision.accepted:
            _regrade(a, d, decision)
        accepted = decision.accepted or ap.status == AppealStatus.ACCEPTED
        ap.status = (AppealStatus.ACCEPTED if accepted else AppealStatus.REJECTED).value
        ap.resolved_at = now
        if request.told:
            ap.notified_at = now
        if decision.phrase is not None:
            remember_phrase(s, ws.id, d.signature, decision.part, decision.phrase, ap.id, request.reviewer, now)
        return RulingRecord(
            ap.id,
            AppealStatus(ap.status),
            decision,
            points_before,
            d.id,
            ws.platform,
            ws.external_id,
            u.external_id,
            u.display_name,
        )


def _locked_appeal(s: Session, workspace_id: int, appeal_id: int) -> Appeal | None:
    q = select(Appeal).where(Appeal.id == appeal_id, Appeal.workspace_id == workspace_id).with_for_update()
    return s.scalars(q).first()


def _context(ap: Appeal, a: Attempt, d: Drill, u: User) -> RulingContext:
    return RulingContext(
        ap.id,
        ap.part,
        u.external_id,
        u.display_name,
        d.signature,
        a.answer_text,
        _credits(a),
        attempt_score(d, a),
        a.points,
    )


def _insert_ruling(s: Session, ap: Appeal, decision: RulingDecision, request: RulingRequest, now: datetime) -> None:
    ruling = AppealRuling(
        appeal_id=ap.id,
        attempt_id=ap.attempt_id,
        part=decision.part,
        accepted=decision.accepted,
        credit_before=decision.credit_before,
        credit_after=decision.credit_after,
        reviewer=request.reviewer,
        note=request.note,
        created_at=now,
    )
    begin_write(s)  # SQLite: the savepoint must not be the outermost transaction
    try:
        with s.begin_nested():  # one ruling per part: a second reviewer at the same moment loses here
            s.add(ruling)
    except IntegrityError as exc:
        raise AppealRefused(Refusal.ALREADY_RULED, (decision.part,)) from exc


def _regrade(a: Attempt, d: Drill, decision: RulingDecision) -> None:
    if decision.part == "signature":
        a.signature_credit = decision.credit_after
        if decision.credit_after > 0:
            a.named = d.signature  # the reviewer ruled that the reply commits to the true signature
    elif decision.part == "measurement":
        a.measurement_credit = decision.credit_after
    else:
        a.fix_credit = decision.credit_after
    a.score = decision.score
    a.points = decision.points


def forget_told(db: Database, appeal_id: int) -> None:
    """Telling failed: leave the ruling to the notice sweep."""
    with db.session() as s:
        ap = s.get(Appeal, appeal_id)
        if ap is not None:
            ap.notified_at = None


# -- notices --------------------------------------------------------------------------------------------------
def pending_notices(db: Database, limit: int = 100) -> list[PendingNotice]:
    """Rulings made since the appellant was last told (or never told), oldest appeal first."""
    with db.session() as s:
        q = (
            select(Appeal, User, Workspace, Channel)
            .join(Drill, Drill.id == Appeal.drill_id)
            .join(User, User.id == Appeal.user_id)
            .join(Workspace, Workspace.id == Appeal.workspace_id)
            .join(Channel, Channel.id == Drill.channel_id)
            .where(
                Appeal.resolved_at.is_not(None),
                or_(Appeal.notified_at.is_(None), Appeal.notified_at < Appeal.resolved_at),
            )
            .order_by(Appeal.id)
            .limit(limit)
        )
        return [
            PendingNotice(
                ap.id,
                ap.drill_id,
                AppealStatus(ap.status),
                _verdicts_since(s, ap.id, ap.notified_at),
                w.platform,
                w.external_id,
                ch.external_id,
                ch.name,
                u.external_id,
                u.display_name,
            )
            for ap, u, w, ch in s.execute(q).all()
        ]


def _verdicts_since(s: Session, appeal_id: int, since: datetime | None) -> tuple[Verdict, ...]:
    q = select(AppealRuling).where(AppealRuling.appeal_id == appeal_id).order_by(AppealRuling.id)
    return tuple(Verdict(r.part, r.accepted, r.note) for r in s.scalars(q) if since is None or r.created_at > since)


def mark_told(db: Database, appeal_id: int, now: datetime) -> None:
    with db.session() as s:
        s.execute(
            update(Appeal)
            .where(Appeal.id == appeal_id)
            .values(notified_at=now)
            .execution_options(synchronize_session=False)
        )


# -- the corpus -----------------------------------------------------------------------------------------------
def accepted_appeals(db: Database, platform: str | None, workspace: str | None) -> list[AcceptedAppeal]:
    """Accepted appeals on generated drills, every workspace or one. A drill from a team's own trace is left out:
    its reply is about data that must not be published as corpus."""
    with db.session() as s:
        q = (
            select(Appeal, Attempt, Drill, Workspace)
            .join(Attempt, Attempt.id == Appeal.attempt_id)
            .join(Drill, Drill.id == Appeal.drill_id)
            .join(Workspace, Workspace.id == Appeal.workspace_id)
            .where(Appeal.status == AppealStatus.ACCEPTED.value)
            .order_by(Appeal.id)
        )
        if platform is not None and workspace is not None:
            ws = repo.find_workspace(s, platform, workspace)
            if ws is None:
                return []
            q = q.where(Appeal.workspace_id == ws.id)
        return [
            AcceptedAppeal(ap.id, w.id, w.platform, d.signature, a.answer_text, _credits(a), a.named, ap.reason)
            for ap, a, d, w in s.execute(q).all()
            if d.trace_id is None
        ]


def _credits(a: Attempt) -> dict[str, float]:
    return {
        "signature": float(a.signature_credit),
        "measurement": float(a.measurement_credit),
        "fix": float(a.fix_credit),
    }


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
        AppealStatus(ap.status),
        ap.created_at.isoformat(),
        a.answer_text,
        _credits(a),
        a.score,
        a.points,
        rulings,
    )
