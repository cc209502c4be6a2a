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

import builtins
import contextvars
import copy
from typing import Any, TypeVar

import reflex as rx
from reflex.middleware import Middleware
from reflex.state import _ROUTER_FIELD_NAMES, BaseState, StateUpdate, _override_base_method
from reflex_base.constants import CompileVars
from reflex_base.event import get_event
from reflex_base.utils import format

from portal.domain.navigation import reload_for_new_person_js
from portal.services.tab_owner import owner_of
from portal.states.auth_cookie import session_token
from portal.states.browser import run_script

# Set (in the instance's __dict__, never pickled) on a state that is in the state manager's store: loaded
# from it, or written to it once.
_STORED = "_portal_stored_"
S = TypeVar("S", bound=BaseState)

# During a first hydrate's snapshot: the states whose compiled defaults the browser still holds (its
# hashes matched the backend's), each with those defaults as Reflex serialized them ({var: JSON text};
# portal/states/page_load.py). A state at its defaults whose class snapshot is those same values has
# nothing to send: its snapshot is empty, and Reflex's diff against the browser's defaults drops it
# without serializing each of its vars again.
BROWSER_HOLDS_DEFAULTS: contextvars.ContextVar[dict[str, dict[str, str]]] = contextvars.ContextVar(
    "browser_holds_defaults",
    default={},  # noqa: B039 - only read (page_load sets a new dict per load, never mutates this one)
)


class TabOwned(rx.State, mixin=True):
    """Mixed into every state of the portal: whose data this state holds ('' for nobody signed in).

    A state never stored and still at its defaults is not written (`_serialize` returns nothing, which
    Reflex's state managers skip): loading it again makes the same defaults. A page load (hydrate)
    sends the whole tree, so it fills every cached computed var, and Reflex marks each state whose
    cache it filled as touched: without this, every state of the app with a cached computed var was
    written to Redis for every new tab. A state that was stored once is always written when touched
    (a reset to its defaults must replace what the store holds, e.g. someone else's values)."""

    _tab_owner: str = ""

    @_override_base_method
    def __setstate__(self, state):  # noqa: ANN001 - pickle's protocol
        result = super().__setstate__(state)
        self.__dict__[_STORED] = True
        return result

    @_override_base_method
    def __getstate__(self):
        fields = super().__getstate__()
        if _STORED in fields:
            fields = {name: value for name, value in fields.items() if name != _STORED}
        return fields

    @_override_base_method
    def dict(self, include_computed: bool = True, initial: bool = False, **kwargs) -> builtins.dict[str, Any]:
        """The state's values for the browser (a page load's snapshot sends every state of the app). A
        state never stored and still at its defaults gives its class's default values, worked out once
        per process, instead of reading every var and computing every computed var again: the same
        values, since its computed vars depend on its own vars only (`_snapshot_cacheable`)."""
        if include_computed and not initial and not self.__dict__.get(_STORED) and _at_defaults(self):
            cls = type(self)
            cached = _DEFAULT_SNAPSHOTS.get(cls)
            if cached is None and cls not in _DEFAULT_SNAPSHOTS:
                full = super().dict(include_computed, initial, **kwargs)
                _DEFAULT_SNAPSHOTS[cls] = (
                    copy.deepcopy(full[self.get_full_name()]) if _snapshot_cacheable(cls) else None
                )
                return full
            if cached is not None:
                name = self.get_full_name()
                held = BROWSER_HOLDS_DEFAULTS.get().get(name)
                empty = held is not None and _is_compiled_snapshot(cls, cached, held)
                found = {name: {} if empty else builtins.dict(cached)}
                for substate in self.substates.values():
                    found.update(substate.dict(include_computed, initial, **kwargs))
                return found
        return super().dict(include_computed, initial, **kwargs)

    @_override_base_method
    def _reset_client_storage(self) -> None:
        """A page load resets the browser-stored vars of every state: only this class's, listed once."""
        for name, field in _client_storage_fields(type(self)):
            setattr(self, name, field.default_value())
        for substate in self.substates.values():
            substate._reset_client_storage()

    @_override_base_method
    def _serialize(self) -> bytes:
        if not self.__dict__.get(_STORED) and _at_defaults(self):
            return b""
        payload = super()._serialize()
        if payload:
            self.__dict__[_STORED] = True
        return payload


def _loaded_states(state: BaseState) -> list[BaseState]:
    """This state and every substate loaded under it."""
    found: list[BaseState] = []
    todo = [state]
    while todo:
        state = todo.pop()
        found.append(state)
        todo.extend(state.substates.values())
    return found


_MISSING = object()


# Per state class: its own vars (router data and the owner aside) and their defaults, made once. Only
# compared with, never handed to a state (a mutable default stays unshared).
_DEFAULTS: dict[type[BaseState], tuple[tuple[str, object], ...]] = {}


