"""What reaches an event handler: well-formed events only, with clean text, and clear refusals.

Every public handler can be called from any browser with any arguments (the architecture). Reflex
itself answers a malformed event (unknown or private handler, wrong argument names, `setvar`, a frame
that is not an event) with a traceback in the log and an error toast in the sender's tab. Here:

- `guard_events()` checks each websocket frame before Reflex reads it: an object whose every field
  Reflex reads has the type Reflex assumes (`name` text; `payload` an object; `router_data` an
  object with only `pathname` and `asPath` as text and `query` as an object of texts, the fields
  the browser sends), a registered handler (not `setvar`), argument names that fit the handler. A
  misfit is refused with one log line, before any of it reaches the framework. Every text in the
  payload and the router data is cleaned (portal/domain/text.py): lone surrogates and control
  characters are removed, so no handler and no delta ever carries them.
- `on_backend_exception()` is the app's backend exception handler: a ServiceError raised in a
  handler (an event that does not fit the tab's current state, a refusal of a service) is shown to
  the user with its message and logged in one line; anything else is a real error: it is logged with
  its traceback and the user gets a generic message, never the trace.
"""

import inspect
import logging
import types
import typing
from functools import lru_cache
from typing import Any

from reflex.app import EventNamespace
from reflex_base.registry import RegistrationContext

from portal.domain.text import clean_payload
from portal.services.errors import ServiceError
from portal.states.browser import toast

log = logging.getLogger("portal.events")

SOMETHING_WENT_WRONG = "Something went wrong. Please try again."
MAX_NAME_LENGTH = 300
MAX_URL_LENGTH = 8192
REFUSED_HANDLERS = ("setvar",)
# What Reflex reads of an event's router_data (reflex/app.py EventNamespace.on_event, reflex/istate/data.py):
# the route it matches `pathname` against (a cached lookup: text only), the browser URL it builds from
# the page's origin and `asPath` (concatenated: text only), and the query whose keys it rewrites and
# whose values become the route arguments. The browser sends exactly these (state.js withRouterData;
# chained events carry the same subset, ROUTER_DATA_INCLUDE); Reflex sets the others itself.
ROUTER_TEXT_FIELDS = ("pathname", "asPath")
ROUTER_FIELDS = frozenset((*ROUTER_TEXT_FIELDS, "query"))


@lru_cache(maxsize=4096)
def _parameters(fn: Any) -> tuple[frozenset[str], frozenset[str], bool]:
    """(all argument names, required ones, takes **kwargs) of a handler function, without self."""
    params = list(inspect.signature(fn).parameters.values())[1:]
    names = frozenset(p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
    required = frozenset(
        p.name for p in params if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    )
    return names, required, any(p.kind == p.VAR_KEYWORD for p in params)


@lru_cache(maxsize=256)
def _expected_types(fn: Any) -> dict[str, tuple[type, ...]]:
    """The plain types a framework handler's arguments must have (None allowed where Optional)."""
    expected: dict[str, tuple[type, ...]] = {}
    for name, hint in typing.get_type_hints(fn).items():
        if name == "return":
            continue
        options = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
        kinds = tuple({typing.get_origin(o) or o for o in options if isinstance(typing.get_origin(o) or o, type)})
        if kinds and Any not in options:
            expected[name] = kinds
    return expected


def _framework_problem(name: str, fn: Any, payload: dict[str, Any]) -> str | None:
    """Reflex's own handlers (hydrate, client storage, frontend exceptions) trust their arguments'
    types: check them here. A client-storage update must name client-storage vars of known states."""
    for key, kinds in _expected_types(fn).items():
        if key in payload and not isinstance(payload[key], kinds):
            return f"{name[:100]!r} takes {key!r} of another type"
    for key in ("vars",):
        value = payload.get(key)
        if isinstance(value, dict):
            from reflex.state import FIELD_MARKER, State

            for var in value:
                state_name, _, var_name = var.rpartition(".")
                try:
                    owner = State.get_class_substate(state_name)
                except (ValueError, AttributeError, KeyError):
                    return f"{name[:100]!r} names no state in {var[:100]!r}"
                if not owner._is_client_storage(var_name.removesuffix(FIELD_MARKER)):
                    return f"{name[:100]!r} names no client storage var in {var[:100]!r}"
    hashes = payload.get("hashes")
    if isinstance(hashes, list) and not all(isinstance(item, str) for item in hashes):
        return f"{name[:100]!r} takes hashes as text"
    return None


def _query_value_ok(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(item, str) for item in value))


