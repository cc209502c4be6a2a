"""PostgreSQL and Redis for tests: skipped when absent, a failure when REQUIRE_SERVICES=1.

Databases the tests create are named after TEST_POSTGRES_URL's database (`test` by default): each
pytest process (each xdist worker: `gw0`, `gw1`, ...; `main` without xdist) has its own, e.g.
`test_main` and the migrated template `test_tmpl_main`, so parallel workers never share one.
"""

from __future__ import annotations

import os

import pytest

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
POSTGRES_BASE, POSTGRES_DB = POSTGRES_URL.rsplit("/", 1)


def services_required() -> bool:
    return os.environ.get("REQUIRE_SERVICES", "") not in ("", "0", "false")


def unavailable(what: str, err: Exception) -> None:
    message = f"{what} is not reachable: {err}"
    if services_required():
        pytest.fail(f"{message} (REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(message)


def worker_id() -> str:
    """This pytest process's name among xdist workers (`gw0`, ...), `main` without xdist."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def worker_database(kind: str = "") -> str:
    """The name of this worker's database of a kind: `<db>_<worker>`, `<db>_tmpl_<worker>`."""
    return "_".join(part for part in (POSTGRES_DB, kind, worker_id()) if part)


def postgres_url(name: str) -> str:
    return f"{POSTGRES_BASE}/{name}"


def _admin():
    import psycopg

    return psycopg.connect(POSTGRES_URL, connect_timeout=3, autocommit=True)


def _drop(conn, name: str) -> None:
    if conn.info.server_version >= 130000:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    else:
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


def recreate_database(name: str, template: str | None = None) -> str:
    """Drop the database (closing its connections) and create it again, empty or as a copy of `template`.

    No connection may be open to the template: dispose of engines on it first.
    """
    import psycopg

    try:
        with _admin() as conn:
            _drop(conn, name)
            conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    except psycopg.OperationalError as err:
        unavailable("PostgreSQL", err)
    return postgres_url(name)


def drop_database(name: str) -> None:
    import psycopg

    try:
        with _admin() as conn:
            _drop(conn, name)
    except psycopg.OperationalError:
        pass


def database_comment(name: str) -> str | None:
    """The comment on a database (None when it does not exist or has none)."""
    import psycopg

    try:
        with _admin() as conn:
            row = conn.execute(
                "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s", (name,)
            ).fetchone()
    except psycopg.OperationalError as err:
        unavailable("PostgreSQL", err)
    return row[0] if row else None


def set_database_comment(name: str, comment: str) -> None:
    with _admin() as conn:
        conn.execute(f"COMMENT ON DATABASE \"{name}\" IS '{comment}'")


def fresh_postgres(url: str | None = None) -> str:
    """An empty database: without a URL this worker's own (`<db>_<worker>`, dropped and created again);
    with one, that database's public schema dropped and created again. Skips or fails when PostgreSQL is absent."""
    import psycopg

    if url is None:
        return recreate_database(worker_database())
    try:
        with psycopg.connect(url, connect_timeout=3, autocommit=True) as conn:
            conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
            conn.execute("CREATE SCHEMA public")
    except psycopg.Error as err:
        unavailable("PostgreSQL", err)
    return url


def postgres_database(name: str) -> str:
    """A database of its own on the test server (created when missing), emptied."""
    import psycopg

    try:
        with psycopg.connect(POSTGRES_URL, connect_timeout=3, autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.Error as err:
        unavailable("PostgreSQL", err)
    return fresh_postgres(f"{POSTGRES_BASE}/{name}")


def fresh_redis(url: str = REDIS_URL) -> str:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=3)
        client.flushdb()
        client.close()
    except redis.RedisError as err:
        unavailable("Redis", err)
    return url
