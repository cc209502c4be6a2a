"""PostgreSQL and Redis for tests: skipped when absent, a failure when REQUIRE_SERVICES=1."""

from __future__ import annotations

import os

import pytest

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def services_required() -> bool:
    return os.environ.get("REQUIRE_SERVICES", "") not in ("", "0", "false")


def unavailable(what: str, err: Exception) -> None:
    message = f"{what} is not reachable: {err}"
    if services_required():
        pytest.fail(f"{message} (REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(message)


def fresh_postgres(url: str = POSTGRES_URL) -> str:
    """An empty public schema in the given database (skips or fails when PostgreSQL is absent)."""
    import psycopg

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
    base = POSTGRES_URL.rsplit("/", 1)[0]
    return fresh_postgres(f"{base}/{name}")


def fresh_redis(url: str = REDIS_URL) -> str:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=3)
        client.flushdb()
        client.close()
    except redis.RedisError as err:
        unavailable("Redis", err)
    return url
