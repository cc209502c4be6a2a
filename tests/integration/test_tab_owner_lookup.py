"""Whose tab is this (services/tab_owner): kept for a while, refreshed in the background once old,
asked again at once for a page load, and never served beyond its stale window."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from portal import db
from portal.services import tab_owner
from portal.services.sessions import create_session, revoke_session
from portal.services.tokens import hash_token
from tests.support.factories import make_participant


@pytest.fixture
def engine(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """db.run (the lookups' path) on this test's database; an empty cache before and after."""
    engine = db.make_engine(db_url)
    monkeypatch.setattr(db, "engine", lambda: engine)
    tab_owner._cache.clear()
    yield engine
    tab_owner._cache.clear()
    engine.dispose()


def _signed_in(engine: Engine) -> tuple[int, str]:
    with Session(engine) as session:
        account = make_participant(session)
        token = create_session(session=session, account_id=account.id)
        session.commit()
        return account.id, token


def _revoke(engine: Engine, token: str) -> None:
    with Session(engine) as session:
        assert revoke_session(session=session, token=token)
        session.commit()


def _age(token: str, seconds_past_expiry: float) -> None:
    """Make the kept answer for `token` this much older than its expiry (the cache's own clock)."""
    key = hash_token(token)
    owner, _ = tab_owner._cache[key]
    tab_owner._cache[key] = (owner, time.monotonic() - seconds_past_expiry)


def test_the_owner_is_kept_and_a_revoked_session_is_noticed_by_a_page_load(engine: Engine):
    account_id, token = _signed_in(engine)
    assert asyncio.run(tab_owner.owner_of(token)) == f"account:{account_id}"
    _revoke(engine, token)
    assert asyncio.run(tab_owner.owner_of(token)) == f"account:{account_id}"  # kept
    assert asyncio.run(tab_owner.owner_of(token, fresh=True)) == tab_owner.ANONYMOUS  # a page load asks


def test_an_old_answer_is_given_once_more_while_the_database_is_asked_in_the_background(engine: Engine):
    account_id, token = _signed_in(engine)

    async def scenario() -> tuple[str, str]:
        await tab_owner.owner_of(token)
        _revoke(engine, token)
        _age(token, 1)
        first = await tab_owner.owner_of(token)  # the old answer, without waiting for the database
        await asyncio.gather(*tab_owner._refreshing.values())
        return first, await tab_owner.owner_of(token)

    first, then = asyncio.run(scenario())
    assert first == f"account:{account_id}"
    assert then == tab_owner.ANONYMOUS  # the background lookup saw the revoked session
    assert not tab_owner._refreshing


def test_an_answer_past_its_stale_window_is_not_given_the_event_waits(engine: Engine):
    _, token = _signed_in(engine)
    asyncio.run(tab_owner.owner_of(token))
    _revoke(engine, token)
    _age(token, tab_owner.STALE_SECONDS + 1)
    assert asyncio.run(tab_owner.owner_of(token)) == tab_owner.ANONYMOUS


def test_answers_are_kept_between_half_and_the_whole_ttl(engine: Engine):
    tokens = [_signed_in(engine)[1] for _ in range(12)]

    async def ask_all() -> float:
        started = time.monotonic()
        for token in tokens:
            await tab_owner.owner_of(token)
        return started

    started = asyncio.run(ask_all())
    kept = [tab_owner._cache[hash_token(t)][1] - started for t in tokens]
    assert all(tab_owner.OWNER_TTL_SECONDS * 0.5 - 1 <= k <= tab_owner.OWNER_TTL_SECONDS + 1 for k in kept)
    assert max(kept) - min(kept) > 1  # spread, not one expiry for tabs opened together
