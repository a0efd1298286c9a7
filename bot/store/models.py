"""Typed SQLAlchemy 2 models. Every row that belongs to a team carries its workspace id."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy import false as sa_false
from sqlalchemy import true as sa_true
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes on every backend (SQLite keeps no zone: store naive UTC, hand back aware)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the database; use aware UTC datetimes")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime}


class Workspace(Base):
    __tablename__ = "workspaces"
    __table_args__ = (UniqueConstraint("platform", "external_id", name="uq_workspace_platform_external"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))  # slack | discord | terminal
    external_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column()
    enterprise_id: Mapped[str | None] = mapped_column(String(64), nullable=True)  # Slack Enterprise Grid org


class Channel(Base):
    __tablename__ = "channels"
    __table_args__ = (UniqueConstraint("workspace_id", "external_id", name="uq_channel_workspace_external"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), index=True)
    external_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200), default="")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    schedule_hour: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: no daily drill
    schedule_minute: Mapped[int] = mapped_column(Integer, default=0)
    weekdays: Mapped[str] = mapped_column(String(32), default="mon-fri")  # APScheduler day_of_week syntax
    skip_dates: Mapped[list[str]] = mapped_column(JSON, default=list)  # ISO dates without a drill
    # modal | thread | both. Modal by default: answers stay hidden until the reveal, so nobody copies.
    answer_mode: Mapped[str] = mapped_column(String(8), default="modal")
    difficulty: Mapped[str] = mapped_column(String(8), default="medium")
    signature_mix: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)  # None: all ten
    answer_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: the global default
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)


class User(Base):
    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("workspace_id", "external_id", name="uq_user_workspace_external"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), index=True)
    external_id: Mapped[str] = mapped_column(String(64))
    display_name: Mapped[str] = mapped_column(String(200), default="")


class StudyGroup(Base):
    __tablename__ = "study_groups"
    __table_args__ = (UniqueConstraint("workspace_id", "name", name="uq_group_workspace_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    channel_id: Mapped[int | None] = mapped_column(ForeignKey("channels.id", ondelete="SET NULL"), nullable=True)
    # A group may drill on its own schedule: e.g. hours "9,13,17" for interview prep.
    schedule_hours: Mapped[str | None] = mapped_column(String(64), nullable=True)
    schedule_minute: Mapped[int] = mapped_column(Integer, default=0)
    weekdays: Mapped[str] = mapped_column(String(32), default="mon-fri")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    created_at: Mapped[datetime] = mapped_column()


class GroupMembership(Base):
    __tablename__ = "group_memberships"

    group_id: Mapped[int] = mapped_column(ForeignKey("study_groups.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    joined_at: Mapped[datetime] = mapped_column()


class TraceUpload(Base):
    """A team's own trace, kept so drills can be made from it (content-addressed per workspace)."""

    __tablename__ = "trace_uploads"
    __table_args__ = (UniqueConstraint("workspace_id", "sha256", name="uq_trace_workspace_sha"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), index=True)
    sha256: Mapped[str] = mapped_column(String(64))
    filename: Mapped[str] = mapped_column(String(200))
    signature: Mapped[str] = mapped_column(String(32))  # the analysis' top finding: the drill's answer
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column()


