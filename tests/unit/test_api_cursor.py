"""The API's cursors (portal/api/pagination.py): what it gives comes back as the id; anything else, a number beyond an
id's range included (it would overflow the database's integer: a 500), is refused with the cursor's message."""

from __future__ import annotations

import base64

import pytest

from portal.api.pagination import BAD_CURSOR, decode, encode
from portal.domain.ids import MAX_VALUE
from portal.services.errors import ServiceError


def _raw(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize("last", [0, 1, 123, MAX_VALUE])
def test_a_cursor_the_api_gave_comes_back_as_its_id(last):
    assert decode(encode(last)) == last


def test_no_cursor_is_the_first_page():
    assert decode(None) is None and decode("") is None


@pytest.mark.parametrize(
    "cursor",
    [
        encode(MAX_VALUE + 1),
        encode(2**63),
        encode(10**40),
        _raw("v1:-1"),
        _raw("v1:"),
        _raw("v1:1e3"),
        _raw("v1:²"),
        _raw("v2:5"),
        _raw("5"),
        "!!!",
        "not base64 at all",
        base64.urlsafe_b64encode(b"\xff\xfe:5").decode(),
    ],
)
def test_any_other_cursor_is_refused_with_its_message(cursor):
    with pytest.raises(ServiceError) as refused:
        decode(cursor)
    assert (refused.value.field, refused.value.message) == ("cursor", BAD_CURSOR)
