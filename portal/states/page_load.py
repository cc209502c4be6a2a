"""A page's load runs inside its hydrate: one event per opened tab instead of a chain of four.

When a tab connects (a new tab, a reload, a reconnect), Reflex 0.10 sends `hydrate_and_load`: it
sends the state snapshot and queues `on_load_internal`, which queues the page's on_load handlers
and then `set_is_hydrated`. Each of those is an event of its own: its lock (or lease), its state
load, the middleware, its delta computed and sent. For the rating page that was four events (and
three more websocket frames) per opened tab.

`PageLoadInHydrate` (a middleware, added after the tab-owner check) takes the hydrate event and runs
the same steps in it, under its one lock, as Reflex itself does when it rehydrates a state inline
(`BaseStateEventProcessor._rehydrate`): Reflex's own `hydrate_and_load` sends the snapshot, then each
on_load handler of the page runs with its delta and events sent as its own event's would be, then
`is_hydrated` is set. A background on_load handler is queued as before. What the browser sees is
the same deltas in the same order; a navigation inside the app (not a hydrate) still runs its page's
on_load chain as Reflex queues it.
"""

from __future__ import annotations

import functools
from typing import Any

from reflex import state as reflex_state
from reflex.istate.delta import _resolve_delta
from reflex.middleware import Middleware
from reflex.state import OnLoadInternalState, State, StateUpdate, _load_events_for_page
from reflex_base.constants import CompileVars
from reflex_base.event import Event
from reflex_base.event.context import EventContext
from reflex_base.event.processor import base_state_processor as processor
from reflex_base.event.processor.base_state_processor import _prepare_event_payload, process_event
from reflex_base.registry import RegistrationContext
from reflex_base.utils.format import format_event_handler

from portal.states.tab_owner import BROWSER_HOLDS_DEFAULTS


@functools.cache
def _hydrate_name() -> str:
    return format_event_handler(State.event_handlers[CompileVars.HYDRATE_AND_LOAD])


# The states a first hydrate's hashes say the browser holds at their compiled defaults, by hashes sent.
_HELD: dict[tuple[str, ...], dict[str, dict[str, str]]] = {}


async def _defaults_held(root_cls: type[State], hashes: Any) -> dict[str, dict[str, str]]:
    """The states whose compiled defaults (as Reflex serialized them) the browser holds, by Reflex's own
    rule (`_diff_against_initial_state`): the hashes of a first hydrate (the page's compiled defaults)
    that match the backend's. Nothing for a reconnect (no hashes) or another build."""
    if not isinstance(hashes, list) or not hashes or not all(isinstance(h, str) for h in hashes):
        return {}
    key = tuple(hashes)
    found = _HELD.get(key)
    if found is None:
        cached = await _initial_snapshot(root_cls)
        found = {}
        if len(hashes) == len(cached.hashes) + 1 and hashes[0] == cached.names_digest:
            found = {
                name: cached.serialized[name]
                for name, sent in zip(sorted(cached.hashes), hashes[1:], strict=True)
                if cached.hashes[name] == sent and name in cached.serialized
            }
        if len(_HELD) < 8:  # one build's hashes in practice; a flood of forged ones is not kept
            _HELD[key] = found
    return found


async def _initial_snapshot(root_cls: type[State]):
    """Reflex's record of the compiled defaults, made as its diff makes it when this process has none."""
    cached = reflex_state._initial_snapshot_cache.get(root_cls)
    if cached is None or cached.n_state_classes != len(reflex_state.all_base_state_classes):
        # Reflex's own flag for a state made outside an event (not in its public signature).
        root = root_cls(_reflex_internal_init=True)  # type: ignore[call-arg]
        reflex_state.cache_initial_snapshot(root_cls, await _resolve_delta(root.dict(initial=True)))
        cached = reflex_state._initial_snapshot_cache[root_cls]
    return cached


class PageLoadInHydrate(Middleware):
    async def preprocess(self, app, state, event):  # noqa: ANN001 - Reflex's middleware signature
        if event.name != _hydrate_name():
            return None
        root = state._get_root_state()
        hydrate = State.event_handlers[CompileVars.HYDRATE_AND_LOAD]
        payload = _prepare_event_payload(hydrate, event.payload)
        # Reflex's hydrate: client storage, the snapshot (sent), and [on_load_internal] when the page loads.
        held = BROWSER_HOLDS_DEFAULTS.set(await _defaults_held(type(root), payload.get("hashes")))
        try:
            chained = await hydrate.fn(root, **payload)
        finally:
            BROWSER_HOLDS_DEFAULTS.reset(held)
        await processor.chain_updates(None, root_state=root, handler_name=hydrate.fn.__qualname__)
        if chained:
            await self._load_page(root)
        return StateUpdate()  # processed: nothing more to send, nothing queued

    @staticmethod
    async def _load_page(root: State) -> None:
        """The page's on_load handlers, then is_hydrated: what `on_load_internal` would have queued."""
        registry = RegistrationContext.get().event_handlers
        on_load = await root.get_state(OnLoadInternalState)
        # Reflex's own pair: what it queues for a page, read as it reads it (its annotations disagree).
        for load in Event.from_event_type(_load_events_for_page(on_load) or []):  # type: ignore[arg-type]
            registered = registry[load.name]
            if registered.handler.is_background:  # runs as Reflex runs it: queued, outside this lock
                await EventContext.get().enqueue(load)
                continue
            await process_event(
                handler=registered.handler,
                payload=load.payload,
                state=await root.get_state(registered.states[0]),
                root_state=root,
            )
