"""'Delete my account' (issue 40, item 2): account.deleted_at, and the one change the audit log allows, an erasure

- account.deleted_at: the row of a deleted account stays (its rewards, reviews and audit rows point to it) with its
  personal data erased; deleted_at says that it happened. NULL for every existing account.
- audit_log.erased_at, and the append-only trigger relaxed by exactly one case: an UPDATE that stamps erased_at and
  leaves the row's id, time, actor id and role, action and target as they were (it replaces a deleted person's
  address in actor_email, before and after by their account id). Any other UPDATE, and every DELETE, is still
  refused.
Plain ADD/DROP COLUMN: a batch copy of `account` on SQLite would cascade-delete the rows that point to it.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02 07:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHEN = sqlmodel.sql.sqltypes.UTCDateTime
REFUSED = "audit_log is append-only"

PG_ERASURE_ONLY = f"""
CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.erased_at IS NOT NULL
     AND (OLD.erased_at IS NULL OR NEW.erased_at >= OLD.erased_at)
     AND NEW.id = OLD.id AND NEW.created_at = OLD.created_at
     AND NEW.actor_id IS NOT DISTINCT FROM OLD.actor_id AND NEW.actor_role = OLD.actor_role
     AND NEW.action = OLD.action AND NEW.target_type = OLD.target_type AND NEW.target_id = OLD.target_id THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION '{REFUSED}';
END $$;
"""
PG_APPEND_ONLY = f"""
CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION '{REFUSED}'; END $$;
"""
SQLITE_ERASURE_ONLY = (
    "CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log WHEN NOT ("
    "NEW.erased_at IS NOT NULL AND (OLD.erased_at IS NULL OR NEW.erased_at >= OLD.erased_at) "
    "AND NEW.id = OLD.id AND NEW.created_at = OLD.created_at AND NEW.actor_id IS OLD.actor_id "
    "AND NEW.actor_role = OLD.actor_role AND NEW.action = OLD.action AND NEW.target_type = OLD.target_type "
    f"AND NEW.target_id = OLD.target_id) BEGIN SELECT RAISE(ABORT, '{REFUSED}'); END"
)
SQLITE_APPEND_ONLY = f"CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, '{REFUSED}'); END"


def upgrade() -> None:
    op.add_column("account", sa.Column("deleted_at", WHEN(), nullable=True))
    op.add_column("audit_log", sa.Column("erased_at", WHEN(), nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        op.execute(PG_ERASURE_ONLY)
    else:
        op.execute("DROP TRIGGER audit_log_no_update")
        op.execute(SQLITE_ERASURE_ONLY)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(PG_APPEND_ONLY)
    else:
        op.execute("DROP TRIGGER audit_log_no_update")
        op.execute(SQLITE_APPEND_ONLY)
    op.drop_column("audit_log", "erased_at")
    op.drop_column("account", "deleted_at")
