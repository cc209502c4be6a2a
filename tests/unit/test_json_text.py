"""JSON text within the portal's limits (portal/domain/json_text.py): depth measured before parsing, and
every string clean, whether a character is written as it is or as an escape, in UTF-8 or UTF-16."""

from __future__ import annotations

import pytest

from portal.domain.json_text import JsonRefused, parse
from portal.domain.text import MAX_DEPTH

UNCLEAN = [
    b'{"a": "\\u0007"}',
    b'{"a": "\\ud800"}',
    b'{"a": "x\\by"}',
    b'{"a": "x\\fy"}',
    b'{"a": "\x7f"}',
    '{"a": "\x85"}'.encode(),
    b'{"a": "\xed\xa0\x80"}',
    '{"\x9f": 1}'.encode(),
    b'["\\u001b[31m"]',
    '{"a": "\\u0007"}'.encode("utf-16"),
]
CLEAN = [
    b'{"a": "\\\\b"}',
    b'{"a": "\\u00e9 caf\xc3\xa9"}',
    b'{"a": "line\\nnext\\ttab"}',
    '{"a": "ok"}'.encode("utf-16"),
    b'{"a": "\xe2\x82\xac", "b": [1, 2.5, null, true]}',
    b'\xef\xbb\xbf{"bom": "x"}',
]


@pytest.mark.parametrize("raw", UNCLEAN)
def test_a_string_that_is_not_clean_text_is_refused(raw):
    with pytest.raises(JsonRefused, match="characters that are not allowed"):
        parse(raw, "file")


@pytest.mark.parametrize("raw", CLEAN)
def test_clean_text_is_read(raw):
    assert isinstance(parse(raw), (dict, list))


def test_depth_is_refused_before_parsing_and_brackets_in_strings_do_not_count():
    with pytest.raises(JsonRefused, match=f"at most {MAX_DEPTH} levels"):
        parse(b"[" * 200_000 + b"]" * 200_000, "file")
    assert parse(b'{"a": "' + b"[" * 1000 + b'"}') == {"a": "[" * 1000}
    assert parse(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None


def test_not_json_is_a_value_error():
    with pytest.raises(ValueError):
        parse(b"{not json")
