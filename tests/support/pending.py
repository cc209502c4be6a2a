"""Reading the pending protocol's browser calls out of a state's events (docs/decisions.md, 'Saving
answers truthfully'): a state driven directly, with timed_session.portal_call recorded as
("portal_call", code) (`record_portal_calls`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any


def record_portal_calls(monkeypatch) -> None:
    from portal.states.taking import timed_session

    monkeypatch.setattr(timed_session, "portal_call", lambda code, callback=None: ("portal_call", code))


def driven_state(monkeypatch, state_class: type, definition: Any, store_key: str) -> Any:
    """A kind's state driven directly: its definition given without a database, browser calls recorded,
    in review session 9 of account 1 (not yet restored: the caller restores the draft it needs)."""
    record_portal_calls(monkeypatch)

    async def fresh(self):
        return definition

    monkeypatch.setattr(state_class, "_fresh_definition", fresh)
    monkeypatch.setattr(state_class, "_definition", lambda self: definition)
    state = state_class()
    state.test_id, state.store_key, state._session_id, state._key = definition.test_id, store_key, 9, "account:1"
    state._show_kind(definition)
    return state


def run(coro) -> Any:
    return asyncio.run(coro)


def calls(events: Any, name: str) -> list[list[Any]]:
    """The arguments of each window.portalTaking.<name>(...) call among the events (portal_call is
    recorded as ("portal_call", code) by `record_portal_calls`)."""
    events = events if isinstance(events, list) else [events]
    found = []
    decoder = json.JSONDecoder()
    for event in events:
        if not (isinstance(event, tuple) and event[0] == "portal_call"):
            continue
        code = event[1]
        prefix = f"window.portalTaking.{name}("
        if not code.startswith(prefix):
            continue
        rest, args = code[len(prefix) : -1], []
        while rest:
            value, end = decoder.raw_decode(rest)
            args.append(value)
            rest = rest[end:].lstrip(", ")
        found.append(args)
    return found


def replied_pending(events: Any) -> dict[str, Any]:
    """The pending answers a reply hands the browser (window.portalTaking.reply(key, copy, pending))."""
    (found,) = calls(events, "reply")
    return found[2]


def confirmed_seqs(events: Any) -> dict[str, int]:
    (found,) = calls(events, "confirmed")
    return found[1]["seqs"]
