"""The tab state in Redis (Reflex's StateManagerRedis, as production runs it): a new tab's page load
stores only the states it filled; a state stored for one person and reset for the next is stored
reset, so the next load does not bring the previous person's values back."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from reflex.istate.manager.redis import StateManagerRedis
from reflex.istate.manager.token import BaseStateToken
from reflex.state import State

import portal.portal  # noqa: F401 - the app: every state registered
from portal.states.tab_owner import _claim
from portal.states.taking.survey import SurveyState
from tests.support.services import REDIS_URL, fresh_redis

pytestmark = pytest.mark.redis


def _tree(state):
    yield state
    for substate in state.substates.values():
        yield from _tree(substate)


async def _scenario(url: str) -> tuple[int, list[str], str, str]:
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(url)
    manager = StateManagerRedis(redis=client)
    token = BaseStateToken(ident=str(uuid.uuid4()), cls=State)
    try:
        # A new tab: the whole tree loaded, its full snapshot taken (cached computed vars filled).
        root = await manager.get_state(token)
        for state in _tree(root):
            _claim(state, "account:1")
        root.dict()
        survey = next(s for s in _tree(root) if type(s) is SurveyState)
        survey.phase = "questions"  # what the page filled for account 1
        await manager.set_state(token, root)
        keys = sorted(k.decode() for k in await client.keys(f"{token.ident}_*"))
        # The next person on the tab: loaded, claimed (reset), saved.
        root = await manager.get_state(token)
        survey = next(s for s in _tree(root) if type(s) is SurveyState)
        before = survey.phase
        _claim(survey, "account:2")
        await manager.set_state(token, root)
        again = await manager.get_state(token)
        after = next(s for s in _tree(again) if type(s) is SurveyState)
        return len(list(_tree(root))), keys, before, f"{after._tab_owner}:{after.phase}"
    finally:
        await client.aclose()


def test_a_new_tab_stores_only_what_it_filled_and_a_reset_replaces_the_stored_state():
    url = fresh_redis(REDIS_URL)
    states, keys, before, after = asyncio.run(_scenario(url))
    assert states > 30
    # the root (router data, is_hydrated) and the one state the page filled; none of the ~35 others
    assert len(keys) == 2 and any(k.endswith("_survey_state") for k in keys), keys
    assert before == "questions"
    assert after.startswith("account:2:") and not after.endswith(":questions")


LEASE_MS = 30_000  # longer than the test may wait: an answer that came only when the lease ran out fails


async def _leased_workers(url: str) -> tuple[bool, str, str]:
    """Two workers (two state managers) with leases, as rxconfig.py configures production: the first
    changes a tab's state and keeps it (lease); the tab's next event reaches the other worker (a
    reconnect, no sticky sessions), which gets the lock and the changed state at once; then the first
    worker stops with a leased change, which is written on the way out."""
    import redis.asyncio as aioredis

    clients = [aioredis.Redis.from_url(url) for _ in range(3)]
    first, second, third = (StateManagerRedis(redis=c, lock_expiration=60_000) for c in clients)
    token = BaseStateToken(ident=str(uuid.uuid4()), cls=State)

    def survey(root):
        return next(s for s in _tree(root) if type(s) is SurveyState)

    try:
        for manager in (first, second):
            await manager._ensure_lock_task_subscribed()  # as in a running worker: leases need the subscription
        async with first.modify_state(token) as root:
            survey(root).phase = "questions"
        leased = bool(await clients[0].exists(f"{token.lock_key}_lock"))
        async with asyncio.timeout(LEASE_MS / 1000 - 10):
            async with second.modify_state(token) as root:
                seen = survey(root).phase
                survey(root).phase = "end"
        await second.close()
        stored = survey(await third.get_state(token)).phase
        return leased, seen, stored
    finally:
        await first.close()
        await third.close()


def test_a_leased_state_moves_to_another_worker_at_once_and_is_written_when_the_worker_stops(monkeypatch):
    monkeypatch.setenv("REFLEX_OPLOCK_ENABLED", "true")
    monkeypatch.setenv("REFLEX_OPLOCK_HOLD_TIME", f"{LEASE_MS}ms")
    url = fresh_redis(REDIS_URL)
    leased, seen, stored = asyncio.run(_leased_workers(url))
    assert leased, "the first worker kept the tab's lock after its event (a lease)"
    assert seen == "questions"  # the change made under the first worker's lease
    assert stored == "end"  # the second worker's leased change, written when it stopped
