"""staff admin: review decisions, payable rewards, change-request queue, invite batches, audit log

Issue 15 (staff admin, part 1). Every change adds; nothing existing is rewritten or dropped:
- review: status ('submitted' for every existing review, then 'approved' where its reward was
  already paid), decided_at, decided_by_id, reject_reason, reject_note; indexes for a test's reviews
  by date and for the automatic approval.
- reward: approved_at (payable once set; backfilled with paid_on for paid rewards); an index by status.
- review_session: an index (status, deadline_at) for clearing expired pending reviews.
- profile_change_request: previous (the replaced values; '{}' for existing rows, shown as 'not
  recorded'), status ('pending' for participants' existing requests, 'approved' for staff edits),
  decided_at, decided_by_id; an index by status.
- invite: batch_id; new table invite_batch.
- account: an index (created_at, id) for the participants table; participant_profile: (last_name, account_id)
  and (country, account_id) for its sorts by name and country and its country filter; on PostgreSQL, trigram
  indexes for its search (e-mail, work e-mail, 'first last', last name), as 0004 made them for tests.
- review and reward: an index (created_at, id) each for the staff tables' default order (bench/admin_tables.py).
- audit_log: new, append-only: a trigger refuses UPDATE and DELETE on both databases.
Plain ADD COLUMN on SQLite (batch mode would copy and drop review, cascading to rewards). Downgrade
drops what was added.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 16:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

S = sqlmodel.sql.sqltypes.AutoString

ADDED = {
    'review': [
        sa.Column('status', S(length=16), nullable=False, server_default='submitted'),
        sa.Column('decided_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('decided_by_id', sa.Integer(), nullable=True),
        sa.Column('reject_reason', S(length=40), nullable=True),
        sa.Column('reject_note', S(length=1000), nullable=True),
    ],
    'reward': [sa.Column('approved_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)],
    'profile_change_request': [
        sa.Column('previous', sa.JSON(), nullable=False, server_default=sa.text("'{}'")),
        sa.Column('status', S(length=16), nullable=False, server_default='pending'),
        sa.Column('decided_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('decided_by_id', sa.Integer(), nullable=True),
    ],
    'invite': [sa.Column('batch_id', sa.Integer(), nullable=True)],
}
INDEXES = [
    ('ix_review_test_created', 'review', ['test_id', 'created_at']),
    ('ix_review_status_created', 'review', ['status', 'created_at']),
    ('ix_reward_status_created', 'reward', ['status', 'created_at']),
    ('ix_review_session_status_deadline', 'review_session', ['status', 'deadline_at']),
    ('ix_profile_change_request_status_created', 'profile_change_request', ['status', 'created_at']),
    ('ix_account_created_id', 'account', ['created_at', 'id']),
    ('ix_participant_profile_last_name_id', 'participant_profile', ['last_name', 'account_id']),
    ('ix_participant_profile_country_id', 'participant_profile', ['country', 'account_id']),
    ('ix_review_created_id', 'review', ['created_at', 'id']),
    ('ix_reward_created_id', 'reward', ['created_at', 'id']),
]
# PostgreSQL only, like 0004's (pg_trgm; the models leave *_trgm indexes to the migrations, see alembic/env.py).
# The full-name expression is the one services/admin/participants.py searches.
PG_TRIGRAM = [
    ('ix_account_email_trgm', 'account', 'email'),
    ('ix_account_work_email_trgm', 'account', 'work_email'),
    ('ix_participant_profile_last_name_trgm', 'participant_profile', 'last_name'),
    ('ix_participant_profile_full_name_trgm', 'participant_profile', "(first_name || ' ' || last_name)"),
]

PG_APPEND_ONLY = """
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
"""
SQLITE_APPEND_ONLY = [
    "CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
    "CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
]


def upgrade() -> None:
    for table, columns in ADDED.items():
        for column in columns:
            op.add_column(table, column)
    # Reviews whose reward was paid were accepted; their rewards were payable from the payment on.
    op.execute("UPDATE reward SET approved_at = paid_on WHERE status = 'EXECUTED'")
    op.execute("UPDATE review SET status = 'approved', decided_at = (SELECT reward.paid_on FROM reward "
               "WHERE reward.review_id = review.id) WHERE id IN (SELECT review_id FROM reward WHERE status = 'EXECUTED')")
    # Staff edits were decided by the staff member who made them.
    op.execute("UPDATE profile_change_request SET status = 'approved', decided_at = created_at WHERE updated_by_admin")
    for name, table, columns in INDEXES:
        op.create_index(name, table, columns, unique=False)
    if op.get_bind().dialect.name == 'postgresql':
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        for name, table, expression in PG_TRIGRAM:
            op.execute(f"CREATE INDEX {name} ON {table} USING gin ({expression} gin_trgm_ops)")

    op.create_table(
        'invite_batch',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('test_id', sa.Integer(), nullable=False),
        sa.Column('created_by_id', sa.Integer(), nullable=True),
        sa.Column('criteria', sa.JSON(), nullable=False),
        sa.Column('amount_override_cents', sa.Integer(), nullable=True),
        sa.Column('requested', sa.Integer(), nullable=False),
        sa.Column('sent', sa.Integer(), nullable=False),
        sa.Column('skipped', sa.Integer(), nullable=False),
        sa.Column('status', S(length=16), nullable=False),
        sa.Column('error', S(length=500), nullable=True),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(['test_id'], ['test.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_invite_batch_test_id', 'invite_batch', ['test_id'], unique=False)

    op.create_table(
        'audit_log',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('actor_id', sa.Integer(), nullable=True),
        sa.Column('actor_email', S(length=320), nullable=False),
        sa.Column('actor_role', S(length=32), nullable=False),
        sa.Column('action', S(length=64), nullable=False),
        sa.Column('target_type', S(length=32), nullable=False),
        sa.Column('target_id', S(length=64), nullable=False),
        sa.Column('before', sa.JSON(), nullable=False),
        sa.Column('after', sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_audit_log_created_id', 'audit_log', ['created_at', 'id'], unique=False)
    op.create_index('ix_audit_log_actor_created', 'audit_log', ['actor_id', 'created_at'], unique=False)
    op.create_index('ix_audit_log_action_created', 'audit_log', ['action', 'created_at'], unique=False)
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(PG_APPEND_ONLY)
    else:
        for statement in SQLITE_APPEND_ONLY:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute("DROP TRIGGER audit_log_append_only ON audit_log")
        op.execute("DROP FUNCTION audit_log_append_only()")
    op.drop_table('audit_log')  # SQLite drops the table's triggers with it
    op.drop_index('ix_invite_batch_test_id', table_name='invite_batch')
    op.drop_table('invite_batch')
    if op.get_bind().dialect.name == 'postgresql':
        for name, table, _ in reversed(PG_TRIGRAM):
            op.drop_index(name, table_name=table)
    for name, table, _ in reversed(INDEXES):
        op.drop_index(name, table_name=table)
    sqlite = op.get_bind().dialect.name == 'sqlite'
    for table, columns in reversed(ADDED.items()):
        for column in reversed(columns):
            if sqlite:  # SQLite 3.35+ drops a column in place
                op.execute(f'ALTER TABLE {table} DROP COLUMN {column.name}')
            else:
                op.drop_column(table, column.name)
