"""Small browser-side effects shared by states: toasts and tidying the address bar."""

from __future__ import annotations

import json
from typing import Any

import reflex as rx
from reflex.event import EventSpec
from reflex_base.event import Event

TOAST_MS = 5000  # the spec's toast auto-close


def toast(level: str, message: str):
    show = {"success": rx.toast.success, "error": rx.toast.error, "warning": rx.toast.warning}.get(level, rx.toast.info)
    return show(message, duration=TOAST_MS)


# Until /portal.js has run, a call waits for it (polled every 25 ms); once it has, it runs at once.
_WHEN_LOADED = (
    "new Promise((go) => { const check = () => (window.portalJsLoaded ? go() : setTimeout(check, 25)); check(); })"
)


def _once_loaded(code: str) -> str:
    return f"(window.portalJsLoaded ? ({code}) : {_WHEN_LOADED}.then(() => ({code})))"


def portal_call(code: str, callback: Any = None):
    """`rx.call_script` for a call into /portal.js (`window.portalTaking.read(...)`) from an event handler:
    an event's script can reach a freshly opened page before the script has loaded, so the call waits
    for it."""
    if callback is not None:
        return rx.call_script(_once_loaded(code), callback=callback)
    return run_script(_once_loaded(code))


def portal_trigger(code: str) -> EventSpec:
    """The same call as a component's event trigger (compiled into the page)."""
    return rx.call_script(_once_loaded(code))


# The browser event `rx.call_script(script)` becomes once Reflex has converted it (its name and its payload
# as the frontend receives them), made directly: rx.call_script computes its own signature on every call
# (inspect.signature, about 0.35 ms), and the event spec it makes wraps the code in Vars that Reflex then
# turns back into the same string (a tenth of an answer event's handler time, bench/README.md). A plain
# string of code carries no Var data, so call_script sends it as it is, as here.
_CALL_SCRIPT = "_call_script"


def run_script(script: str) -> Event:
    """`rx.call_script(script)` without a callback, for event handlers."""
    return Event(name=_CALL_SCRIPT, payload={"javascript_code": script, "callback": None})


def remove_query_params_js(names: tuple[str, ...] | list[str]) -> str:
    return (
        "(() => { const u = new URL(window.location.href); "
        f"{json.dumps(list(names))}.forEach((p) => u.searchParams.delete(p)); "
        "window.history.replaceState(window.history.state, '', u.pathname + u.search + u.hash); })()"
    )
