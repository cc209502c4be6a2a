"""Database engine and session helpers.

SQLite (the embedded default) gets WAL, foreign keys and a busy timeout on every
connection; PostgreSQL gets a connection pool. Blocking database work never runs
on the event loop: states call `run()` which executes a service in a thread.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, create_engine

from portal.settings import settings

T = TypeVar("T")
P = ParamSpec("P")


def normalize_url(url: str) -> str:
    """Use the psycopg 3 driver for plain postgres URLs."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def make_engine(url: str) -> Engine:
    url = normalize_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True, pool_recycle=1800)


@functools.cache
def engine() -> Engine:
    return make_engine(settings.database_url)


@contextmanager
def session_scope() -> Iterator[Session]:
    """One transaction: committed when the block ends, rolled back on error."""
    with Session(engine(), expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


async def run(fn: Callable[Concatenate[Session, P], T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """Run a service `fn(session, *args, **kwargs)` in a worker thread, in one transaction.

    Typed with `ParamSpec`: mypy checks the arguments of every call against the service's signature.
    """

    def call() -> T:
        with session_scope() as session:
            return fn(session, *args, **kwargs)

    return await asyncio.to_thread(call)
