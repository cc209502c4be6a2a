"""Migration 0014 on a database with accounts, invites, e-mails in the outbox and notifications: phone_contact,
sms_opt_in and outbox_sms are added (one phone per account), nothing existing changes, and the downgrade keeps
every row too. On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from alembic import command
from portal.db import make_engine
from tests.integration.test_migration_0005 import NOW, _config
from tests.integration.test_migration_0009 import _rows
from tests.integration.test_migration_0013 import _fill_at_0012, _snapshot, url_at_0004  # noqa: F401 (fixture)

NOTIFICATIONS = "SELECT account_id, kind, subject_key FROM notification ORDER BY id"


def test_the_sms_tables_are_added_and_nothing_is_lost_either_way(url_at_0004: str) -> None:  # noqa: F811
    engine = make_engine(url_at_0004)
    try:
        _fill_at_0012(engine, url_at_0004)
        command.upgrade(_config(url_at_0004), "0013")
        accounts = _rows(engine, "SELECT id FROM account ORDER BY id")
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO notification (account_id, kind, subject_key, created_at) "
                    "VALUES (:a, 'invite', 'invite:1', :now)"
                ),
                {"a": accounts[0][0], "now": NOW},
            )
        before = (_snapshot(engine), _rows(engine, NOTIFICATIONS))

        command.upgrade(_config(url_at_0004), "0014")

        assert (_snapshot(engine), _rows(engine, NOTIFICATIONS)) == before
        assert {"phone_contact", "sms_opt_in", "outbox_sms"} <= set(sa.inspect(engine).get_table_names())
        account_id = accounts[0][0]
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO phone_contact (account_id, phone, confirmed_at, code_tries, updated_at) "
                    "VALUES (:a, '+14155550100', :now, 0, :now)"
                ),
                {"a": account_id, "now": NOW},
            )
            conn.execute(
                sa.text("INSERT INTO sms_opt_in (account_id, kind, created_at) VALUES (:a, 'invite', :now)"),
                {"a": account_id, "now": NOW},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO outbox_sms (account_id, to_number, body, kind, created_at, attempts, "
                    "next_attempt_at) VALUES (:a, '+14155550100', 'Hello', 'invite', :now, 0, :now)"
                ),
                {"a": account_id, "now": NOW},
            )
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:  # one phone per account
            conn.execute(
                sa.text(
                    "INSERT INTO phone_contact (account_id, phone, code_tries, updated_at) "
                    "VALUES (:a, '+14155550101', 0, :now)"
                ),
                {"a": account_id, "now": NOW},
            )
        assert (_snapshot(engine), _rows(engine, NOTIFICATIONS)) == before

        command.downgrade(_config(url_at_0004), "0013")

        assert (_snapshot(engine), _rows(engine, NOTIFICATIONS)) == before
        assert not {"phone_contact", "sms_opt_in", "outbox_sms"} & set(sa.inspect(engine).get_table_names())
        command.upgrade(_config(url_at_0004), "0014")  # and up again, empty
        assert _rows(engine, "SELECT count(*) FROM outbox_sms") == [(0,)]
        assert (_snapshot(engine), _rows(engine, NOTIFICATIONS)) == before
    finally:
        engine.dispose()
