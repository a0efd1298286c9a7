"""drill slots (one scheduled drill per channel and slot) and failed posts

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 06:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("drills", schema=None) as batch_op:
        batch_op.add_column(sa.Column("slot_key", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("failed_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_unique_constraint("uq_drills_channel_slot", ["channel_id", "slot_key"])


def downgrade() -> None:
    with op.batch_alter_table("drills", schema=None) as batch_op:
        batch_op.drop_constraint("uq_drills_channel_slot", type_="unique")
        batch_op.drop_column("failed_at")
        batch_op.drop_column("slot_key")
