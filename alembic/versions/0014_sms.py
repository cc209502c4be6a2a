"""sms: a participant's phone and its confirmation, the kinds chosen as texts, and the SMS outbox

Issue 38, item 2:
- phone_contact: one row per account (its mobile number, confirmed by a code, stopped by a STOP reply).
- sms_opt_in: the notification kinds an account gets as texts too (primary key account + kind).
- outbox_sms: the texts to send (codes and notifications), delivered by the SMS sender.
Nothing existing is changed; downgrade drops what upgrade added.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-29 03:50:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "phone_contact",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("phone", TEXT(length=20), nullable=False),
        sa.Column("confirmed_at", WHEN(), nullable=True),
        sa.Column("stopped_at", WHEN(), nullable=True),
        sa.Column("code_hash", TEXT(length=64), nullable=True),
        sa.Column("code_expires_at", WHEN(), nullable=True),
        sa.Column("code_tries", sa.Integer(), nullable=False),
        sa.Column("updated_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id"),
    )
    op.create_index("ix_phone_contact_phone", "phone_contact", ["phone"], unique=False)
    op.create_table(
        "sms_opt_in",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("kind", TEXT(length=32), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", "kind"),
    )
    op.create_table(
        "outbox_sms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=True),
        sa.Column("to_number", TEXT(length=20), nullable=False),
        sa.Column("body", TEXT(length=1600), nullable=False),
        sa.Column("kind", TEXT(length=32), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", WHEN(), nullable=False),
        sa.Column("sent_at", WHEN(), nullable=True),
        sa.Column("provider_id", TEXT(length=64), nullable=True),
        sa.Column("last_error", TEXT(length=1000), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_outbox_sms_pending", "outbox_sms", ["sent_at", "next_attempt_at"], unique=False)
    op.create_index(
        "ix_outbox_sms_account_kind_created", "outbox_sms", ["account_id", "kind", "created_at"], unique=False
    )
    op.create_index("ix_outbox_sms_to_kind_created", "outbox_sms", ["to_number", "kind", "created_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_outbox_sms_to_kind_created", table_name="outbox_sms")
    op.drop_index("ix_outbox_sms_account_kind_created", table_name="outbox_sms")
    op.drop_index("ix_outbox_sms_pending", table_name="outbox_sms")
    op.drop_table("outbox_sms")
    op.drop_table("sms_opt_in")
    op.drop_index("ix_phone_contact_phone", table_name="phone_contact")
    op.drop_table("phone_contact")
