"""reviews: a rejection's evidence; one appeal per rejected review

Issue 36 (quality decisions, items 3 and 4):
- review.reject_flags (JSON list of flag keys, NULL for every existing review) and review.reject_evidence
  (the short text staff chose, at most 500 characters): what a rejection rests on, shown to the participant.
- review_appeal: one appeal per review (review_id unique), the participant's message, open | overturned | upheld,
  who decided it and when, and the decision's note.
Existing rows are untouched: the columns are added with plain ALTER TABLE ... ADD COLUMN (nullable, no default),
never a batch copy (on SQLite a copy drops `review`, and dropping it deletes every reward through
reward.review_id's ON DELETE CASCADE). Downgrade drops the table and the columns (SQLite 3.35+ DROP COLUMN).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26 20:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("review", sa.Column("reject_flags", sa.JSON(), nullable=True))
    op.add_column("review", sa.Column("reject_evidence", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=True))
    op.create_table(
        "review_appeal",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("review_id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("message", sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), server_default="open", nullable=False),
        sa.Column("decided_by_id", sa.Integer(), nullable=True),
        sa.Column("decided_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("decision_note", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=True),
        sa.ForeignKeyConstraint(["review_id"], ["review.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("review_id", name="uq_review_appeal_review"),
    )
    op.create_index("ix_review_appeal_status_created", "review_appeal", ["status", "created_at"], unique=False)
    op.create_index("ix_review_appeal_account_id", "review_appeal", ["account_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_review_appeal_account_id", table_name="review_appeal")
    op.drop_index("ix_review_appeal_status_created", table_name="review_appeal")
    op.drop_table("review_appeal")
    # Plain ALTER TABLE ... DROP COLUMN (SQLite 3.35+ too), never a batch copy (see upgrade).
    op.drop_column("review", "reject_evidence")
    op.drop_column("review", "reject_flags")
