"""review reading signals

Highlight and pricing reviews (issue 13) keep the reading signals measured while the test was
taken: seconds on each pre-check page, the deepest scroll of the screenshot, seconds per block.
One JSON column on review, NOT NULL with '{}' for every existing review (server default, so the
upgrade fills old rows without touching their data). Downgrade drops the column.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 14:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN on both databases: SQLite's batch mode would copy and drop the review
    # table, and dropping it would cascade to the rewards that reference it.
    op.add_column('review', sa.Column('signals', sa.JSON(), nullable=False, server_default=sa.text("'{}'")))


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':  # SQLite 3.35+ drops a column in place
        op.execute('ALTER TABLE review DROP COLUMN signals')
    else:
        op.drop_column('review', 'signals')
