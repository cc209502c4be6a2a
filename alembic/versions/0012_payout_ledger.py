"""rewards: the payout ledger, the referral bonus as a reward, provider webhooks

Issue 37 (rewards actually paid):
- reward.review_id, test_id and product_type become nullable: a referral bonus is a reward of its own with no review
  (kind 'referral-bonus', referral_member_id unique: one bonus per referee). Every existing reward keeps its values
  and gets kind 'review'.
- reward: the payout's state (payout: NULL | sending | sent | paid | failed | canceled), the provider, its order and
  reward ids and status, the failure's reason, the e-mail the link went to, when it was ordered and sent, attempts,
  when the job next looks at it, the newest provider event applied; indexes for the job and for webhooks.
- account.payment_email and payment_email_changed_at: where rewards links go, and the 48-hour wait after a change;
  account.tax_hold_at and tax_details_at: payouts held until the participant's tax details are on file.
- payout_event: each provider webhook recorded once (unique provider + event id).
On SQLite, making columns nullable copies the reward table (batch mode; nothing references reward, so the copy
loses nothing; migration 0005 did the same). Bonuses credited before 0012 (shown as paid, never paid) become
payable bonus rewards. Downgrade deletes the bonus rewards (they have no review) and restores
the NOT NULL columns; the referral_member rows keep their bonus amount and date, as before 0012.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26 22:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXT = sqlmodel.sql.sqltypes.AutoString
WHEN = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    with op.batch_alter_table("reward", schema=None) as batch:
        batch.alter_column("review_id", existing_type=sa.Integer(), nullable=True)
        batch.alter_column("test_id", existing_type=sa.Integer(), nullable=True)
        batch.alter_column("product_type", existing_type=TEXT(length=40), nullable=True)
        batch.add_column(sa.Column("kind", TEXT(length=20), server_default="review", nullable=False))
        batch.add_column(sa.Column("referral_member_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("payout", TEXT(length=16), nullable=True))
        batch.add_column(sa.Column("provider", TEXT(length=20), nullable=True))
        batch.add_column(sa.Column("provider_order_id", TEXT(length=40), nullable=True))
        batch.add_column(sa.Column("provider_reward_id", TEXT(length=40), nullable=True))
        batch.add_column(sa.Column("provider_status", TEXT(length=40), nullable=True))
        batch.add_column(sa.Column("failure_reason", TEXT(length=300), nullable=True))
        batch.add_column(sa.Column("payment_email", TEXT(length=320), nullable=True))
        batch.add_column(sa.Column("ordered_at", WHEN(), nullable=True))
        batch.add_column(sa.Column("sent_at", WHEN(), nullable=True))
        batch.add_column(sa.Column("attempts", sa.Integer(), server_default="0", nullable=False))
        batch.add_column(sa.Column("next_attempt_at", WHEN(), nullable=True))
        batch.add_column(sa.Column("last_event_at", WHEN(), nullable=True))
        batch.create_unique_constraint("uq_reward_referral_member", ["referral_member_id"])
        batch.create_foreign_key(
            "fk_reward_referral_member", "referral_member", ["referral_member_id"], ["id"], ondelete="SET NULL"
        )
        batch.create_index("ix_reward_payout_next", ["payout", "next_attempt_at"], unique=False)
        batch.create_index("ix_reward_provider_reward", ["provider_reward_id"], unique=False)
    # Bonuses credited before 0012 were shown as paid but never paid: each becomes a payable reward of its own.
    op.execute(
        "INSERT INTO reward (account_id, amount_cents, status, created_at, approved_at, kind, referral_member_id, "
        "attempts) SELECT referrer_account_id, reward_cents, 'PENDING', reward_paid_at, reward_paid_at, "
        "'referral-bonus', id, 0 FROM referral_member WHERE reward_paid_at IS NOT NULL AND reward_cents IS NOT NULL"
    )
    op.add_column("account", sa.Column("payment_email", TEXT(length=320), nullable=True))
    op.add_column("account", sa.Column("payment_email_changed_at", WHEN(), nullable=True))
    op.add_column("account", sa.Column("tax_hold_at", WHEN(), nullable=True))
    op.add_column("account", sa.Column("tax_details_at", WHEN(), nullable=True))
    op.create_table(
        "payout_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("provider", TEXT(length=20), nullable=False),
        sa.Column("event_id", TEXT(length=80), nullable=False),
        sa.Column("name", TEXT(length=80), nullable=False),
        sa.Column("resource_id", TEXT(length=80), nullable=False),
        sa.Column("happened_at", WHEN(), nullable=False),
        sa.Column("received_at", WHEN(), nullable=False),
        sa.Column("outcome", TEXT(length=200), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("provider", "event_id", name="uq_payout_event_provider_event"),
    )


def downgrade() -> None:
    op.drop_table("payout_event")
    op.drop_column("account", "tax_details_at")
    op.drop_column("account", "tax_hold_at")
    op.drop_column("account", "payment_email_changed_at")
    op.drop_column("account", "payment_email")
    op.execute("DELETE FROM reward WHERE review_id IS NULL")
    with op.batch_alter_table("reward", schema=None) as batch:
        batch.drop_index("ix_reward_provider_reward")
        batch.drop_index("ix_reward_payout_next")
        batch.drop_constraint("fk_reward_referral_member", type_="foreignkey")
        batch.drop_constraint("uq_reward_referral_member", type_="unique")
        for column in (
            "last_event_at",
            "next_attempt_at",
            "attempts",
            "sent_at",
            "ordered_at",
            "payment_email",
            "failure_reason",
            "provider_status",
            "provider_reward_id",
            "provider_order_id",
            "provider",
            "payout",
            "referral_member_id",
            "kind",
        ):
            batch.drop_column(column)
        batch.alter_column("product_type", existing_type=TEXT(length=40), nullable=False)
        batch.alter_column("test_id", existing_type=sa.Integer(), nullable=False)
        batch.alter_column("review_id", existing_type=sa.Integer(), nullable=False)
