"""messages: threads between staff and a participant, their messages, and group sends

Issue 38, item 3:
- message_thread: a conversation with one participant, about a test (one of their reviews) or general.
- message: each message of a thread, from staff or the participant, with when its reader opened it.
- message_group: one message staff sent to a filtered group (request_key unique: a repeat is one send).
Nothing existing is changed; downgrade drops what upgrade added.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-29 03:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "message_thread",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("test_id", sa.Integer(), nullable=True),
        sa.Column("review_id", sa.Integer(), nullable=True),
        sa.Column("subject", TEXT(length=120), nullable=False),
        sa.Column("started_by_staff", sa.Boolean(), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.Column("last_message_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["test_id"], ["test.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["review_id"], ["review.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_message_thread_account_last", "message_thread", ["account_id", "last_message_at"])
    op.create_index("ix_message_thread_test_last", "message_thread", ["test_id", "last_message_at"])
    op.create_index("ix_message_thread_last", "message_thread", ["last_message_at"])
    op.create_table(
        "message_group",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("staff_id", sa.Integer(), nullable=True),
        sa.Column("subject", TEXT(length=120), nullable=False),
        sa.Column("body", TEXT(length=5000), nullable=False),
        sa.Column("criteria", sa.JSON(), nullable=False),
        sa.Column("recipients", sa.Integer(), nullable=False),
        sa.Column("request_key", TEXT(length=64), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["staff_id"], ["account.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("request_key"),
    )
    op.create_table(
        "message",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("thread_id", sa.Integer(), nullable=False),
        sa.Column("from_staff", sa.Boolean(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=True),
        sa.Column("body", TEXT(length=5000), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.Column("read_at", WHEN(), nullable=True),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["thread_id"], ["message_thread.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["author_id"], ["account.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["group_id"], ["message_group.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_message_thread_unread", "message", ["thread_id", "from_staff", "read_at"])


def downgrade() -> None:
    op.drop_index("ix_message_thread_unread", table_name="message")
    op.drop_table("message")
    op.drop_table("message_group")
    op.drop_index("ix_message_thread_last", table_name="message_thread")
    op.drop_index("ix_message_thread_test_last", table_name="message_thread")
    op.drop_index("ix_message_thread_account_last", table_name="message_thread")
    op.drop_table("message_thread")
