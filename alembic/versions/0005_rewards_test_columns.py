"""rewards test columns

The rewards table (issue 6, bench/table_query.py) sorted by test type or searched read
all of a participant's rewards joined to their reviews and tests (23-86 ms for 6,000
rewards). The reward row now carries copies of its review's test id and the test's
product type (they never change for a review): reward.test_id and reward.product_type,
backfilled from review and test on existing databases, then NOT NULL. Indexes:
(account_id, product_type, id) for the sort by test type, (account_id, test_id) for
search (the tests matching the search, then the account's rewards for them). The
review index (account_id, id) INCLUDE (test_id) of 0004, only read by the rewards table,
is dropped. Downgrade restores it and drops the new columns and indexes (no data lost:
the copies are derived).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21 18:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Works on PostgreSQL and SQLite (3.33+): one pass over the rewards, review and test joined.
BACKFILL = """
UPDATE reward SET test_id = review.test_id, product_type = test.product_type
FROM review JOIN test ON test.id = review.test_id
WHERE review.id = reward.review_id
"""


def upgrade() -> None:
    with op.batch_alter_table('reward', schema=None) as batch_op:
        batch_op.add_column(sa.Column('test_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('product_type', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True))

    op.execute(BACKFILL)

    with op.batch_alter_table('reward', schema=None) as batch_op:
        batch_op.alter_column('test_id', existing_type=sa.Integer(), nullable=False)
        batch_op.alter_column('product_type', existing_type=sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False)
        batch_op.create_index('ix_reward_account_type_id', ['account_id', 'product_type', 'id'], unique=False)
        batch_op.create_index('ix_reward_account_test', ['account_id', 'test_id'], unique=False)

    with op.batch_alter_table('review', schema=None) as batch_op:
        batch_op.drop_index('ix_review_account_id_test')


def downgrade() -> None:
    with op.batch_alter_table('review', schema=None) as batch_op:
        batch_op.create_index('ix_review_account_id_test', ['account_id', 'id'], unique=False, postgresql_include=['test_id'])

    with op.batch_alter_table('reward', schema=None) as batch_op:
        batch_op.drop_index('ix_reward_account_test')
        batch_op.drop_index('ix_reward_account_type_id')
        batch_op.drop_column('product_type')
        batch_op.drop_column('test_id')
