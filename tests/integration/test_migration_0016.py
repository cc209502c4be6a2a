"""Migrations 0015 (messages) and 0016 (problem reports, test.paused_at) on a filled database: the new tables and
column are added, nothing existing changes, their rows keep their rules (one group send per request key), and the
downgrades keep every row too (a test paused by reports goes back to running). On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from alembic import command
from portal.db import make_engine
from tests.integration.test_migration_0005 import NOW, _config
from tests.integration.test_migration_0009 import _rows
from tests.integration.test_migration_0013 import _fill_at_0012, _snapshot, url_at_0004  # noqa: F401 (fixture)

TESTS = "SELECT id, name, status, participant_limit FROM test ORDER BY id"


def test_messages_and_problem_reports_are_added_and_nothing_is_lost_either_way(url_at_0004: str) -> None:  # noqa: F811
    engine = make_engine(url_at_0004)
    try:
        _fill_at_0012(engine, url_at_0004)
        command.upgrade(_config(url_at_0004), "0014")
        before = (_snapshot(engine), _rows(engine, TESTS))
        account_id = _rows(engine, "SELECT id FROM account ORDER BY id")[0][0]
        test_id = before[1][0][0]

        command.upgrade(_config(url_at_0004), "0016")
        assert (_snapshot(engine), _rows(engine, TESTS)) == before
        assert _rows(engine, "SELECT paused_at FROM test") == [(None,)] * len(before[1])
        with engine.begin() as conn:
            thread = conn.execute(
                sa.text(
                    "INSERT INTO message_thread (account_id, subject, started_by_staff, created_at, last_message_at) "
                    "VALUES (:a, 'Hello', false, :now, :now) RETURNING id"
                ),
                {"a": account_id, "now": NOW},
            ).scalar_one()
            conn.execute(
                sa.text(
                    "INSERT INTO message (thread_id, from_staff, author_id, body, created_at) "
                    "VALUES (:t, true, :a, 'Hi', :now)"
                ),
                {"t": thread, "a": account_id, "now": NOW},
            )
            group = sa.text(
                "INSERT INTO message_group (subject, body, criteria, recipients, request_key, created_at) "
                "VALUES ('S', 'B', '{}', 1, 'key-1', :now)"
            )
            conn.execute(group, {"now": NOW})
            conn.execute(
                sa.text(
                    "INSERT INTO problem_report (test_id, account_id, respondent_key, category, text, created_at) "
                    "VALUES (:t, :a, :k, 'timer', 'Stuck', :now)"
                ),
                {"t": test_id, "a": account_id, "k": f"account:{account_id}", "now": NOW},
            )
            conn.execute(
                sa.text("UPDATE test SET status = 'paused', paused_at = :now WHERE id = :t"), {"t": test_id, "now": NOW}
            )
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:  # one send per request key
            conn.execute(group, {"now": NOW})
        assert _snapshot(engine) == before[0]

        command.downgrade(_config(url_at_0004), "0014")
        assert (_snapshot(engine), _rows(engine, TESTS)) == before  # the paused test runs again
        names = set(sa.inspect(engine).get_table_names())
        assert not {"message_thread", "message", "message_group", "problem_report"} & names
        command.upgrade(_config(url_at_0004), "0016")  # and up again, empty
        assert _rows(engine, "SELECT count(*) FROM problem_report") == [(0,)]
        assert (_snapshot(engine), _rows(engine, TESTS)) == before
    finally:
        engine.dispose()
