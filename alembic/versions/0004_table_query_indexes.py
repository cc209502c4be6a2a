"""table query indexes

The home page's invites and rewards tables (bench/table_query.py): a participant's page
of ids is read in (created_at, id) order from the index alone (PostgreSQL INCLUDE
columns carry what status filters and search need); open invites are counted from
(account_id, status, expires_at); the rewards table sorted by test type or searched
reads the account's reviews and their tests as one index range; search uses trigram
(pg_trgm) indexes on the test name and type (PostgreSQL only). The new
(account_id, created_at, id) indexes replace the (account_id, created_at) ones.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21 16:59:33.502661
"""

from collections.abc import Sequence

from alembic import op


revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        # Search ('%text%' on the test name or type) through trigram indexes instead of reading every test.
        # PostgreSQL only (pg_trgm is a trusted extension); SQLite scans, which is fine at its scale.
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        op.create_index('ix_test_name_trgm', 'test', ['name'], postgresql_using='gin', postgresql_ops={'name': 'gin_trgm_ops'})
        op.create_index('ix_test_product_type_trgm', 'test', ['product_type'], postgresql_using='gin',
                        postgresql_ops={'product_type': 'gin_trgm_ops'})

    with op.batch_alter_table('invite', schema=None) as batch_op:
        batch_op.create_index('ix_invite_account_created_id', ['account_id', 'created_at', 'id'], unique=False, postgresql_include=['status', 'expires_at', 'test_id'])
        batch_op.create_index('ix_invite_account_status_expires', ['account_id', 'status', 'expires_at'], unique=False)
        batch_op.drop_index('ix_invite_account_created')
        batch_op.drop_index('ix_invite_account_status')

    with op.batch_alter_table('review', schema=None) as batch_op:
        batch_op.create_index('ix_review_account_id_test', ['account_id', 'id'], unique=False, postgresql_include=['test_id'])

    with op.batch_alter_table('reward', schema=None) as batch_op:
        batch_op.create_index('ix_reward_account_created_id', ['account_id', 'created_at', 'id'], unique=False, postgresql_include=['review_id', 'status'])
        batch_op.drop_index('ix_reward_account_created')


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_index('ix_test_product_type_trgm', table_name='test')
        op.drop_index('ix_test_name_trgm', table_name='test')

    with op.batch_alter_table('reward', schema=None) as batch_op:
        batch_op.create_index('ix_reward_account_created', ['account_id', 'created_at'], unique=False)
        batch_op.drop_index('ix_reward_account_created_id')

    with op.batch_alter_table('review', schema=None) as batch_op:
        batch_op.drop_index('ix_review_account_id_test')

    with op.batch_alter_table('invite', schema=None) as batch_op:
        batch_op.create_index('ix_invite_account_status', ['account_id', 'status'], unique=False)
        batch_op.create_index('ix_invite_account_created', ['account_id', 'created_at'], unique=False)
        batch_op.drop_index('ix_invite_account_status_expires')
        batch_op.drop_index('ix_invite_account_created_id')
