"""interview prep: math questions and answers, interview sessions, prep schedules

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 05:53:27.961886
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    _create_interview_sessions()
    _create_math_questions()
    _create_prep_schedules()
    _create_interview_rounds()
    _create_math_answers()


def _create_interview_sessions() -> None:
    op.create_table(
        "interview_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("current", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("round_started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["group_id"], ["study_groups.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("interview_sessions", schema=None) as batch_op:
        batch_op.create_index("ix_interview_sessions_user", ["workspace_id", "user_id", "finished_at"], unique=False)


def _create_math_questions() -> None:
    op.create_table(
        "math_questions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("scheduled", sa.Boolean(), nullable=False),
        sa.Column("posted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revealed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("message_ref", sa.String(length=200), nullable=True),
        sa.Column("reveal_ref", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["group_id"], ["study_groups.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("math_questions", schema=None) as batch_op:
        batch_op.create_index("ix_math_questions_unrevealed_deadline", ["revealed_at", "deadline_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_math_questions_workspace_id"), ["workspace_id"], unique=False)


def _create_prep_schedules() -> None:
    op.create_table(
        "prep_schedules",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("weekdays", sa.String(length=32), nullable=False),
        sa.Column("hour", sa.Integer(), nullable=False),
        sa.Column("minute", sa.Integer(), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["group_id"], ["study_groups.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("channel_id", "kind", name="uq_prep_schedule_channel_kind"),
    )
    with op.batch_alter_table("prep_schedules", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_prep_schedules_workspace_id"), ["workspace_id"], unique=False)


def _create_interview_rounds() -> None:
    op.create_table(
        "interview_rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("signature", sa.String(length=32), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("difficulty", sa.String(length=8), nullable=False),
        sa.Column("answer_text", sa.Text(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("narration", sa.Float(), nullable=False),
        sa.Column("combined", sa.Float(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["session_id"], ["interview_sessions.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("session_id", "number", name="uq_interview_round_session_number"),
    )


def _create_math_answers() -> None:
    op.create_table(
        "math_answers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("answer_text", sa.String(length=200), nullable=False),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("late", sa.Boolean(), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["group_id"], ["study_groups.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["question_id"], ["math_questions.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("question_id", "user_id", name="uq_math_answer_question_user"),
    )
    with op.batch_alter_table("math_answers", schema=None) as batch_op:
        batch_op.create_index(
            "ix_math_answers_board", ["channel_id", "late", "submitted_at", "user_id", "points"], unique=False
        )
        batch_op.create_index(
            "ix_math_answers_group_board", ["group_id", "late", "submitted_at", "user_id", "points"], unique=False
        )


def downgrade() -> None:
    # ### commands auto generated by Alembic - please adjust! ###
    with op.batch_alter_table("math_answers", schema=None) as batch_op:
        batch_op.drop_index("ix_math_answers_group_board")
        batch_op.drop_index("ix_math_answers_board")

    op.drop_table("math_answers")
    op.drop_table("interview_rounds")
    with op.batch_alter_table("prep_schedules", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_prep_schedules_workspace_id"))

    op.drop_table("prep_schedules")
    with op.batch_alter_table("math_questions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_math_questions_workspace_id"))
        batch_op.drop_index("ix_math_questions_unrevealed_deadline")

    op.drop_table("math_questions")
    with op.batch_alter_table("interview_sessions", schema=None) as batch_op:
        batch_op.drop_index("ix_interview_sessions_user")

    op.drop_table("interview_sessions")
    # ### end Alembic commands ###
