"""Migration 0013 on a database with accounts, tests, reviews, rewards, invites and e-mails in the outbox: the
notification and notification_opt_out tables, outbox_email.unsubscribe_url and the reminder job's index are added,
nothing existing changes, the new tables hold one notification per (account, kind, subject key), and the downgrade
keeps every row too.

On SQLite and PostgreSQL: filled at 0004 and 0012, upgraded to 0013, downgraded to 0012 and upgraded again.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from alembic import command
from portal.db import make_engine
from tests.integration.test_migration_0005 import NOW, _config, _fill_at_0004, _rewards
from tests.integration.test_migration_0009 import _rows
from tests.support.services import fresh_postgres

OUTBOX = "SELECT id, to_address, subject, body_text, kind, link, attempts, sent_at FROM outbox_email ORDER BY id"
INVITES = "SELECT id, account_id, test_id, status, amount_cents, expires_at FROM invite ORDER BY id"
ACCOUNTS = "SELECT id, email, verified FROM account ORDER BY id"


@pytest.fixture(params=["sqlite", "postgres"])
def url_at_0004(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'old.db'}" if request.param == "sqlite" else fresh_postgres()
    command.upgrade(_config(url), "0004")
    return url


def _snapshot(engine: sa.Engine) -> tuple:
    return (
        _rows(engine, OUTBOX),
        _rows(engine, INVITES),
        _rows(engine, ACCOUNTS),
        _rewards(engine, "review_id", "amount_cents", "status"),
    )


def _fill_at_0012(engine: sa.Engine, url: str) -> None:
    _fill_at_0004(engine)
    command.upgrade(_config(url), "0012")
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO invite (account_id, test_id, status, amount_cents, created_at, expires_at) "
                "SELECT a.id, t.id, 'open', 2000, :now, :now FROM account a, test t"
            ),
            {"now": NOW},
        )
        for n in range(3):
            conn.execute(
                sa.text(
                    "INSERT INTO outbox_email (to_address, subject, body_text, kind, link, created_at, attempts, "
                    "next_attempt_at, sent_at) VALUES (:to, :subject, 'Hello.', 'invite', :link, :now, :n, :now, "
                    + (":now" if n else "NULL")
                    + ")"
                ),
                {"to": f"p{n}@example.com", "subject": f"Invite {n}", "link": f"https://x/{n}", "now": NOW, "n": n},
            )


def test_the_notification_tables_are_added_and_nothing_is_lost_either_way(url_at_0004: str) -> None:
    engine = make_engine(url_at_0004)
    try:
        _fill_at_0012(engine, url_at_0004)
        before = _snapshot(engine)
        outbox, invites, accounts, rewards = before
        assert len(outbox) == 3 and invites and accounts and rewards

        command.upgrade(_config(url_at_0004), "0013")

        assert _snapshot(engine) == before
        assert _rows(engine, "SELECT unsubscribe_url FROM outbox_email") == [(None,)] * 3
        inspector = sa.inspect(engine)
        assert {"notification", "notification_opt_out"} <= set(inspector.get_table_names())
        assert "ix_invite_status_expires" in {i["name"] for i in inspector.get_indexes("invite")}

        account_id = accounts[0][0]
        insert = sa.text(
            "INSERT INTO notification (account_id, kind, subject_key, created_at) VALUES (:a, 'invite', :k, :now)"
        )
        with engine.begin() as conn:
            conn.execute(insert, {"a": account_id, "k": "invite:1", "now": NOW})
            conn.execute(insert, {"a": account_id, "k": "invite:2", "now": NOW})
            conn.execute(
                sa.text("INSERT INTO notification_opt_out (account_id, kind, created_at) VALUES (:a, 'invite', :now)"),
                {"a": account_id, "now": NOW},
            )
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:  # once per person and event
            conn.execute(insert, {"a": account_id, "k": "invite:1", "now": NOW})
        assert _rows(engine, "SELECT count(*) FROM notification") == [(2,)]
        assert _snapshot(engine) == before

        command.downgrade(_config(url_at_0004), "0012")

        assert _snapshot(engine) == before
        inspector = sa.inspect(engine)
        assert not {"notification", "notification_opt_out"} & set(inspector.get_table_names())
        assert "unsubscribe_url" not in {c["name"] for c in inspector.get_columns("outbox_email")}

        command.upgrade(_config(url_at_0004), "0013")  # and up again, empty
        assert _rows(engine, "SELECT count(*) FROM notification") == [(0,)]
        assert _snapshot(engine) == before
    finally:
        engine.dispose()
