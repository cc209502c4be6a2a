"""JSON text read within the portal's limits: nesting depth and characters (size is the reader's).

One reader for every JSON a caller sends in full: the API's request bodies (portal/http/json_body.py)
and the test definitions staff upload (portal/services/admin/definition_files.py). The depth is measured on
the text before it is parsed (a deeply nested text never reaches the parser, whose recursion would
end in a RecursionError), and every string of the value, keys included, must be clean text
(portal/domain/text.py: no lone surrogates, no control characters other than tab and line breaks).
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from portal.domain.text import MAX_DEPTH, clean_text

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(rb"[\[\]{}]")
# What in a UTF-8 JSON text can make a string that is not clean text: an escape that decodes to a
# control character or a surrogate (\u..., \b, \f), DEL and the C1 controls written as they are,
# and surrogates written as UTF-8 (json.loads decodes bytes with 'surrogatepass'). Raw C0 controls in
# a string are refused by the parser itself. A text with none of these needs no walk of its strings.
_MAYBE_UNCLEAN = re.compile(rb"\\[ubf]|\x7f|\xc2[\x80-\x9f]|\xed[\xa0-\xbf]")


def too_deep(what: str) -> str:
    return f"The {what} is nested too deeply (at most {MAX_DEPTH} levels)."


def bad_characters(what: str) -> str:
    return f"The {what} contains characters that are not allowed (control characters or invalid Unicode)."


class JsonRefused(Exception):
    """A JSON text refused for its depth or its characters, with the message for the caller."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def nesting_depth(raw: bytes) -> int:
    """The deepest nesting of arrays and objects in a JSON text, found without parsing it."""
    brackets = _BRACKETS.findall(_STRING.sub(b'""', raw))
    return max(accumulate(1 if b in (b"[", b"{") else -1 for b in brackets), default=0)


def is_clean(value: Any) -> bool:
    """Whether every string in a parsed JSON value (keys too) is clean text."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if clean_text(item) != item:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def parse(raw: bytes, what: str = "request") -> Any:
    """The JSON value of `raw`: JsonRefused when nested deeper than MAX_DEPTH or holding characters
    that are not allowed (the message names `what`); ValueError when it is not JSON (or not UTF-8/16/32)."""
    if nesting_depth(raw) > MAX_DEPTH:
        raise JsonRefused(too_deep(what))
    try:
        value = json.loads(raw)
    except RecursionError as err:  # not reached after the depth check; never a crash all the same
        raise JsonRefused(too_deep(what)) from err
    surely_clean = json.detect_encoding(raw) in ("utf-8", "utf-8-sig") and not _MAYBE_UNCLEAN.search(raw)
    if not surely_clean and not is_clean(value):
        raise JsonRefused(bad_characters(what))
    return value
