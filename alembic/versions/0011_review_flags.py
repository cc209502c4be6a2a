"""reviews: quality flags stored per review, and when each test's flags were computed

Issue 36 (item 2): the flags of a review depend on the whole test (the medians, the texts of other reviews), so a
job computes them per test and stores them, for the reviews table to show and filter by.
- review_flag: one row per review and flag (key, plain-language label, strength, value, median); unique per
  (review, key); indexed by (key, review_id) for the filter.
- quality_run: one row per test: the round of computation, how many reviews it covered (and the newest), when, and
  the medians of
  the test's signals (JSON).
- ix_review_decided_at on review: the reviews decided since a test's flags were computed.
No existing row changes: two new tables and one index. Downgrade drops them.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26 22:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "review_flag",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("review_id", sa.Integer(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("label", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("strength", sa.Float(), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("median", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["review_id"], ["review.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("review_id", "key", name="uq_review_flag_review_key"),
    )
    op.create_index("ix_review_flag_key_review", "review_flag", ["key", "review_id"], unique=False)
    op.create_table(
        "quality_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("test_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("last_review_id", sa.Integer(), nullable=False),
        sa.Column("computed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("medians", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["test_id"], ["test.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("test_id"),
    )
    op.create_index("ix_review_decided_at", "review", ["decided_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_review_decided_at", table_name="review")
    op.drop_table("quality_run")
    op.drop_index("ix_review_flag_key_review", table_name="review_flag")
    op.drop_table("review_flag")
