"""solo drills and drills without a speed bonus

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 06:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("drills", schema=None) as batch_op:
        batch_op.add_column(sa.Column("solo", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column("speed_bonus", sa.Boolean(), server_default=sa.true(), nullable=False))
    # Drills played solo before this revision: `tracedrill play` posted them to terminal channels "solo-<user>".
    op.execute(
        "UPDATE drills SET solo = true WHERE channel_id IN (SELECT c.id FROM channels c JOIN workspaces w "
        "ON w.id = c.workspace_id WHERE w.platform = 'terminal' AND c.external_id LIKE 'solo-%')"
    )


def downgrade() -> None:
    with op.batch_alter_table("drills", schema=None) as batch_op:
        batch_op.drop_column("speed_bonus")
        batch_op.drop_column("solo")
