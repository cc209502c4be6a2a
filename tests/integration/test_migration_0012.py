"""Migration 0012 on a database that already has tests, reviews (decided ones among them), rewards in every payment
status, an appeal and a referral programme with two members (one credited with a bonus before 0012, one not):
every reward keeps every value it had and becomes a review reward not yet ordered, the credited member's bonus
becomes one payable reward of its own (none for the other member), the payout columns, indexes and the payout_event
table are added, a second bonus for the same referee is refused, and the downgrade keeps every review reward and
removes the bonus rows; up again makes the bonus once more.

On SQLite and PostgreSQL: filled at 0004 and 0011 through their own (reflected) tables, upgraded to 0012,
downgraded to 0011 and upgraded again.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from alembic import command
from portal.db import make_engine
from tests.integration.test_migration_0005 import NOW, _config, _fill_at_0004, _rewards
from tests.integration.test_migration_0006 import _reviews
from tests.integration.test_migration_0009 import _rows
from tests.integration.test_migration_0010 import _decide_some
from tests.integration.test_migration_0011 import APPEALS, REVIEW_COLUMNS, TESTS
from tests.support.services import fresh_postgres

CREDITED_AT = NOW + timedelta(days=3)
NEW_REWARD_COLUMNS = (
    "kind",
    "referral_member_id",
    "payout",
    "provider",
    "provider_order_id",
    "provider_reward_id",
    "provider_status",
    "failure_reason",
    "payment_email",
    "ordered_at",
    "sent_at",
    "attempts",
    "next_attempt_at",
    "last_event_at",
)
MEMBERS = (
    "SELECT id, program_id, referrer_account_id, referee_account_id, email, reward_cents, reward_paid_at "
    "FROM referral_member ORDER BY id"
)
BONUSES = (
    "SELECT account_id, amount_cents, status, approved_at, created_at, review_id, test_id, product_type, kind, "
    "referral_member_id, payout, attempts, paid_on FROM reward WHERE review_id IS NULL ORDER BY id"
)


@pytest.fixture(params=["sqlite", "postgres"])
def url_at_0004(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'old.db'}" if request.param == "sqlite" else fresh_postgres()
    command.upgrade(_config(url), "0004")
    return url


def _reward_columns(engine: sa.Engine) -> tuple[str, ...]:
    """Every column reward has at 0011 (but its id), as the table says."""
    return tuple(c["name"] for c in sa.inspect(engine).get_columns("reward") if c["name"] != "id")


def _at_0011(engine: sa.Engine, url: str) -> tuple[int, int]:
    """Filled at 0004, upgraded to 0011: reviews decided, rewards in every payment status, an appeal, a referral
    programme with a credited member and one not credited. The two members' ids (credited first)."""
    _fill_at_0004(engine)
    command.upgrade(_config(url), "0011")
    ids = _decide_some(engine)
    with engine.begin() as conn:
        rewards = [r[0] for r in conn.execute(sa.text("SELECT id FROM reward ORDER BY id")).all()]
        assert len(rewards) == 4
        for n, (reward_id, status) in enumerate(
            zip(rewards, ("PENDING", "EXECUTED", "FAILED", "CANCELED"), strict=True)
        ):
            conn.execute(
                sa.text("UPDATE reward SET status = :status, approved_at = :approved, paid_on = :paid WHERE id = :id"),
                {
                    "status": status,
                    "approved": NOW + timedelta(hours=n) if status != "PENDING" else None,
                    "paid": NOW + timedelta(days=1) if status == "EXECUTED" else None,
                    "id": reward_id,
                },
            )
        conn.execute(
            sa.text(
                "INSERT INTO review_appeal (review_id, account_id, message, created_at, status) "
                "SELECT id, account_id, 'I read every question.', :now, 'open' FROM review WHERE id = :id"
            ),
            {"now": NOW, "id": ids[0]},
        )
        conn.execute(
            sa.text(
                "INSERT INTO referral_program (id, name, bonus_cents, active) VALUES (1, 'Friends', 2000, :active)"
            ),
            {"active": True},
        )
        # Account 1 referred account 2 (credited: the bonus was 'paid' before 0012) and someone not yet signed up.
        conn.execute(
            sa.text(
                "INSERT INTO referral_member (id, program_id, referrer_account_id, referee_account_id, first_name, "
                "email, created_at, reward_cents, reward_paid_at) "
                "VALUES (7, 1, 1, 2, 'Bo', 'old-2@example.com', :now, 2000, :paid)"
            ),
            {"now": NOW, "paid": CREDITED_AT},
        )
        conn.execute(
            sa.text(
                "INSERT INTO referral_member (id, program_id, referrer_account_id, referee_account_id, first_name, "
                "email, created_at, reward_cents, reward_paid_at) "
                "VALUES (8, 1, 1, NULL, 'Cy', 'friend@example.com', :now, NULL, NULL)"
            ),
            {"now": NOW},
        )
    return 7, 8


