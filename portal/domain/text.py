"""Text as the portal keeps it: no lone surrogates, no control characters.

A lone surrogate ('\\ud800') cannot be encoded as UTF-8: kept in a state it breaks the websocket
message that carries it back, and in a database it fails the write. Control characters (other than
tab and line breaks) have no place in answers, names or searches. Both are removed from every text a
browser sends over the websocket (portal/states/event_guard.py cleans each event's payload); the HTTP
API refuses a JSON body that holds them (portal/http/json_body.py, 400 with a message).
"""

from __future__ import annotations

import re
from typing import Any

# C0 controls except tab, line feed and carriage return; DEL and the C1 controls; lone surrogates.
_UNWANTED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
MAX_DEPTH = 32


def clean_text(value: str) -> str:
    """The text without lone surrogates and control characters (tab and line breaks stay)."""
    return _UNWANTED.sub("", value) if _UNWANTED.search(value) else value


def clean_payload(value: Any, depth: int = 0) -> Any:
    """Every string in a JSON-like value cleaned (keys too); deeper than MAX_DEPTH becomes None."""
    if isinstance(value, str):
        return clean_text(value)
    if depth >= MAX_DEPTH:
        return None
    if isinstance(value, dict):
        return {clean_text(k) if isinstance(k, str) else k: clean_payload(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_payload(v, depth + 1) for v in value]
    return value
