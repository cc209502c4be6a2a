"""Each kind's screen, registered once beside its component (`@screen(TheKindState)`), and the
table the rating page and the staff preview draw from: derived, never listed by hand.

A screen is called as `view(signed_in=..., referral=..., starts_itself=...)`: the rating page passes
the header's values and lets its load event enter the state; the preview makes it start itself.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import reflex as rx

from portal.domain.taking import kinds
from portal.states.taking.timed_session import TimedSession

ScreenView = Callable[..., rx.Component]


@dataclass(frozen=True)
class Screen:
    view: str  # the kind's view (portal/domain/taking/kinds)
    state: type[TimedSession]
    component: ScreenView


_SCREENS: dict[str, Screen] = {}


def screen(state: type[TimedSession]) -> Callable[[ScreenView], ScreenView]:
    """Register the decorated function as the screen of `state`'s view."""

    def register(component: ScreenView) -> ScreenView:
        _SCREENS[state.VIEW] = Screen(state.VIEW, state, component)
        return component

    return register


@cache
def _discovered() -> None:
    package = importlib.import_module(__package__ or "portal.components.taking")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")


def screens() -> list[Screen]:
    """The screens of the kinds taken in the portal, in the kinds registry's order. A kind without a
    registered screen is an error, found when the pages are compiled."""
    _discovered()
    missing = [v for v in kinds.screen_views() if v not in _SCREENS]
    if missing:
        raise LookupError(f"no screen registered for the view(s) {missing}")
    return [_SCREENS[v] for v in kinds.screen_views()]
