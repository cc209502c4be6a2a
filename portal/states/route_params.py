"""The current page's route arguments (`/test/[rate_test_id]/rate` -> 'rate_test_id'), read without
Reflex 0.10's deprecated `RouterData.page`: `RouterData.url` holds the browser URL only, while the
arguments live in the per-state router field `rx_router_page` that Reflex's own dynamic route vars read.
Imports nothing of the app."""

from __future__ import annotations

from typing import Any

import reflex as rx


def route_arg(state: rx.State, name: str) -> Any:
    """The untrusted value of a route argument of the page the event came from ('' when absent)."""
    return state.rx_router_page.params.get(name, "")


def route_pattern(state: rx.State) -> str:
    """The matched route pattern of the page ('/admin/tests/[test_id]/preview'), not the browser path."""
    return state.router.route_id
