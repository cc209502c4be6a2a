"""Migration 0021 (the partner round trips, issue 39) on a filled database: partner_entry and partner_callback are
added, review.survey_code gets a unique index, and nothing existing changes, upgrading or downgrading; a survey code
already stored stays; two reviews cannot share one after it. On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from alembic import command
from portal.db import make_engine
from tests.integration.test_migration_0005 import NOW, _config
from tests.integration.test_migration_0009 import _rows
from tests.integration.test_migration_0013 import _fill_at_0012, _snapshot, url_at_0004  # noqa: F401 (fixture)

REVIEWS = "SELECT id, test_id, respondent_key, status, survey_code FROM review ORDER BY id"


def _tables(engine: sa.Engine) -> set[str]:
    return set(sa.inspect(engine).get_table_names())


def test_the_partner_tables_are_added_and_nothing_is_lost_either_way(url_at_0004: str) -> None:  # noqa: F811
    engine = make_engine(url_at_0004)
    try:
        _fill_at_0012(engine, url_at_0004)
        command.upgrade(_config(url_at_0004), "0020")
        with engine.begin() as conn:  # one review already carries a survey code (the spec's survey response)
            first = conn.execute(sa.text("SELECT min(id) FROM review")).scalar_one()
            conn.execute(sa.text("UPDATE review SET survey_code = 'SURVEY-1' WHERE id = :id"), {"id": first})
        before = (_snapshot(engine), _rows(engine, REVIEWS))
        assert len(before[1]) >= 2

        command.upgrade(_config(url_at_0004), "0021")
        assert (_snapshot(engine), _rows(engine, REVIEWS)) == before
        assert {"partner_entry", "partner_callback"} <= _tables(engine)
        assert "uq_review_survey_code" in {i["name"] for i in sa.inspect(engine).get_indexes("review")}
        with engine.begin() as conn:
            test_id = conn.execute(sa.text("SELECT min(id) FROM test")).scalar_one()
            conn.execute(
                sa.text(
                    "INSERT INTO partner_entry (partner, test_id, token, data, created_at) "
                    "VALUES ('panel', :test, :token, '{}', :now)"
                ),
                {"test": test_id, "token": "a" * 32, "now": NOW},
            )
            entry = conn.execute(sa.text("SELECT id FROM partner_entry")).scalar_one()
            conn.execute(
                sa.text(
                    "INSERT INTO partner_callback (partner, entry_id, outcome, payload, created_at, attempts, "
                    "next_attempt_at) VALUES ('panel', :entry, 'complete', '{}', :now, 0, :now)"
                ),
                {"entry": entry, "now": NOW},
            )
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            conn.execute(sa.text("UPDATE review SET survey_code = 'SURVEY-1' WHERE id <> :id"), {"id": first})

        command.downgrade(_config(url_at_0004), "0020")
        assert (_snapshot(engine), _rows(engine, REVIEWS)) == before
        assert not {"partner_entry", "partner_callback"} & _tables(engine)
        assert "uq_review_survey_code" not in {i["name"] for i in sa.inspect(engine).get_indexes("review")}
        command.upgrade(_config(url_at_0004), "head")
        assert _rows(engine, "SELECT count(*) FROM partner_entry") == [(0,)]
    finally:
        engine.dispose()
