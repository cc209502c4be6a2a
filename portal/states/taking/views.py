"""The state of each kind's screen, by view: derived, never listed by hand.

A kind's state is a `TimedSession` whose class names its screen (`VIEW`, the kind's view in
portal/domain/taking/kinds). Every module of this package is imported once, so each such state is
found without being listed anywhere else.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any

import portal.states.taking as package
from portal.domain.taking import kinds
from portal.states.taking.timed_session import TimedSession


@cache
def _discovered() -> None:
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")


def _subclasses(cls: type[Any]) -> list[type[Any]]:
    found: list[type[Any]] = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def view_states() -> dict[str, type[TimedSession]]:
    """The kinds' screens taken on the rating page (kinds.screen_views), each with its state."""
    _discovered()
    by_view = {c.__dict__["VIEW"]: c for c in _subclasses(TimedSession) if c.__dict__.get("VIEW")}
    return {view: by_view[view] for view in kinds.screen_views() if view in by_view}