def _snapshot(engine: sa.Engine, reward_columns: tuple[str, ...]) -> tuple:
    """What 0012 must keep: every review reward with every column it had at 0011, reviews, appeals, tests and the
    referral members."""
    review_rewards = {k: v for k, v in _rewards(engine, *reward_columns).items() if v[0] is not None}
    return (
        review_rewards,
        _reviews(engine, *REVIEW_COLUMNS),
        _rows(engine, APPEALS),
        _rows(engine, TESTS),
        _rows(engine, MEMBERS),
    )


def _insert_bonus(engine: sa.Engine, member_id: int) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO reward (account_id, amount_cents, status, created_at, kind, referral_member_id, attempts) "
                "VALUES (1, 2000, 'PENDING', :now, 'referral-bonus', :member, 0)"
            ),
            {"now": NOW, "member": member_id},
        )


def test_every_reward_is_kept_and_the_credited_bonus_becomes_a_payable_reward(url_at_0004: str) -> None:
    engine = make_engine(url_at_0004)
    try:
        credited, not_credited = _at_0011(engine, url_at_0004)
        reward_columns = _reward_columns(engine)
        assert {"review_id", "account_id", "amount_cents", "status", "paid_on", "approved_at", "test_id"} <= set(
            reward_columns
        )
        before = _snapshot(engine, reward_columns)
        review_rewards = before[0]
        statuses = {row[reward_columns.index("status")] for row in review_rewards.values()}
        assert statuses == {"PENDING", "EXECUTED", "FAILED", "CANCELED"}
        assert _rows(engine, "SELECT count(*) FROM reward") == [(4,)]

        command.upgrade(_config(url_at_0004), "0012")

        assert _snapshot(engine, reward_columns) == before
        # Every review reward: kind 'review', never ordered, no attempt yet, no provider anything.
        new = _rewards(engine, *NEW_REWARD_COLUMNS)
        for reward_id in review_rewards:
            assert new[reward_id] == ("review", *[None] * 10, 0, None, None)
        # One bonus, for the credited member only: payable since it was credited, not yet ordered, no review.
        paid_at = {row[0]: row[6] for row in _rows(engine, MEMBERS)}[credited]  # as this driver reads the date
        assert paid_at is not None
        assert _rows(engine, BONUSES) == [
            (1, 2000, "PENDING", paid_at, paid_at, None, None, None, "referral-bonus", credited, None, 0, None)
        ]
        assert _rows(engine, f"SELECT count(*) FROM reward WHERE referral_member_id = {not_credited}") == [(0,)]
        inspector = sa.inspect(engine)
        indexes = {i["name"] for i in inspector.get_indexes("reward")}
        assert {"ix_reward_payout_next", "ix_reward_provider_reward", "ix_reward_status_created"} <= indexes
        assert "uq_reward_referral_member" in {c["name"] for c in inspector.get_unique_constraints("reward")}
        assert "payout_event" in inspector.get_table_names()
        assert "uq_payout_event_provider_event" in {c["name"] for c in inspector.get_unique_constraints("payout_event")}
        assert {"payment_email", "payment_email_changed_at"} <= {c["name"] for c in inspector.get_columns("account")}

        with pytest.raises(sa.exc.IntegrityError):  # one bonus per referee
            _insert_bonus(engine, credited)
        _insert_bonus(engine, not_credited)  # the other referee's first bonus is fine
        with pytest.raises(sa.exc.IntegrityError):
            _insert_bonus(engine, not_credited)
        with engine.begin() as conn:  # a webhook is recorded once
            insert = sa.text(
                "INSERT INTO payout_event (provider, event_id, name, resource_id, happened_at, received_at, outcome) "
                "VALUES ('tremendous', 'ev-1', 'REWARDS.DELIVERY.SUCCEEDED', 'r-1', :now, :now, 'applied')"
            )
            conn.execute(insert, {"now": NOW})
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            conn.execute(insert, {"now": NOW})
        assert _rows(engine, "SELECT count(*) FROM reward WHERE review_id IS NULL") == [(2,)]
        assert _snapshot(engine, reward_columns) == before

        command.downgrade(_config(url_at_0004), "0011")

        assert _snapshot(engine, reward_columns) == before  # every review reward, every value
        assert _rows(engine, "SELECT count(*) FROM reward") == [(4,)]  # the bonus rows are gone
        inspector = sa.inspect(engine)
        assert _reward_columns(engine) == reward_columns
        assert "payout_event" not in inspector.get_table_names()
        assert not {"ix_reward_payout_next", "ix_reward_provider_reward"} & {
            i["name"] for i in inspector.get_indexes("reward")
        }
        assert "payment_email" not in {c["name"] for c in inspector.get_columns("account")}
        assert {c["name"]: c["nullable"] for c in inspector.get_columns("reward")}["review_id"] is False

        command.upgrade(_config(url_at_0004), "0012")  # and up again: the credited bonus once more, once

        assert _snapshot(engine, reward_columns) == before
        assert [row[9] for row in _rows(engine, BONUSES)] == [credited]
        assert _rows(engine, "SELECT count(*) FROM payout_event") == [(0,)]
    finally:
        engine.dispose()
