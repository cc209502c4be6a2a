"""/ready's checks against real services: a migrated database (SQLite and PostgreSQL) is ready, one a
migration behind is not, an unreachable database or Redis is named; Redis is asked only when configured."""

from __future__ import annotations

import socket

from alembic.config import Config

from alembic import command
from portal.db import make_engine
from portal.services import readiness
from tests.integration.conftest import ROOT
from tests.support.services import fresh_redis


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_migrated_database_is_ready_without_redis(db_url):
    found = readiness.checks(make_engine(db_url), "")
    assert found == {"database": "ok", "migrations": "ok", "redis": "not configured"}
    assert readiness.ready(found)


def test_redis_is_asked_when_configured(db_url):
    found = readiness.checks(make_engine(db_url), fresh_redis("redis://127.0.0.1:6379/6"))
    assert found["redis"] == "ok" and readiness.ready(found)


def test_a_database_one_migration_behind_is_not_ready(db_url):
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", db_url)
    config.attributes["configure_logging"] = False
    command.downgrade(config, "-1")
    found = readiness.checks(make_engine(db_url), "")
    assert found == {"database": "ok", "migrations": "behind", "redis": "not configured"}
    assert not readiness.ready(found)


def test_an_empty_database_is_behind(tmp_path):
    found = readiness.checks(make_engine(f"sqlite:///{tmp_path / 'empty.db'}"), "")
    assert found["migrations"] == "behind" and not readiness.ready(found)


def test_unreachable_database_and_redis_are_named():
    port = closed_port()
    found = readiness.checks(make_engine(f"postgresql://postgres@127.0.0.1:{port}/none"), f"redis://127.0.0.1:{port}/0")
    assert found == {"database": "unreachable", "migrations": "unreachable", "redis": "unreachable"}
    assert not readiness.ready(found)
