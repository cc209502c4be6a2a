"""Whether this process is ready to serve, for a load balancer's /ready: the database answers, its
schema is at the newest migration, and Redis answers when the portal is configured with it.

Each check gives a short word a person can read in the answer ('ok', 'unreachable', 'behind',
'not configured'); the cause goes to the log, never to the caller. Every function blocks (network):
call them from a thread.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

from portal.settings import ROOT

log = logging.getLogger(__name__)

OK, UNREACHABLE, BEHIND, NOT_CONFIGURED = "ok", "unreachable", "behind", "not configured"
TIMEOUT_SECONDS = 2.0


@functools.cache
def head_revisions() -> frozenset[str]:
    """The newest migrations this code ships (alembic/versions)."""
    return frozenset(ScriptDirectory.from_config(Config(str(ROOT / "alembic.ini"))).get_heads())


def database(engine: Engine) -> tuple[str, str]:
    """(database, migrations): whether the database answers, and whether its schema is at head."""
    try:
        with engine.connect() as connection:
            current = frozenset(MigrationContext.configure(connection).get_current_heads())
    except Exception as error:  # noqa: BLE001 - any failure means: not ready
        log.warning("readiness: the database did not answer: %s", type(error).__name__)
        return UNREACHABLE, UNREACHABLE
    if current != head_revisions():
        log.warning("readiness: the database is at %s, the code at %s", sorted(current), sorted(head_revisions()))
        return OK, BEHIND
    return OK, OK


@functools.cache
def _redis_client(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_connect_timeout=TIMEOUT_SECONDS, socket_timeout=TIMEOUT_SECONDS)


def redis(url: str) -> str:
    """Whether Redis (where Reflex keeps state with several workers) answers a PING."""
    if not url:
        return NOT_CONFIGURED
    try:
        _redis_client(url).ping()
    except Exception as error:  # noqa: BLE001 - any failure means: not ready
        log.warning("readiness: Redis did not answer: %s", type(error).__name__)
        return UNREACHABLE
    return OK


def checks(engine: Engine, redis_url: str) -> dict[str, str]:
    """Every check by name, and whether they all pass."""
    db_state, migrations = database(engine)
    return {"database": db_state, "migrations": migrations, "redis": redis(redis_url)}


def ready(found: dict[str, str]) -> bool:
    return all(state in (OK, NOT_CONFIGURED) for state in found.values())
