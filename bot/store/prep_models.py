"""Tables for interview prep: mental-math questions and answers (their own points and board), mock-interview
sessions and rounds, and schedules for both. Kept apart from models.py so the drill tables stay readable."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .models import Base


class MathQuestion(Base):
    __tablename__ = "math_questions"
    __table_args__ = (Index("ix_math_questions_unrevealed_deadline", "revealed_at", "deadline_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), index=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    group_id: Mapped[int | None] = mapped_column(ForeignKey("study_groups.id", ondelete="SET NULL"), nullable=True)
    kind: Mapped[str] = mapped_column(String(16))
    seed: Mapped[int] = mapped_column(Integer)  # < 2**31: fits every backend's INTEGER
    scheduled: Mapped[bool] = mapped_column(Boolean, default=False)
    posted_at: Mapped[datetime] = mapped_column()
    deadline_at: Mapped[datetime] = mapped_column()
    revealed_at: Mapped[datetime | None] = mapped_column(nullable=True)
    message_ref: Mapped[str | None] = mapped_column(String(200), nullable=True)
    reveal_ref: Mapped[str | None] = mapped_column(String(200), nullable=True)


class MathAnswer(Base):
    """One answer per person and question: the first one counts (it is a 30-second question)."""

    __tablename__ = "math_answers"
    __table_args__ = (
        UniqueConstraint("question_id", "user_id", name="uq_math_answer_question_user"),
        Index("ix_math_answers_board", "channel_id", "late", "submitted_at", "user_id", "points"),
        Index("ix_math_answers_group_board", "group_id", "late", "submitted_at", "user_id", "points"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("math_questions.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    group_id: Mapped[int | None] = mapped_column(ForeignKey("study_groups.id", ondelete="SET NULL"), nullable=True)
    answer_text: Mapped[str] = mapped_column(String(200))
    value: Mapped[float | None] = mapped_column(Float, nullable=True)  # None: no number in the reply
    correct: Mapped[bool] = mapped_column(Boolean)
    points: Mapped[int] = mapped_column(Integer)
    seconds: Mapped[float] = mapped_column(Float)
    late: Mapped[bool] = mapped_column(Boolean, default=False)
    submitted_at: Mapped[datetime] = mapped_column()


class InterviewSession(Base):
    __tablename__ = "interview_sessions"
    __table_args__ = (Index("ix_interview_sessions_user", "workspace_id", "user_id", "finished_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    group_id: Mapped[int | None] = mapped_column(ForeignKey("study_groups.id", ondelete="SET NULL"), nullable=True)
    rounds: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Integer)  # fixes the rounds (bot.interview.plan)
    current: Mapped[int] = mapped_column(Integer, default=1)  # the round being answered
    started_at: Mapped[datetime] = mapped_column()
    round_started_at: Mapped[datetime] = mapped_column()
    finished_at: Mapped[datetime | None] = mapped_column(nullable=True)


class InterviewRound(Base):
    __tablename__ = "interview_rounds"
    __table_args__ = (UniqueConstraint("session_id", "number", name="uq_interview_round_session_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("interview_sessions.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    signature: Mapped[str] = mapped_column(String(32))
    seed: Mapped[int] = mapped_column(Integer)
    difficulty: Mapped[str] = mapped_column(String(8))
    answer_text: Mapped[str] = mapped_column(Text)
    score: Mapped[float] = mapped_column(Float)
    narration: Mapped[float] = mapped_column(Float)
    combined: Mapped[float] = mapped_column(Float)
    seconds: Mapped[float] = mapped_column(Float)
    submitted_at: Mapped[datetime] = mapped_column()


class PrepSchedule(Base):
    """A recurring math question or interview session in a channel (optionally for a study group)."""

    __tablename__ = "prep_schedules"
    __table_args__ = (UniqueConstraint("channel_id", "kind", name="uq_prep_schedule_channel_kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), index=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    group_id: Mapped[int | None] = mapped_column(ForeignKey("study_groups.id", ondelete="SET NULL"), nullable=True)
    kind: Mapped[str] = mapped_column(String(16))  # math | interview
    weekdays: Mapped[str] = mapped_column(String(32))  # APScheduler day_of_week syntax
    hour: Mapped[int] = mapped_column(Integer)
    minute: Mapped[int] = mapped_column(Integer)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    rounds: Mapped[int] = mapped_column(Integer, default=3)
