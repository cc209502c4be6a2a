"""Migration 0010 on a database that already has tests, reviews (decided ones among them) and rewards: the
rejection's evidence columns are added empty, the appeal table is made, nothing else changes (no review is
copied, so no reward is lost through the cascade), and the downgrade keeps every row too.

On SQLite and PostgreSQL: filled at 0004 and 0009 through their own (reflected) tables, upgraded to 0010 and
downgraded to 0009 again.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from alembic import command
from portal.db import make_engine
from tests.integration.test_migration_0005 import NOW, _config, _fill_at_0004, _rewards
from tests.integration.test_migration_0006 import _reviews
from tests.integration.test_migration_0009 import _rows
from tests.support.services import fresh_postgres


@pytest.fixture(params=["sqlite", "postgres"])
def url_at_0004(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'old.db'}" if request.param == "sqlite" else fresh_postgres()
    command.upgrade(_config(url), "0004")
    return url


def _decide_some(engine: sa.Engine) -> list[int]:
    """Reject one review and approve another, as staff did before 0010; their ids."""
    with engine.begin() as conn:
        ids = [r[0] for r in conn.execute(sa.text("SELECT id FROM review ORDER BY id")).all()]
        conn.execute(
            sa.text(
                "UPDATE review SET status = 'rejected', reject_reason = 'low-effort', reject_note = 'n', "
                "decided_at = :now, decided_by_id = 1 WHERE id = :id"
            ),
            {"now": NOW, "id": ids[0]},
        )
        conn.execute(sa.text("UPDATE review SET status = 'approved' WHERE id = :id"), {"id": ids[-1]})
    return ids


def test_the_evidence_columns_and_the_appeal_table_are_added_and_nothing_is_lost(url_at_0004: str) -> None:
    engine = make_engine(url_at_0004)
    try:
        _fill_at_0004(engine)
        command.upgrade(_config(url_at_0004), "0009")
        ids = _decide_some(engine)
        assert len(ids) >= 2
        columns = ("test_id", "account_id", "kind", "answers", "status", "reject_reason", "reject_note", "version_id")
        reviews_before = _reviews(engine, *columns)
        rewards_before = _rewards(engine, "review_id", "amount_cents", "status", "approved_at")
        tests_before = _rows(engine, "SELECT id, name, status, product_type, payout_cents FROM test ORDER BY id")
        assert rewards_before

        command.upgrade(_config(url_at_0004), "0010")

        assert _reviews(engine, *columns) == reviews_before
        assert _rewards(engine, "review_id", "amount_cents", "status", "approved_at") == rewards_before
        assert (
            _rows(engine, "SELECT id, name, status, product_type, payout_cents FROM test ORDER BY id") == tests_before
        )
        assert set(_rows(engine, "SELECT reject_flags, reject_evidence FROM review")) == {(None, None)}
        inspector = sa.inspect(engine)
        assert "review_appeal" in inspector.get_table_names()
        assert {c["name"] for c in inspector.get_unique_constraints("review_appeal")} == {"uq_review_appeal_review"}
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO review_appeal (review_id, account_id, message, created_at, status) "
                    "SELECT id, account_id, 'Please', :now, 'open' FROM review WHERE id = :id"
                ),
                {"now": NOW, "id": ids[0]},
            )
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:  # one appeal per review
            conn.execute(
                sa.text(
                    "INSERT INTO review_appeal (review_id, account_id, message, created_at, status) "
                    "SELECT id, account_id, 'Again', :now, 'open' FROM review WHERE id = :id"
                ),
                {"now": NOW, "id": ids[0]},
            )

        command.downgrade(_config(url_at_0004), "0009")

        assert _reviews(engine, *columns) == reviews_before
        assert _rewards(engine, "review_id", "amount_cents", "status", "approved_at") == rewards_before
        assert "review_appeal" not in sa.inspect(engine).get_table_names()
        assert "reject_flags" not in {c["name"] for c in sa.inspect(engine).get_columns("review")}
    finally:
        engine.dispose()
