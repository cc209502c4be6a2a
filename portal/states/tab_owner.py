"""Tabs belong to one person at a time.

A Reflex tab keeps its client token (and so its server state) across sign-out and sign-in: without
this check the next person on that tab would be sent the previous person's values in the hydrate
delta, and the previous person's survey session would still be named in the state.

Every state of the portal mixes in `TabOwned`, which records whose data it holds. Before any event
is processed, `TabOwnerMiddleware` compares that with the owner of the event's session cookie
(portal/services/tab_owner.py) and resets every loaded state that belongs to someone else; states
not loaded for this event are checked when an event loads them. A page load (hydrate) sends the
whole state, so all of it is loaded and checked then, against a fresh lookup of the cookie.
"""

from __future__ import annotations

import reflex as rx
from reflex.middleware import Middleware
from reflex_base.constants import CompileVars
from reflex_base.event import get_event

from portal.services.tab_owner import owner_of
from portal.states.auth_cookie import session_token


class TabOwned(rx.State, mixin=True):
    """Mixed into every state of the portal: whose data this state holds ('' for nobody signed in)."""

    _tab_owner: str = ""


def _loaded_states(state: rx.State):
    yield state
    for substate in state.substates.values():
        yield from _loaded_states(substate)


class TabOwnerMiddleware(Middleware):
    async def preprocess(self, app, state, event):  # noqa: ANN001 - Reflex's middleware signature
        root = state._get_root_state()
        fresh = event.name in (get_event(root, CompileVars.HYDRATE), get_event(root, CompileVars.HYDRATE_AND_LOAD))
        owner = await owner_of(session_token(root), fresh=fresh)
        for loaded in list(_loaded_states(root)):
            if "_tab_owner" in type(loaded).__fields__ and loaded._tab_owner != owner:
                loaded.reset()  # nothing of the last owner is kept
                loaded._tab_owner = owner
        return None
