"""Migrations 0018 ('Delete my account') and 0019 (an index for the home table) on a filled database:
account.deleted_at and audit_log.erased_at are added
with nothing existing changed; the audit log still refuses every UPDATE and DELETE except an erasure (erased_at
stamped, the row's id, time, actor id and role, action and target unchanged); the downgrade restores the strict
trigger and keeps every row. On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from alembic import command
from portal.db import make_engine
from tests.integration.test_migration_0005 import NOW, _config
from tests.integration.test_migration_0009 import _rows
from tests.integration.test_migration_0013 import _fill_at_0012, _snapshot, url_at_0004  # noqa: F401 (fixture)

AUDIT = "SELECT id, actor_id, actor_email, action, target_type, target_id FROM audit_log ORDER BY id"


def _refused(engine: sa.Engine, statement: str, values: dict | None = None) -> None:
    with pytest.raises(sa.exc.DBAPIError, match="append-only"), engine.begin() as conn:
        conn.execute(sa.text(statement), values or {})


def test_deleted_at_and_the_erasure_only_audit_trigger(url_at_0004: str) -> None:  # noqa: F811
    engine = make_engine(url_at_0004)
    try:
        _fill_at_0012(engine, url_at_0004)
        command.upgrade(_config(url_at_0004), "0017")
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO audit_log (created_at, actor_id, actor_email, actor_role, action, target_type, "
                    "target_id, before, after) VALUES (:now, 7, 'dana@example.com', '', 'appeal.create', 'review', "
                    "'1', '{}', '{\"by\": \"dana@example.com\"}')"
                ),
                {"now": NOW},
            )
        before = (_snapshot(engine), _rows(engine, AUDIT))

        command.upgrade(_config(url_at_0004), "0018")
        assert (_snapshot(engine), _rows(engine, AUDIT)) == before
        assert set(_rows(engine, "SELECT deleted_at FROM account")) == {(None,)}
        _refused(engine, "UPDATE audit_log SET actor_email = 'x'")
        _refused(engine, "UPDATE audit_log SET action = 'other', erased_at = :now", {"now": NOW})
        _refused(engine, "DELETE FROM audit_log")
        with engine.begin() as conn:
            conn.execute(
                sa.text("UPDATE audit_log SET actor_email = 'account #7 (deleted)', erased_at = :now"), {"now": NOW}
            )
        assert _rows(engine, "SELECT actor_email, action FROM audit_log") == [("account #7 (deleted)", "appeal.create")]

        command.downgrade(_config(url_at_0004), "0017")
        assert _snapshot(engine) == before[0]
        _refused(engine, "UPDATE audit_log SET actor_email = 'y'")
        command.upgrade(_config(url_at_0004), "head")
        assert _rows(engine, "SELECT actor_email FROM audit_log") == [("account #7 (deleted)",)]
        # 0019: the home table's look-up of a failed screener per invite has its index; and it comes off again.
        indexes = {i["name"] for i in sa.inspect(engine).get_indexes("screener_response")}
        assert "ix_screener_response_account_test" in indexes
        command.downgrade(_config(url_at_0004), "0018")
        assert "ix_screener_response_account_test" not in {
            i["name"] for i in sa.inspect(engine).get_indexes("screener_response")
        }
        command.upgrade(_config(url_at_0004), "head")
    finally:
        engine.dispose()
