"""An event's delta and its browser events reach the browser in one message (portal/states/one_update.py):
what the browser receives, in which order, and what is still queued on the server, next to Reflex's own
`chain_updates` (two messages)."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import pytest
from reflex_base.event import Event
from reflex_base.event.context import EventContext

from portal.states import one_update
from portal.states.browser import run_script

DELTA = {"app.survey_state": {"index_rx_state_": 3}}
SCRIPT = run_script("window.scrollTo(0, 0)")
SERVER_EVENT = Event(name="app.survey_state.noop")


class Root:
    """A root state as chain_updates uses it: its delta, then cleaned."""

    def __init__(self, delta: dict[str, Any]) -> None:
        self.delta, self.cleaned = delta, False

    async def _get_resolved_delta(self) -> dict[str, Any]:
        return dict(self.delta)

    def _clean(self) -> None:
        self.cleaned = True


@pytest.fixture
def browser(monkeypatch) -> list:
    """Every message the browser gets, as (delta, events), and the events queued on the server (as
    ('queued', events))."""
    got: list = []

    async def emit_delta(token, delta):
        got.append((delta, []))

    async def emit_event(token, *events):
        got.append(({}, list(events)))

    async def enqueue(token, *events):
        got.append(("queued", list(events)))

    class Namespace:
        async def emit_update(self, update, token):
            got.append((update.delta, list(update.events)))

    app = types.SimpleNamespace(event_namespace=Namespace())
    monkeypatch.setattr(
        one_update, "RegistrationContext", types.SimpleNamespace(get=lambda: types.SimpleNamespace(app=app))
    )
    context = EventContext(
        token="tab-1", state_manager=None, enqueue_impl=enqueue, emit_delta_impl=emit_delta, emit_event_impl=emit_event
    )
    token = EventContext.set(context)
    yield got
    EventContext.reset(token)


def run(chain, events: Any, delta: dict[str, Any]) -> Root:
    root = Root(delta)
    asyncio.run(chain(events, handler_name="handler", root_state=root))
    return root


def test_a_delta_and_its_browser_events_go_in_one_message_and_server_events_are_queued_after(browser):
    root = run(one_update.chain_updates, [SCRIPT, SERVER_EVENT], DELTA)
    assert browser == [(DELTA, [SCRIPT]), ("queued", [SERVER_EVENT])]
    assert root.cleaned


def test_reflex_sends_the_same_delta_and_events_in_two_messages(browser):
    run(one_update.REFLEX_CHAIN_UPDATES, [SCRIPT, SERVER_EVENT], DELTA)
    assert browser == [(DELTA, []), ({}, [SCRIPT]), ("queued", [SERVER_EVENT])]


def test_only_a_delta_or_only_events_are_sent_as_they_are(browser):
    run(one_update.chain_updates, None, DELTA)
    run(one_update.chain_updates, [SCRIPT], {})
    run(one_update.chain_updates, None, {})
    assert browser == [(DELTA, []), ({}, [SCRIPT])]


def test_an_invalid_return_still_sends_its_delta_then_raises(browser):
    with pytest.raises(TypeError):
        run(one_update.chain_updates, ["not an event"], DELTA)
    assert browser == [(DELTA, [])]
