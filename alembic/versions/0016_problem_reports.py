"""problem reports: 'Report a problem' while taking a test, and a test paused by them

Issue 38, item 4:
- problem_report: each report (the test, the reporter's session and account, category, text, when staff saw and
  handled it).
- test.paused_at: when reports paused the test (NULL for every existing test; 'paused' is a new test status).
Nothing existing is changed; downgrade drops what upgrade added (a test still paused goes back to running).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-29 03:45:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "problem_report",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("test_id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.Column("account_id", sa.Integer(), nullable=True),
        sa.Column("respondent_key", TEXT(length=300), nullable=False),
        sa.Column("category", TEXT(length=32), nullable=False),
        sa.Column("text", TEXT(length=2000), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.Column("seen_at", WHEN(), nullable=True),
        sa.Column("handled_at", WHEN(), nullable=True),
        sa.Column("outcome", TEXT(length=16), nullable=True),
        sa.ForeignKeyConstraint(["test_id"], ["test.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["session_id"], ["review_session.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_problem_report_test_handled", "problem_report", ["test_id", "handled_at"])
    op.create_index("ix_problem_report_created", "problem_report", ["created_at"])
    op.add_column("test", sa.Column("paused_at", WHEN(), nullable=True))


def downgrade() -> None:
    op.execute("UPDATE test SET status = 'running' WHERE status = 'paused'")
    # A plain DROP COLUMN (SQLite 3.35+): a batch copy of `test` would cascade-delete its invites and rewards.
    op.drop_column("test", "paused_at")
    op.drop_index("ix_problem_report_created", table_name="problem_report")
    op.drop_index("ix_problem_report_test_handled", table_name="problem_report")
    op.drop_table("problem_report")