def router_problem(router_data: Any) -> str | None:
    """Why an event's router_data is not what a browser sends (None when it is)."""
    if not isinstance(router_data, dict):
        return "its router data is not an object"
    if unknown := sorted(set(router_data) - ROUTER_FIELDS):
        return f"its router data has the field {unknown[0][:50]!r}"
    for key in ROUTER_TEXT_FIELDS:
        value = router_data.get(key, "")
        if not isinstance(value, str) or len(value) > MAX_URL_LENGTH:
            return f"its router data's {key!r} is not a URL path"
    query = router_data.get("query", {})
    if not isinstance(query, dict) or not all(_query_value_ok(value) for value in query.values()):
        return "its router data's 'query' is not an object of texts"
    if sum(len(key) + len(str(value)) for key, value in query.items()) > MAX_URL_LENGTH:
        return "its router data's 'query' is too long"
    return None


def event_problem(data: Any, handlers: dict[str, Any]) -> str | None:
    """Why this websocket frame is not an event the app takes (None when it is)."""
    if not isinstance(data, dict):
        return "the frame is not an event object"
    name, payload = data.get("name"), data.get("payload", {})
    if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME_LENGTH:
        return "the event has no usable name"
    if "router_data" in data and (problem := router_problem(data["router_data"])):
        return f"{name[:100]!r}: {problem}"
    registered = handlers.get(name)
    if registered is None:
        return f"no handler {name[:100]!r}"
    if name.rpartition(".")[2] in REFUSED_HANDLERS:
        return f"{name[:100]!r} is not taken from browsers"
    if not isinstance(payload, dict) or not all(isinstance(key, str) for key in payload):
        return f"the payload of {name[:100]!r} is not an object"
    names, required, any_keyword = _parameters(registered.handler.fn)
    unknown = sorted(set(payload) - names)
    if unknown and not any_keyword:
        return f"{name[:100]!r} takes no argument {unknown[0][:50]!r}"
    if missing := sorted(required - set(payload)):
        return f"{name[:100]!r} needs the argument {missing[0]!r}"
    if registered.handler.fn.__module__.startswith("reflex"):
        return _framework_problem(name, registered.handler.fn, payload)
    return None


def guard_events() -> None:
    """Put the check in front of Reflex's websocket event intake (once per process)."""
    if getattr(EventNamespace.on_event, "_portal_guarded", False):
        return
    original = EventNamespace.on_event

    async def on_event(self: EventNamespace, sid: str, data: Any) -> None:
        try:
            handlers = RegistrationContext.get().event_handlers
        except LookupError:
            handlers = None
        if handlers is not None:
            problem = event_problem(data, handlers)
            if problem is not None:
                log.warning("refused a websocket event: %s", problem)
                return None
            data = {
                **data,
                "payload": clean_payload(data.get("payload", {})),
                "router_data": clean_payload(data.get("router_data", {})),
            }
        return await original(self, sid, data)

    # Reflex's websocket handler replaced by the guarded one, marked so it is replaced once: a function
    # attribute and a method assignment, both outside what the type of either says.
    on_event._portal_guarded = True  # type: ignore[attr-defined]
    EventNamespace.on_event = on_event  # type: ignore[method-assign]


def on_backend_exception(exception: Exception):
    """Reflex's backend exception handler for the portal."""
    if isinstance(exception, ServiceError):
        log.info("refused an event: %s", exception.message)
        return toast("error", exception.message)
    log.error("an event handler failed", exc_info=exception)
    return toast("error", SOMETHING_WENT_WRONG)
