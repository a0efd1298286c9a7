"""chat second pass: Slack Enterprise Grid id on workspaces, bot_state (Discord command-tree hash), answer
mode modal by default

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 06:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("workspaces", schema=None) as batch_op:
        batch_op.add_column(sa.Column("enterprise_id", sa.String(length=64), nullable=True))
    op.create_table(
        "bot_state",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.String(length=200), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    # No command could set the answer mode before this revision, so every "both" is the old default: make
    # those channels modal-only (answers hidden until the reveal). `/trace config` changes it per channel.
    op.execute("UPDATE channels SET answer_mode = 'modal' WHERE answer_mode = 'both'")


def downgrade() -> None:
    op.drop_table("bot_state")
    with op.batch_alter_table("workspaces", schema=None) as batch_op:
        batch_op.drop_column("enterprise_id")
