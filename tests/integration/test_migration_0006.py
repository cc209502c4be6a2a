"""Migration 0006 on a database that already has reviews and rewards: every row kept, old
reviews read as having no reading signals ({}), and the downgrade keeps them too.

On SQLite and PostgreSQL: migrated to 0005, filled through its own (reflected) tables, upgraded
to the latest migration and downgraded to 0005 again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from alembic import command
from portal.db import make_engine
from tests.integration.test_migration_0005 import _config, _fill_at_0004, _rewards
from tests.support.services import fresh_postgres


@pytest.fixture(params=["sqlite", "postgres"])
def url_at_0005(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'old.db'}" if request.param == "sqlite" else fresh_postgres()
    command.upgrade(_config(url), "0004")
    return url


def _reviews(engine: sa.Engine, *columns: str) -> dict[int, tuple]:
    with engine.connect() as conn:
        rows = conn.execute(sa.text(f"SELECT id, {', '.join(columns)} FROM review ORDER BY id")).all()
    return {row[0]: tuple(row[1:]) for row in rows}


def test_upgrade_keeps_reviews_and_rewards_and_gives_old_reviews_empty_signals(url_at_0005: str) -> None:
    engine = make_engine(url_at_0005)
    try:
        _fill_at_0004(engine)
        command.upgrade(_config(url_at_0005), "0005")
        reviews_before = _reviews(engine, "test_id", "account_id", "kind")
        rewards_before = _rewards(engine, "review_id", "amount_cents", "status")
        assert len(reviews_before) == 4 and len(rewards_before) == 4

        command.upgrade(_config(url_at_0005), "head")

        assert _reviews(engine, "test_id", "account_id", "kind") == reviews_before
        assert _rewards(engine, "review_id", "amount_cents", "status") == rewards_before
        signals = [v for (v,) in _reviews(engine, "signals").values()]
        assert [v if isinstance(v, dict) else json.loads(v) for v in signals] == [{}] * 4

        command.downgrade(_config(url_at_0005), "0005")

        assert _reviews(engine, "test_id", "account_id", "kind") == reviews_before
        assert _rewards(engine, "review_id", "amount_cents", "status") == rewards_before
        assert "signals" not in {c["name"] for c in sa.inspect(engine).get_columns("review")}
    finally:
        engine.dispose()
