"""The partner platforms' round trips (issue 39, item 5): partner_entry (an arrival from a partner's link, checked by
the server), partner_callback (the reports owed to the partners, an outbox), and a unique index on
review.survey_code (a crowd-work completion code names one review). Additive: no existing row changes.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02 11:45:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "partner_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("partner", TEXT(length=16), nullable=False),
        sa.Column("test_id", sa.Integer(), nullable=False),
        sa.Column("token", TEXT(length=64), nullable=False),
        sa.Column("respondent_key", TEXT(length=300), nullable=True),
        sa.Column("project_id", TEXT(length=100), nullable=True),
        sa.Column("screener_response_id", TEXT(length=100), nullable=True),
        sa.Column("assignment_id", TEXT(length=100), nullable=True),
        sa.Column("worker_id", TEXT(length=100), nullable=True),
        sa.Column("hit_id", TEXT(length=100), nullable=True),
        sa.Column("submit_to", TEXT(length=300), nullable=True),
        sa.Column("panel", TEXT(length=100), nullable=True),
        sa.Column("rid", TEXT(length=100), nullable=True),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("review_id", sa.Integer(), nullable=True),
        sa.Column("outcome", TEXT(length=16), nullable=True),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["test_id"], ["test.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["review_id"], ["review.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token"),
    )
    op.create_index("ix_partner_entry_test_respondent", "partner_entry", ["test_id", "respondent_key"])
    op.create_index("ix_partner_entry_assignment_id", "partner_entry", ["assignment_id"])
    op.create_index("ix_partner_entry_review_id", "partner_entry", ["review_id"])
    op.create_table(
        "partner_callback",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("partner", TEXT(length=16), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("outcome", TEXT(length=16), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", WHEN(), nullable=False),
        sa.Column("delivered_at", WHEN(), nullable=True),
        sa.Column("last_error", TEXT(length=1000), nullable=True),
        sa.ForeignKeyConstraint(["entry_id"], ["partner_entry.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_partner_callback_pending", "partner_callback", ["delivered_at", "next_attempt_at"])
    op.create_index("ix_partner_callback_entry_id", "partner_callback", ["entry_id"])
    op.create_index("uq_review_survey_code", "review", ["survey_code"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_review_survey_code", table_name="review")
    op.drop_index("ix_partner_callback_entry_id", table_name="partner_callback")
    op.drop_index("ix_partner_callback_pending", table_name="partner_callback")
    op.drop_table("partner_callback")
    op.drop_index("ix_partner_entry_review_id", table_name="partner_entry")
    op.drop_index("ix_partner_entry_assignment_id", table_name="partner_entry")
    op.drop_index("ix_partner_entry_test_respondent", table_name="partner_entry")
    op.drop_table("partner_entry")
