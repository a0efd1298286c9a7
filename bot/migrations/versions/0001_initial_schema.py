"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-29 08:20:58.729560
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    _create_workspaces()
    _create_channels()
    _create_delivery_keys()
    _create_leaderboard_archives()
    _create_users()
    _create_study_groups()
    _create_drills()
    _create_group_memberships()
    _create_attempts()


def _create_workspaces() -> None:
    op.create_table(
        "workspaces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("external_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform", "external_id", name="uq_workspace_platform_external"),
    )


def _create_channels() -> None:
    op.create_table(
        "channels",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("schedule_hour", sa.Integer(), nullable=True),
        sa.Column("schedule_minute", sa.Integer(), nullable=False),
        sa.Column("weekdays", sa.String(length=32), nullable=False),
        sa.Column("skip_dates", sa.JSON(), nullable=False),
        sa.Column("answer_mode", sa.String(length=8), nullable=False),
        sa.Column("difficulty", sa.String(length=8), nullable=False),
        sa.Column("signature_mix", sa.JSON(), nullable=True),
        sa.Column("answer_seconds", sa.Integer(), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("workspace_id", "external_id", name="uq_channel_workspace_external"),
    )
    with op.batch_alter_table("channels", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_channels_workspace_id"), ["workspace_id"], unique=False)


def _create_delivery_keys() -> None:
    op.create_table(
        "delivery_keys",
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("key"),
    )


def _create_leaderboard_archives() -> None:
    op.create_table(
        "leaderboard_archives",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.String(length=16), nullable=False),
        sa.Column("scope_id", sa.Integer(), nullable=False),
        sa.Column("period", sa.String(length=8), nullable=False),
        sa.Column("period_start", sa.Date(), nullable=False),
        sa.Column("rankings", sa.JSON(), nullable=False),
        sa.Column("announced", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("workspace_id", "scope", "scope_id", "period", "period_start", name="uq_archive_period"),
    )


def _create_users() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=64), nullable=False),
        sa.Column("display_name", sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("workspace_id", "external_id", name="uq_user_workspace_external"),
    )
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_users_workspace_id"), ["workspace_id"], unique=False)


def _create_study_groups() -> None:
    op.create_table(
        "study_groups",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=True),
        sa.Column("schedule_hours", sa.String(length=64), nullable=True),
        sa.Column("schedule_minute", sa.Integer(), nullable=False),
        sa.Column("weekdays", sa.String(length=32), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["created_by"], ["users.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("workspace_id", "name", name="uq_group_workspace_name"),
    )
    with op.batch_alter_table("study_groups", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_study_groups_workspace_id"), ["workspace_id"], unique=False)


def _create_drills() -> None:
    op.create_table(
        "drills",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("signature", sa.String(length=32), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("difficulty", sa.String(length=8), nullable=False),
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
    with op.batch_alter_table("drills", schema=None) as batch_op:
        batch_op.create_index("ix_drills_channel_posted", ["channel_id", "posted_at"], unique=False)
        batch_op.create_index("ix_drills_unrevealed_deadline", ["revealed_at", "deadline_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_drills_workspace_id"), ["workspace_id"], unique=False)


def _create_group_memberships() -> None:
    op.create_table(
        "group_memberships",
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["group_id"], ["study_groups.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("group_id", "user_id"),
    )


def _create_attempts() -> None:
    op.create_table(
        "attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("drill_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("signature", sa.String(length=32), nullable=False),
        sa.Column("answer_text", sa.Text(), nullable=False),
        sa.Column("signature_credit", sa.Float(), nullable=False),
        sa.Column("measurement_credit", sa.Float(), nullable=False),
        sa.Column("fix_credit", sa.Float(), nullable=False),
        sa.Column("named", sa.String(length=32), nullable=True),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("late", sa.Boolean(), nullable=False),
        sa.Column("revisions", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["channel_id"], ["channels.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["drill_id"], ["drills.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["group_id"], ["study_groups.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("drill_id", "user_id", "late", name="uq_attempt_drill_user_late"),
    )
    with op.batch_alter_table("attempts", schema=None) as batch_op:
        batch_op.create_index(
            "ix_attempts_board", ["channel_id", "late", "submitted_at", "user_id", "points"], unique=False
        )
        batch_op.create_index(
            "ix_attempts_group_board", ["group_id", "late", "submitted_at", "user_id", "points"], unique=False
        )
        batch_op.create_index("ix_attempts_user", ["user_id", "submitted_at"], unique=False)
        batch_op.create_index(
            "ix_attempts_workspace_board", ["workspace_id", "late", "submitted_at", "user_id", "points"], unique=False
        )


def downgrade() -> None:
    # ### commands auto generated by Alembic - please adjust! ###
    with op.batch_alter_table("attempts", schema=None) as batch_op:
        batch_op.drop_index("ix_attempts_workspace_board")
        batch_op.drop_index("ix_attempts_user")
        batch_op.drop_index("ix_attempts_group_board")
        batch_op.drop_index("ix_attempts_board")

    op.drop_table("attempts")
    op.drop_table("group_memberships")
    with op.batch_alter_table("drills", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_drills_workspace_id"))
        batch_op.drop_index("ix_drills_unrevealed_deadline")
        batch_op.drop_index("ix_drills_channel_posted")

    op.drop_table("drills")
    with op.batch_alter_table("study_groups", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_study_groups_workspace_id"))

    op.drop_table("study_groups")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_users_workspace_id"))

    op.drop_table("users")
    op.drop_table("leaderboard_archives")
    op.drop_table("delivery_keys")
    with op.batch_alter_table("channels", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_channels_workspace_id"))

    op.drop_table("channels")
    op.drop_table("workspaces")
    # ### end Alembic commands ###
