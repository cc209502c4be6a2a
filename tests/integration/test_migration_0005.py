"""Migration 0005 on a database that already has rewards: rows kept, test id and type backfilled.

On SQLite and PostgreSQL: the database is migrated to 0004, filled through its own
(reflected) tables, then upgraded to the latest migration and downgraded again.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.config import Config

from alembic import command
from portal.db import make_engine
from tests.support.services import fresh_postgres

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _config(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", url)
    config.attributes["configure_logging"] = False
    return config


@pytest.fixture(params=["sqlite", "postgres"])
def url_at_0004(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'old.db'}" if request.param == "sqlite" else fresh_postgres()
    command.upgrade(_config(url), "0004")
    return url


def _fill_at_0004(engine: sa.Engine) -> dict[int, tuple[int, str, int]]:
    """Two accounts, three tests, their reviews and rewards; returns reward id -> (test id, type, cents)."""
    meta = sa.MetaData()
    meta.reflect(engine, only=["account", "test", "review", "reward"])
    account, test, review, reward = (meta.tables[n] for n in ("account", "test", "review", "reward"))
    expected: dict[int, tuple[int, str, int]] = {}
    with engine.begin() as conn:
        for a in (1, 2):
            conn.execute(
                account.insert().values(
                    id=a,
                    email=f"old-{a}@example.com",
                    is_registration_complete=True,
                    stage="completed",
                    verified=True,
                    is_subscribed_to_referral=False,
                    created_at=NOW,
                    updated_at=NOW,
                    signup_tracking={},
                )
            )
        types = {10: "survey", 11: "pricing-test", 12: "landing-page"}
        for t, product_type in types.items():
            conn.execute(
                test.insert().values(
                    id=t,
                    name=f"Old study {t}",
                    status="running",
                    panel="b2b",
                    product_type=product_type,
                    audience_country="US",
                    welcome_modal={},
                    survey={},
                    questions={},
                    selected_areas=[],
                    preference_test={},
                    is_freemium=False,
                    session_seconds=3600,
                    seniority_limits={},
                    is_surveys_conditional_enabled=True,
                    payout_cents=1500,
                    created_at=NOW,
                    updated_at=NOW,
                )
            )
        pairs = [(1, 10), (1, 11), (1, 12), (2, 11)]
        for n, (a, t) in enumerate(pairs, start=1):
            conn.execute(
                review.insert().values(
                    id=100 + n,
                    test_id=t,
                    account_id=a,
                    respondent_key=f"account:{a}",
                    kind="survey",
                    answers={},
                    worker_data={},
                    options_order=[],
                    created_at=NOW + timedelta(hours=n),
                )
            )
            conn.execute(
                reward.insert().values(
                    id=200 + n,
                    review_id=100 + n,
                    account_id=a,
                    amount_cents=1000 + n,
                    status="PENDING",
                    created_at=NOW + timedelta(hours=n),
                )
            )
            expected[200 + n] = (t, types[t], 1000 + n)
    return expected


def _rewards(engine: sa.Engine, *columns: str) -> dict[int, tuple]:
    with engine.connect() as conn:
        rows = conn.execute(sa.text(f"SELECT id, {', '.join(columns)} FROM reward ORDER BY id")).all()
    return {row[0]: tuple(row[1:]) for row in rows}


def test_upgrade_backfills_the_test_columns_and_downgrade_keeps_the_rewards(url_at_0004: str) -> None:
    engine = make_engine(url_at_0004)
    try:
        expected = _fill_at_0004(engine)

        # Up to 0011: 0012 makes the columns nullable again (a referral bonus has no test, issue 37).
        command.upgrade(_config(url_at_0004), "0011")

        assert _rewards(engine, "test_id", "product_type", "amount_cents") == expected
        columns = {c["name"]: c for c in sa.inspect(engine).get_columns("reward")}
        assert columns["test_id"]["nullable"] is False
        assert columns["product_type"]["nullable"] is False
        indexes = {i["name"] for i in sa.inspect(engine).get_indexes("reward")}
        assert {"ix_reward_account_type_id", "ix_reward_account_test"} <= indexes
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:  # the copies cannot be left out
            conn.execute(
                sa.text(
                    "INSERT INTO reward (review_id, account_id, amount_cents, status, created_at) "
                    "VALUES (101, 1, 5, 'PENDING', CURRENT_TIMESTAMP)"
                )
            )

        command.downgrade(_config(url_at_0004), "0004")

        assert _rewards(engine, "amount_cents") == {rid: (cents,) for rid, (_, _, cents) in expected.items()}
        assert not {"test_id", "product_type"} & {c["name"] for c in sa.inspect(engine).get_columns("reward")}
    finally:
        engine.dispose()
