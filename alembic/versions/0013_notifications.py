"""notifications: sent once per person and event, kinds turned off, one-click unsubscribe

Issue 38, item 1:
- notification: one row per (account, kind, subject key), unique: a notification's e-mail is queued only when its
  row was inserted, so nobody gets the same notification twice.
- notification_opt_out: the kinds an account turned off (primary key account + kind).
- outbox_email.unsubscribe_url: the List-Unsubscribe URL of a notification's e-mail (NULL for every existing row).
- ix_invite_status_expires: the reminder job's reading of open invites about to expire.
Nothing existing is changed or copied; downgrade drops what upgrade added.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 23:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "notification",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("kind", TEXT(length=32), nullable=False),
        sa.Column("subject_key", TEXT(length=120), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("account_id", "kind", "subject_key", name="uq_notification_once"),
    )
    op.create_table(
        "notification_opt_out",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("kind", TEXT(length=32), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", "kind"),
    )
    op.add_column("outbox_email", sa.Column("unsubscribe_url", TEXT(length=2000), nullable=True))
    op.create_index("ix_invite_status_expires", "invite", ["status", "expires_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_invite_status_expires", table_name="invite")
    with op.batch_alter_table("outbox_email", schema=None) as batch:
        batch.drop_column("unsubscribe_url")
    op.drop_table("notification_opt_out")
    op.drop_table("notification")
