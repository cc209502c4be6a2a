"""Integration fixtures: a database migrated with Alembic (never create_all), on SQLite and PostgreSQL.

Alembic runs once per pytest process (once per xdist worker), into a template; each test gets a copy:
SQLite copies the migrated file, PostgreSQL creates `<db>_<worker>_a` (or `_b`) with `CREATE DATABASE
... TEMPLATE <db>_tmpl_<worker>`, the next copy made by a thread while a test runs. The PostgreSQL
template is kept between runs and rebuilt when the migrations change (its comment holds a hash of
`alembic/`). Tests of the migrations themselves start from an empty database (`fresh_postgres()`,
a SQLite file of their own) and call Alembic as before.

PostgreSQL (TEST_POSTGRES_URL, default postgresql://postgres@127.0.0.1:5432/test) is skipped when
unreachable, unless REQUIRE_SERVICES=1 (CI), in which case the test fails.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from alembic.config import Config
from sqlmodel import Session

from alembic import command
from portal.db import make_engine
from tests.support.services import (
    database_comment,
    drop_database,
    recreate_database,
    set_database_comment,
    worker_database,
)

ROOT = Path(__file__).resolve().parents[2]


def migrate(url: str) -> None:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", url)
    config.attributes["configure_logging"] = False  # keep pytest's logging setup
    command.upgrade(config, "head")


def migrations_fingerprint() -> str:
    """A hash of everything Alembic runs: a template made from other migrations is not reused."""
    digest = hashlib.sha256()
    for path in sorted([ROOT / "alembic.ini", *(ROOT / "alembic").rglob("*.py")]):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to the latest revision, once per worker, checkpointed to one file."""
    path = tmp_path_factory.mktemp("template") / "template.db"
    migrate(f"sqlite:///{path}")
    with sqlite3.connect(path) as conn:  # everything in the main file, no -wal left to copy
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    assert not path.with_name(path.name + "-wal").exists()
    return path


class Clones:
    """Copies of the template, one made ahead: while a test runs, a thread drops the database the
    previous test used and creates the next one, so the server's file work overlaps the tests.
    Two names per worker take turns (`<db>_<worker>_a`, `_b`)."""

    def __init__(self, template: str) -> None:
        self.template = template
        self.names = [worker_database() + "_a", worker_database() + "_b"]
        self.turn = 0
        self.ahead = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pg-clone")
        self.pending = self.ahead.submit(recreate_database, self.names[0], self.template)

    def take(self) -> str:
        """A URL of a fresh copy; starts making the next one (dropping the one the last test used)."""
        url = self.pending.result()
        self.turn = 1 - self.turn
        self.pending = self.ahead.submit(recreate_database, self.names[self.turn], self.template)
        return url

    def close(self) -> None:
        try:
            self.pending.result()
        finally:
            self.ahead.shutdown()
            for name in self.names:
                drop_database(name)


@pytest.fixture(scope="session")
def postgres_clones() -> Iterator[Clones]:
    """Copies of this worker's migrated template database (rebuilt when the migrations changed)."""
    name = worker_database("tmpl")
    fingerprint = migrations_fingerprint()
    if database_comment(name) != fingerprint:
        url = recreate_database(name)  # skips or fails here when PostgreSQL is absent
        migrate(url)  # disposes of its engine: no connection is left on the template
        set_database_comment(name, fingerprint)
    clones = Clones(name)
    yield clones
    clones.close()


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a database of its own upgraded to the latest migration."""
    if request.param == "sqlite":
        path = tmp_path / "test.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite:///{path}"
    return request.getfixturevalue("postgres_clones").take()


@pytest.fixture
def session(db_url: str) -> Iterator[Session]:
    engine = make_engine(db_url)
    with Session(engine, expire_on_commit=False) as s:
        yield s
    engine.dispose()
