"""One message per update: an event's delta and the browser events it returns reach the browser together.

Reflex 0.10 (`base_state_processor.chain_updates`, run after a handler returns or yields) sends the
changed vars and then the handler's browser events (scripts, toasts, redirects) as two Socket.IO
messages. Most of the portal's events return a browser event: every answer returns the local-storage
reply (window.portalTaking.reply), every Continue its address and the reply. Each message costs its own
JSON encoding, its own packet queued to the websocket writer, its own trip through the server's send
path and a loop tick: an answer event paid for two.

`chain_updates` here sends one `StateUpdate` carrying both. The browser's handler of that message
applies the delta first and then runs the events (reflex_base's state.js: `socket.on("event")`), the
order the two messages had; events for the server are queued after it, as before. Nothing else of
Reflex's function changes: the delta is worked out and the state cleaned the same way, and a
handler's invalid return still raises after its delta has been sent. `install()` puts it in place of
Reflex's (portal/portal.py, once per worker).
"""

from __future__ import annotations

from typing import Any

from reflex.state import StateUpdate
from reflex_base.event import Event
from reflex_base.event.context import EventContext
from reflex_base.event.processor import base_state_processor as processor
from reflex_base.registry import RegistrationContext

# Reflex's own function (kept for comparison: tests/unit/test_one_update.py).
REFLEX_CHAIN_UPDATES = processor.chain_updates


async def chain_updates(events: Any, handler_name: str, root_state: Any = None) -> None:
    """Reflex's `chain_updates`, with the delta and the browser events in one message."""
    ctx = EventContext.get()
    delta: dict[str, Any] = {}
    if root_state is not None:
        try:
            delta = await root_state._get_resolved_delta()
        finally:
            root_state._clean()
    try:
        fixed = (
            Event.from_event_type(processor._check_valid_yield(events, handler_name=handler_name))
            if events is not None
            else []
        )
    except Exception:
        if delta:  # sent, as Reflex sends it, before an invalid return raises
            await ctx.emit_delta(delta)
        raise
    browser = [event for event in fixed if event.name.startswith("_")]
    server = [event for event in fixed if not event.name.startswith("_")]
    if delta and browser and ctx.emit_delta_impl is not None:
        namespace = RegistrationContext.get().app.event_namespace
        assert namespace is not None  # the app serves websockets: it has its event namespace
        await namespace.emit_update(update=StateUpdate(delta=delta, events=browser), token=ctx.token)
    else:
        if delta:
            await ctx.emit_delta(delta)
        if browser:
            await ctx.emit_event(*browser)
    if server:
        await ctx.enqueue(*server)


def install() -> None:
    """Reflex's event processing (`process_event`) calls this module's `chain_updates` from now on."""
    processor.chain_updates = chain_updates