def _defaults(cls: type[BaseState]) -> tuple[tuple[str, object], ...]:
    found = _DEFAULTS.get(cls)
    if found is None:
        found = _DEFAULTS[cls] = tuple(
            (name, field.default_value())
            for name, field in cls.__fields__.items()
            if name != "_tab_owner" and name not in _ROUTER_FIELD_NAMES and field._owner is cls
        )
    return found


# Per state class: its snapshot at its defaults ({var name as sent: value}), as `dict` gives it; None
# for a class whose snapshot at its defaults can change (`_snapshot_cacheable`).
_DEFAULT_SNAPSHOTS: dict[type[BaseState], dict[str, Any] | None] = {}


# Per state class: whether its snapshot at its defaults is what the compiled frontend holds (a computed
# var with an initial value other than what it computes would differ).
_COMPILED: dict[type[BaseState], bool] = {}


def _is_compiled_snapshot(cls: type[BaseState], snapshot: dict[str, Any], compiled: dict[str, str]) -> bool:
    found = _COMPILED.get(cls)
    if found is None:
        found = _COMPILED[cls] = snapshot.keys() == compiled.keys() and all(
            format.json_dumps(value) == compiled[name] for name, value in snapshot.items()
        )
    return found


def _snapshot_cacheable(cls: type[BaseState]) -> bool:
    """Whether a state of `cls` at its defaults always gives the same snapshot: every computed var is
    cached and depends on vars of this state only (none is recomputed on each read or on a timer, none
    reads another state, e.g. the router)."""
    if cls._always_dirty_computed_vars or cls._interval_computed_var_names:
        return False
    name = cls.get_full_name()
    return not any(
        state == name
        for other in _state_classes(cls.get_root_state())
        if other is not cls
        for dependents in other._var_dependencies.values()
        for state, _ in dependents
    )


def _state_classes(cls: type[BaseState]):
    yield cls
    for substate in cls.get_substates():
        yield from _state_classes(substate)


# Per state class: its vars kept in the browser (cookies, local and session storage).
_CLIENT_STORAGE: dict[type[BaseState], tuple[tuple[str, Any], ...]] = {}


def _client_storage_fields(cls: type[BaseState]) -> tuple[tuple[str, Any], ...]:
    found = _CLIENT_STORAGE.get(cls)
    if found is None:
        fields = cls.get_fields()
        found = _CLIENT_STORAGE[cls] = tuple(
            (name, fields[name]) for name in cls.base_vars if cls._is_client_storage(fields[name])
        )
    return found


def _at_defaults(state: BaseState) -> bool:
    """Whether every var of this state (router data aside) still holds its default: it holds nobody's data."""
    values = state.__dict__
    for name, default in _defaults(type(state)):
        value = values.get(name, _MISSING)  # a var never assigned is read from its class default
        if value is not _MISSING and value != default:
            return False
    return True


# Per state class: whether it records its owner (Reflex's own states do not).
_OWNED: dict[type[BaseState], bool] = {}


def _owned(cls: type[BaseState]) -> bool:
    found = _OWNED.get(cls)
    if found is None:
        found = _OWNED[cls] = "_tab_owner" in cls.__fields__
    return found


def _claim(state: BaseState, owner: str) -> bool:
    """Make `state` this owner's: a state holding someone else's values is reset first (True: it held another
    signed-in person's values). A state still at its defaults holds nobody's data: it is claimed without being
    marked changed, so a page load does not save every state of the app for the tab (a state the event then
    changes is saved with its owner)."""
    values = state.__dict__
    previous = values.get("_tab_owner", "")
    if previous == owner or not _owned(type(state)):  # the field's value, without its descriptor
        return False
    if _at_defaults(state):
        state.__dict__["_tab_owner"] = owner  # not a change: nothing to save, nothing to send
        return False
    state.reset()  # nothing of the last owner is kept
    state._tab_owner = owner
    return bool(previous)


async def owned_state(state: BaseState, cls: type[S]) -> S:
    """`state.get_state(cls)` for a handler that works on another state: that state was not loaded when
    the middleware checked this event, so it is checked here, against the same owner."""
    other = await state.get_state(cls)
    _claim(other, await owner_of(session_token(state)))
    return other


class TabOwnerMiddleware(Middleware):
    async def preprocess(self, app, state, event):  # noqa: ANN001 - Reflex's middleware signature
        root = state._get_root_state()
        fresh = event.name in (get_event(root, CompileVars.HYDRATE), get_event(root, CompileVars.HYDRATE_AND_LOAD))
        owner = await owner_of(session_token(root), fresh=fresh)
        someone_elses = [_claim(loaded, owner) for loaded in _loaded_states(root)]
        if any(someone_elses) and not fresh:
            # The tab showed another person's page (it reconnected with another session cookie, or the sign-out
            # of another tab did not reach it): the page is loaded again for whoever is signed in now, with a
            # word about it (issue 40), instead of running this event on values that are gone.
            return StateUpdate(events=[run_script(reload_for_new_person_js(signed_in=bool(owner)))], final=True)
        return None
