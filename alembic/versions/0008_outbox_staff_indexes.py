"""outbox: indexes for the staff outbox page (/admin/outbox)

Issue 16 (staff admin, part 2). Only adds indexes; no data changes:
- outbox_email (created_at, id): the page's default order (newest first) and its date filter;
- on PostgreSQL, a trigram index on outbox_email.to_address for its search by address
  (as 0004 and 0007 made them for the other staff tables).
Downgrade drops them.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 20:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index('ix_outbox_email_created_id', 'outbox_email', ['created_at', 'id'], unique=False)
    if op.get_bind().dialect.name == 'postgresql':
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        op.execute("CREATE INDEX ix_outbox_email_to_address_trgm ON outbox_email USING gin (to_address gin_trgm_ops)")


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.drop_index('ix_outbox_email_to_address_trgm', table_name='outbox_email')
    op.drop_index('ix_outbox_email_created_id', table_name='outbox_email')
