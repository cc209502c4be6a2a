"""The browser's local copy of a test (window.portalTaking in assets/portal.js): the calls that name
its local-storage keys, taken from the kinds registry (portal/domain/taking/kinds.local_keys)."""

from __future__ import annotations

import json
from typing import Any

from portal.domain.taking import kinds
from portal.states.browser import portal_call


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def clear(test_id: int) -> Any:
    """Forget everything this browser keeps of the test (a restart, a cleared session)."""
    return portal_call(f"window.portalTaking.clear({int(test_id)}, {_json(kinds.local_keys(test_id))})")


def completed(test_id: int) -> Any:
    """The test was submitted: forget its copy and record it among the completed tests."""
    return portal_call(f"window.portalTaking.completed({int(test_id)}, {_json(kinds.local_keys(test_id))})")


def save_place(key: str, test_id: int, place: dict[str, Any]) -> Any:
    """Where the participant is in the test, kept under the kind's place key by test id."""
    return portal_call(f"window.portalTaking.savePlace({_json(key)}, {int(test_id)}, {_json(place)})")