class Drill(Base):
    __tablename__ = "drills"
    __table_args__ = (
        Index("ix_drills_channel_posted", "channel_id", "posted_at"),
        Index("ix_drills_unrevealed_deadline", "revealed_at", "deadline_at"),
        # One drill per channel and scheduled slot, whoever fires it: two leaders can't both post the daily drill.
        UniqueConstraint("channel_id", "slot_key", name="uq_drills_channel_slot"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), index=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    group_id: Mapped[int | None] = mapped_column(ForeignKey("study_groups.id", ondelete="SET NULL"), nullable=True)
    trace_id: Mapped[int | None] = mapped_column(  # a drill made from a team's own trace
        ForeignKey("trace_uploads.id", ondelete="SET NULL", name="fk_drills_trace_id"), nullable=True
    )
    signature: Mapped[str] = mapped_column(String(32))
    seed: Mapped[int] = mapped_column(Integer)
    difficulty: Mapped[str] = mapped_column(String(8))
    scheduled: Mapped[bool] = mapped_column(Boolean, default=False)
    # Solo practice (`tracedrill play`) counts on the player's own solo board, never on channel boards; a drill
    # without a timer earns no speed bonus.
    solo: Mapped[bool] = mapped_column(Boolean, default=False, server_default=sa_false())
    speed_bonus: Mapped[bool] = mapped_column(Boolean, default=True, server_default=sa_true())
    posted_at: Mapped[datetime] = mapped_column()
    deadline_at: Mapped[datetime] = mapped_column()
    revealed_at: Mapped[datetime | None] = mapped_column(nullable=True)
    message_ref: Mapped[str | None] = mapped_column(String(200), nullable=True)  # the platform's message id
    reveal_ref: Mapped[str | None] = mapped_column(String(200), nullable=True)
    # "channel:2026-03-02T09:00Z" or "group:7:…" for scheduled drills; None for drills people start.
    slot_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    failed_at: Mapped[datetime | None] = mapped_column(nullable=True)  # its post failed: never revealed


class Attempt(Base):
    """One scored answer per user and drill (revised in place until the deadline); late ones apart."""

    __tablename__ = "attempts"
    __table_args__ = (
        UniqueConstraint("drill_id", "user_id", "late", name="uq_attempt_drill_user_late"),
        # The leaderboard query reads only this index: channel, on-time, period, then user and points.
        Index("ix_attempts_board", "channel_id", "late", "submitted_at", "user_id", "points"),
        Index("ix_attempts_workspace_board", "workspace_id", "late", "submitted_at", "user_id", "points"),
        Index("ix_attempts_group_board", "group_id", "late", "submitted_at", "user_id", "points"),
        Index("ix_attempts_user", "user_id", "submitted_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    drill_id: Mapped[int] = mapped_column(ForeignKey("drills.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    group_id: Mapped[int | None] = mapped_column(ForeignKey("study_groups.id", ondelete="SET NULL"), nullable=True)
    signature: Mapped[str] = mapped_column(String(32))  # the drill's true signature, for skill stats
    answer_text: Mapped[str] = mapped_column(Text)
    signature_credit: Mapped[float] = mapped_column(Float)
    measurement_credit: Mapped[float] = mapped_column(Float)
    fix_credit: Mapped[float] = mapped_column(Float)
    named: Mapped[str | None] = mapped_column(String(32), nullable=True)
    score: Mapped[float] = mapped_column(Float)
    points: Mapped[int] = mapped_column(Integer)
    submitted_at: Mapped[datetime] = mapped_column()
    late: Mapped[bool] = mapped_column(Boolean, default=False)
    revisions: Mapped[int] = mapped_column(Integer, default=0)
    hint_cost: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # points the hints took


class DeliveryKey(Base):
    """Idempotency: a platform event (same key) has its effect once, however often it is delivered."""

    __tablename__ = "delivery_keys"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column()


class LeaderboardArchive(Base):
    __tablename__ = "leaderboard_archives"
    __table_args__ = (
        UniqueConstraint("workspace_id", "scope", "scope_id", "period", "period_start", name="uq_archive_period"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    scope: Mapped[str] = mapped_column(String(16))  # channel | workspace | group
    scope_id: Mapped[int] = mapped_column(Integer)
    period: Mapped[str] = mapped_column(String(8))  # week | month
    period_start: Mapped[date] = mapped_column(Date)
    rankings: Mapped[list[dict[str, object]]] = mapped_column(JSON)
    announced: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column()


class BotState(Base):
    """Small named values the bot keeps across restarts (e.g. the hash of the Discord commands last synced)."""

    __tablename__ = "bot_state"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))
    updated_at: Mapped[datetime] = mapped_column()


# -- hints and appeals (issue 17) ---------------------------------------------------------------------------------
class HintTaken(Base):
    """A hint a person asked for during a drill: each level once, its cost taken off that person's attempt."""

    __tablename__ = "hints_taken"
    __table_args__ = (UniqueConstraint("drill_id", "user_id", "level", name="uq_hint_drill_user_level"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), index=True)
    drill_id: Mapped[int] = mapped_column(ForeignKey("drills.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    level: Mapped[int] = mapped_column(Integer)  # 1: which reading step; 2: which rows and time range
    cost: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column()


class Appeal(Base):
    """A person contesting the grade of their attempt: one part, or "all" three (the CLI's form)."""

    __tablename__ = "appeals"
    __table_args__ = (
        UniqueConstraint("attempt_id", "part", name="uq_appeal_attempt_part"),
        Index("ix_appeals_workspace_status", "workspace_id", "status", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    attempt_id: Mapped[int] = mapped_column(ForeignKey("attempts.id", ondelete="CASCADE"))
    drill_id: Mapped[int] = mapped_column(ForeignKey("drills.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    part: Mapped[str] = mapped_column(String(16))  # all | signature | measurement | fix
    reason: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="open")  # open | accepted | rejected
    created_at: Mapped[datetime] = mapped_column()
    resolved_at: Mapped[datetime | None] = mapped_column(nullable=True)
    notified_at: Mapped[datetime | None] = mapped_column(nullable=True)


class AppealRuling(Base):
    """A reviewer's ruling on one part; the database allows one per part of an attempt."""

    __tablename__ = "appeal_rulings"
    __table_args__ = (UniqueConstraint("attempt_id", "part", name="uq_ruling_attempt_part"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    appeal_id: Mapped[int] = mapped_column(ForeignKey("appeals.id", ondelete="CASCADE"), index=True)
    attempt_id: Mapped[int] = mapped_column(ForeignKey("attempts.id", ondelete="CASCADE"))
    part: Mapped[str] = mapped_column(String(16))  # signature | measurement | fix
    accepted: Mapped[bool] = mapped_column(Boolean)
    credit_before: Mapped[float] = mapped_column(Float)
    credit_after: Mapped[float] = mapped_column(Float)
    reviewer: Mapped[str] = mapped_column(String(200))
    note: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column()


class WorkspaceSynonym(Base):
    """A wording a reviewer chose to remember: it earns its part in this workspace from then on."""

    __tablename__ = "workspace_synonyms"
    __table_args__ = (
        UniqueConstraint("workspace_id", "signature", "part", "phrase", name="uq_synonym_workspace_phrase"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), index=True)
    signature: Mapped[str] = mapped_column(String(32))
    part: Mapped[str] = mapped_column(String(16))
    phrase: Mapped[str] = mapped_column(String(80))
    appeal_id: Mapped[int | None] = mapped_column(ForeignKey("appeals.id", ondelete="SET NULL"), nullable=True)
    created_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column()


class AppealReviewer(Base):
    """Who may rule on appeals besides workspace admins: a person or a group (Slack user group, Discord role)."""

    __tablename__ = "appeal_reviewers"

    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)  # user | group
    external_id: Mapped[str] = mapped_column(String(64), primary_key=True)
