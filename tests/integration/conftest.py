"""Integration fixtures: a database migrated with Alembic (never create_all), on SQLite and PostgreSQL.

PostgreSQL (postgresql://postgres@127.0.0.1:5432/test) is skipped when unreachable,
unless REQUIRE_SERVICES=1 (CI), in which case the test fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlmodel import Session

from portal.db import make_engine
from tests.support.services import fresh_postgres

ROOT = Path(__file__).resolve().parents[2]


def migrate(url: str) -> None:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", url)
    config.attributes["configure_logging"] = False  # keep pytest's logging setup
    command.upgrade(config, "head")


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty database upgraded to the latest migration."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'test.db'}"
    else:
        url = fresh_postgres()
    migrate(url)
    return url


@pytest.fixture
def session(db_url: str) -> Iterator[Session]:
    engine = make_engine(db_url)
    with Session(engine, expire_on_commit=False) as s:
        yield s
    engine.dispose()
