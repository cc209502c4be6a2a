"""Migration 0017 (two-factor sign-in) on a filled database: two_factor and recovery_code are added, nothing existing
changes (accounts, sessions, invites, rewards, the outbox), a recovery code is unique per account, and the downgrade
keeps every other row. On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from alembic import command
from portal.db import make_engine
from tests.integration.test_migration_0005 import NOW, _config
from tests.integration.test_migration_0009 import _rows
from tests.integration.test_migration_0013 import _fill_at_0012, _snapshot, url_at_0004  # noqa: F401 (fixture)

SESSIONS = "SELECT id, account_id, token_hash, revoked_at FROM auth_session ORDER BY id"


def test_two_factor_tables_are_added_and_nothing_is_lost_either_way(url_at_0004: str) -> None:  # noqa: F811
    engine = make_engine(url_at_0004)
    try:
        _fill_at_0012(engine, url_at_0004)
        command.upgrade(_config(url_at_0004), "0016")
        account_id = _rows(engine, "SELECT id FROM account ORDER BY id")[0][0]
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO auth_session (token_hash, account_id, created_at, last_seen_at, idle_expires_at, "
                    "absolute_expires_at) VALUES (:h, :a, :now, :now, :now, :now)"
                ),
                {"h": "a" * 64, "a": account_id, "now": NOW},
            )
        before = (_snapshot(engine), _rows(engine, SESSIONS))

        command.upgrade(_config(url_at_0004), "0017")
        assert (_snapshot(engine), _rows(engine, SESSIONS)) == before
        with engine.begin() as conn:
            conn.execute(
                sa.text("INSERT INTO two_factor (account_id, secret, created_at) VALUES (:a, 'sealed', :now)"),
                {"a": account_id, "now": NOW},
            )
            code = sa.text("INSERT INTO recovery_code (account_id, code_hash, created_at) VALUES (:a, :h, :now)")
            conn.execute(code, {"a": account_id, "h": "b" * 64, "now": NOW})
        assert _rows(engine, "SELECT last_used_step, enabled_at FROM two_factor") == [(0, None)]
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            conn.execute(code, {"a": account_id, "h": "b" * 64, "now": NOW})

        command.downgrade(_config(url_at_0004), "0016")
        assert (_snapshot(engine), _rows(engine, SESSIONS)) == before
        assert not {"two_factor", "recovery_code"} & set(sa.inspect(engine).get_table_names())
        command.upgrade(_config(url_at_0004), "head")
        assert (_snapshot(engine), _rows(engine, SESSIONS)) == before
    finally:
        engine.dispose()
