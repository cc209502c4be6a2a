"""Every state of the staff side (portal/states/admin) is attacked by one of the raw-event authorization
tests (tests/security/test_admin*_authorization.py), each of which checks it sends every public handler of
the states it names: a new admin state without such a test fails here."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import reflex as rx

import portal.states.admin as admin_states

SECURITY = Path(__file__).resolve().parents[1] / "security"


def admin_state_classes() -> dict[str, type]:
    found: dict[str, type] = {}
    for info in pkgutil.iter_modules(admin_states.__path__):
        module = importlib.import_module(f"{admin_states.__name__}.{info.name}")
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, rx.State)
                and value.__module__ == module.__name__
                and not getattr(value, "_mixin", False)
                and value.event_handlers
            ):
                found[name] = value
    return found


def test_every_admin_state_is_named_by_an_authorization_test():
    sources = "".join(p.read_text() for p in SECURITY.glob("test_admin*_authorization.py"))
    states = admin_state_classes()
    assert len(states) >= 8
    missing = [name for name in states if name not in sources]
    assert not missing, f"admin states no authorization test sends events to: {missing}"
