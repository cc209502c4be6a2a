"""Migration 0009 on a database that already has tests, sessions, reviews and rewards: every test gets a
version 1 holding its definition as it was, every session and review points at it, nothing else
changes, and the downgrade keeps every row too.

On SQLite and PostgreSQL: filled at 0004 and 0008 through their own (reflected) tables, upgraded to
0009 and downgraded to 0008 again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from alembic import command
from portal.db import make_engine
from tests.integration.test_migration_0005 import NOW, _config, _fill_at_0004, _rewards
from tests.integration.test_migration_0006 import _reviews
from tests.support.services import fresh_postgres

SURVEY = {"questions": [{"key": "q1", "type": "short-text", "text": "What do you do?", "isRequired": True}]}


@pytest.fixture(params=["sqlite", "postgres"])
def url_at_0004(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'old.db'}" if request.param == "sqlite" else fresh_postgres()
    command.upgrade(_config(url), "0004")
    return url


def _json(value):
    return value if not isinstance(value, str) else json.loads(value)


def _fill_at_0008(engine: sa.Engine) -> None:
    """A survey with questions on test 10, a session in progress on it, and test 13 nobody has taken."""
    meta = sa.MetaData()
    meta.reflect(engine, only=["test", "review_session"])
    test, review_session = meta.tables["test"], meta.tables["review_session"]
    with engine.begin() as conn:
        conn.execute(test.update().where(test.c.id == 10).values(survey=SURVEY, frame_of_mind="Old frame"))
        conn.execute(
            test.insert().values(
                id=13,
                name="Never taken",
                status="draft",
                panel="b2b",
                product_type="survey",
                audience_country="US",
                welcome_modal={},
                survey=SURVEY,
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
        conn.execute(
            review_session.insert().values(
                id=300,
                test_id=10,
                account_id=2,
                respondent_key="account:2",
                started_at=NOW,
                deadline_at=NOW,
                extensions=0,
                status="active",
                draft_answers={"q1": {"type": "short-text", "value": "Research"}},
                draft_position={},
                updated_at=NOW,
            )
        )


def _rows(engine: sa.Engine, sql: str) -> list[tuple]:
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(sa.text(sql)).all()]


def test_every_test_gets_version_one_and_every_session_and_review_points_at_it(url_at_0004: str) -> None:
    engine = make_engine(url_at_0004)
    try:
        _fill_at_0004(engine)
        command.upgrade(_config(url_at_0004), "0008")
        _fill_at_0008(engine)
        reviews_before = _reviews(engine, "test_id", "account_id", "kind", "answers")
        rewards_before = _rewards(engine, "review_id", "amount_cents", "status")
        tests_before = _rows(engine, "SELECT id, name, status, product_type, payout_cents FROM test ORDER BY id")
        sessions_before = _rows(engine, "SELECT id, test_id, status, draft_answers FROM review_session ORDER BY id")

        command.upgrade(_config(url_at_0004), "0009")

        assert _reviews(engine, "test_id", "account_id", "kind", "answers") == reviews_before
        assert _rewards(engine, "review_id", "amount_cents", "status") == rewards_before
        assert (
            _rows(engine, "SELECT id, name, status, product_type, payout_cents FROM test ORDER BY id") == tests_before
        )
        assert _rows(engine, "SELECT id, test_id, status, draft_answers FROM review_session ORDER BY id") == (
            sessions_before
        )
        versions = {
            test_id: (version_id, number, bool(sealed), _json(columns), source)
            for version_id, test_id, number, sealed, columns, source in _rows(
                engine, "SELECT id, test_id, number, sealed, columns, source FROM test_version"
            )
        }
        assert sorted(versions) == [10, 11, 12, 13]
        assert {t: (v[1], v[2], v[4]) for t, v in versions.items()} == {
            10: (1, True, "migration"),
            11: (1, True, "migration"),
            12: (1, True, "migration"),
            13: (1, False, "migration"),  # nobody has started it: it can still change in place
        }
        assert versions[10][3]["survey"] == SURVEY and versions[10][3]["frame_of_mind"] == "Old frame"
        assert versions[11][3]["product_type"] == "pricing-test"
        for table in ("review", "review_session"):
            for test_id, version_id in _rows(engine, f"SELECT test_id, version_id FROM {table}"):
                assert version_id == versions[test_id][0]
        assert _rows(engine, "SELECT exclusion_days, scheduled_at, draft_document FROM test WHERE id = 10") == [
            (0, None, None)
        ]

        command.downgrade(_config(url_at_0004), "0008")

        assert _reviews(engine, "test_id", "account_id", "kind", "answers") == reviews_before
        assert _rewards(engine, "review_id", "amount_cents", "status") == rewards_before
        assert (
            _rows(engine, "SELECT id, name, status, product_type, payout_cents FROM test ORDER BY id") == tests_before
        )
        assert "test_version" not in sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()
