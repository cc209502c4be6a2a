"""The REST API (issue 39): API keys, the answers of idempotent writes, webhook subscriptions and their outbox; the
audit log names the key a write was made with

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02 11:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "api_key",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", TEXT(length=100), nullable=False),
        sa.Column("prefix", TEXT(length=16), nullable=False),
        sa.Column("key_hash", TEXT(length=64), nullable=False),
        sa.Column("scopes", sa.JSON(), nullable=False),
        sa.Column("rate_per_minute", sa.Integer(), nullable=False),
        sa.Column("created_by_id", sa.Integer(), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.Column("last_used_at", WHEN(), nullable=True),
        sa.Column("revoked_at", WHEN(), nullable=True),
        sa.Column("revoked_by_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["created_by_id"], ["account.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key_hash"),
    )
    op.create_index("ix_api_key_created_by_id", "api_key", ["created_by_id"])
    op.create_table(
        "idempotent_request",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("api_key_id", sa.Integer(), nullable=False),
        sa.Column("key", TEXT(length=255), nullable=False),
        sa.Column("fingerprint", TEXT(length=64), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=False),
        sa.Column("response", sa.JSON(), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.ForeignKeyConstraint(["api_key_id"], ["api_key.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("uq_idempotent_request_key", "idempotent_request", ["api_key_id", "key"], unique=True)
    op.create_index("ix_idempotent_request_created_at", "idempotent_request", ["created_at"])
    op.create_table(
        "webhook_subscription",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("api_key_id", sa.Integer(), nullable=False),
        sa.Column("url", TEXT(length=2000), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("secret", TEXT(length=500), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.Column("disabled_at", WHEN(), nullable=True),
        sa.ForeignKeyConstraint(["api_key_id"], ["api_key.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_webhook_subscription_api_key_id", "webhook_subscription", ["api_key_id"])
    op.create_table(
        "webhook_delivery",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("subscription_id", sa.Integer(), nullable=False),
        sa.Column("event_id", TEXT(length=64), nullable=False),
        sa.Column("event_type", TEXT(length=64), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", WHEN(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", WHEN(), nullable=False),
        sa.Column("claimed_until", WHEN(), nullable=True),
        sa.Column("delivered_at", WHEN(), nullable=True),
        sa.Column("given_up_at", WHEN(), nullable=True),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", TEXT(length=1000), nullable=True),
        sa.ForeignKeyConstraint(["subscription_id"], ["webhook_subscription.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_webhook_delivery_due", "webhook_delivery", ["delivered_at", "given_up_at", "next_attempt_at"]
    )
    op.create_index("uq_webhook_delivery_event", "webhook_delivery", ["subscription_id", "event_id"], unique=True)
    op.create_index("ix_webhook_delivery_created_id", "webhook_delivery", ["created_at", "id"])
    # The audit log names the API key a write was made with (a plain ADD COLUMN: the append-only triggers stay).
    op.add_column("audit_log", sa.Column("api_key_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("audit_log", "api_key_id")
    op.drop_index("ix_webhook_delivery_created_id", table_name="webhook_delivery")
    op.drop_index("uq_webhook_delivery_event", table_name="webhook_delivery")
    op.drop_index("ix_webhook_delivery_due", table_name="webhook_delivery")
    op.drop_table("webhook_delivery")
    op.drop_index("ix_webhook_subscription_api_key_id", table_name="webhook_subscription")
    op.drop_table("webhook_subscription")
    op.drop_index("ix_idempotent_request_created_at", table_name="idempotent_request")
    op.drop_index("uq_idempotent_request_key", table_name="idempotent_request")
    op.drop_table("idempotent_request")
    op.drop_index("ix_api_key_created_by_id", table_name="api_key")
    op.drop_table("api_key")
