"""Migration 0008 (indexes of the staff outbox page) on a database that already has e-mails in its
outbox: every row kept, the indexes there (the trigram one on PostgreSQL), the downgrade drops them
and keeps the rows, and upgrading again works. On SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from alembic import command
from portal.db import make_engine
from tests.integration.test_migration_0005 import _config
from tests.support.services import fresh_postgres


@pytest.fixture(params=["sqlite", "postgres"])
def url_at_0007(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'old.db'}" if request.param == "sqlite" else fresh_postgres()
    command.upgrade(_config(url), "0007")
    return url


def _emails(engine: sa.Engine) -> list[tuple]:
    with engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(
                sa.text("SELECT id, to_address, subject, kind, attempts, last_error FROM outbox_email ORDER BY id")
            ).all()
        ]


def _indexes(engine: sa.Engine) -> set[str]:
    return {i["name"] for i in sa.inspect(engine).get_indexes("outbox_email")}


def test_upgrade_and_downgrade_keep_every_email_and_add_the_page_indexes(url_at_0007: str) -> None:
    engine = make_engine(url_at_0007)
    try:
        with engine.begin() as conn:
            for n in range(3):
                conn.execute(
                    sa.text(
                        "INSERT INTO outbox_email (to_address, subject, body_text, kind, created_at, attempts, "
                        "next_attempt_at, last_error) "
                        "VALUES (:to, :subject, 'body', 'verify-email', CURRENT_TIMESTAMP, :attempts, "
                        "CURRENT_TIMESTAMP, :error)"
                    ),
                    {
                        "to": f"person{n}@example.com",
                        "subject": f"Subject {n}",
                        "attempts": n,
                        "error": "refused" if n else None,
                    },
                )
        before = _emails(engine)
        assert len(before) == 3

        command.upgrade(_config(url_at_0007), "head")
        assert _emails(engine) == before
        expected = {"ix_outbox_email_created_id"} | (
            {"ix_outbox_email_to_address_trgm"} if engine.dialect.name == "postgresql" else set()
        )
        assert expected <= _indexes(engine)

        command.downgrade(_config(url_at_0007), "0007")
        assert _emails(engine) == before
        assert not expected & _indexes(engine)

        command.upgrade(_config(url_at_0007), "head")
        assert expected <= _indexes(engine) and _emails(engine) == before
    finally:
        engine.dispose()
