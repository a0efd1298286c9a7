"""hints taken, appeals, rulings, workspace synonyms, reviewers; attempts.hint_cost (issue 17)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 05:43:43.492979
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    _create_appeal_reviewers()
    _create_hints_taken()
    _create_appeals()
    _create_appeal_rulings()
    _create_workspace_synonyms()
    _add_attempts_hint_cost()


def _create_appeal_reviewers() -> None:
    op.create_table(
        "appeal_reviewers",
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("external_id", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("workspace_id", "kind", "external_id"),
    )


def _create_hints_taken() -> None:
    op.create_table(
        "hints_taken",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("drill_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("cost", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["drill_id"], ["drills.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("drill_id", "user_id", "level", name="uq_hint_drill_user_level"),
    )
    with op.batch_alter_table("hints_taken", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_hints_taken_workspace_id"), ["workspace_id"], unique=False)


def _create_appeals() -> None:
    op.create_table(
        "appeals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("attempt_id", sa.Integer(), nullable=False),
        sa.Column("drill_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("part", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("notified_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["attempt_id"], ["attempts.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["drill_id"], ["drills.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("attempt_id", "part", name="uq_appeal_attempt_part"),
    )
    with op.batch_alter_table("appeals", schema=None) as batch_op:
        batch_op.create_index("ix_appeals_workspace_status", ["workspace_id", "status", "created_at"], unique=False)


def _create_appeal_rulings() -> None:
    op.create_table(
        "appeal_rulings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("appeal_id", sa.Integer(), nullable=False),
        sa.Column("attempt_id", sa.Integer(), nullable=False),
        sa.Column("part", sa.String(length=16), nullable=False),
        sa.Column("accepted", sa.Boolean(), nullable=False),
        sa.Column("credit_before", sa.Float(), nullable=False),
        sa.Column("credit_after", sa.Float(), nullable=False),
        sa.Column("reviewer", sa.String(length=200), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["appeal_id"], ["appeals.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["attempt_id"], ["attempts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("attempt_id", "part", name="uq_ruling_attempt_part"),
    )
    with op.batch_alter_table("appeal_rulings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_appeal_rulings_appeal_id"), ["appeal_id"], unique=False)


def _create_workspace_synonyms() -> None:
    op.create_table(
        "workspace_synonyms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("workspace_id", sa.Integer(), nullable=False),
        sa.Column("signature", sa.String(length=32), nullable=False),
        sa.Column("part", sa.String(length=16), nullable=False),
        sa.Column("phrase", sa.String(length=80), nullable=False),
        sa.Column("appeal_id", sa.Integer(), nullable=True),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["appeal_id"], ["appeals.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("workspace_id", "signature", "part", "phrase", name="uq_synonym_workspace_phrase"),
    )
    with op.batch_alter_table("workspace_synonyms", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_workspace_synonyms_workspace_id"), ["workspace_id"], unique=False)


def _add_attempts_hint_cost() -> None:
    with op.batch_alter_table("attempts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("hint_cost", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    # ### commands auto generated by Alembic - please adjust! ###
    with op.batch_alter_table("attempts", schema=None) as batch_op:
        batch_op.drop_column("hint_cost")

    with op.batch_alter_table("workspace_synonyms", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_workspace_synonyms_workspace_id"))

    op.drop_table("workspace_synonyms")
    with op.batch_alter_table("appeal_rulings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_appeal_rulings_appeal_id"))

    op.drop_table("appeal_rulings")
    with op.batch_alter_table("appeals", schema=None) as batch_op:
        batch_op.drop_index("ix_appeals_workspace_status")

    op.drop_table("appeals")
    with op.batch_alter_table("hints_taken", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hints_taken_workspace_id"))

    op.drop_table("hints_taken")
    op.drop_table("appeal_reviewers")
    # ### end Alembic commands ###
