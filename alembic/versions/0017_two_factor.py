"""two-factor sign-in: an authenticator per account and its single-use recovery codes

Issue 40, item 1:
- two_factor: an account's TOTP secret (encrypted), when it was turned on, the last step a code was used for.
- recovery_code: ten single-use codes per account, only their SHA-256.
Nothing existing is changed; downgrade drops what upgrade added (two-factor sign-in is off again for everyone).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02 07:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "two_factor",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("secret", TEXT(length=255), nullable=False),
        sa.Column("enabled_at", WHEN(), nullable=True),
        sa.Column("last_used_step", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id"),
    )
    op.create_table(
        "recovery_code",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("code_hash", TEXT(length=64), nullable=False),
        sa.Column("used_at", WHEN(), nullable=True),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["account.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_recovery_code_account_id", "recovery_code", ["account_id"])
    op.create_index("uq_recovery_code_account_hash", "recovery_code", ["account_id", "code_hash"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_recovery_code_account_hash", table_name="recovery_code")
    op.drop_index("ix_recovery_code_account_id", table_name="recovery_code")
    op.drop_table("recovery_code")
    op.drop_table("two_factor")
