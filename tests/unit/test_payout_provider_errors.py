"""What an SDK call raised, as the ledger sees it: network errors, 429 and 5xx may succeed later (retryable);
a refused key, a conflicting order (409), a missing resource or a refused request will not."""

from __future__ import annotations

import pytest
import urllib3
from pydantic import BaseModel
from tremendous.exceptions import ApiException

from portal.services.providers.payouts.tremendous import CONFLICT, REFUSED_KEY, UNREACHABLE, payout_error


@pytest.mark.parametrize(
    "error",
    [
        urllib3.exceptions.NewConnectionError(None, "refused"),  # type: ignore[arg-type]
        urllib3.exceptions.ReadTimeoutError(None, "/orders", "timed out"),  # type: ignore[arg-type]
        urllib3.exceptions.ProtocolError("connection aborted"),
        ConnectionRefusedError(),
    ],
)
def test_network_errors_are_retryable(error):
    found = payout_error(error)
    assert found.retryable is True and found.message == UNREACHABLE


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_busy_or_failing_answers_are_retryable(status):
    found = payout_error(ApiException(status=status, reason="x"))
    assert found.retryable is True and f"HTTP {status}" in found.message


@pytest.mark.parametrize("status,message", [(401, REFUSED_KEY), (403, REFUSED_KEY), (409, CONFLICT)])
def test_refusals_are_not_retryable(status, message):
    found = payout_error(ApiException(status=status, reason="x"))
    assert found.retryable is False and found.message == message


def test_a_conflict_says_what_happened_in_plain_words():
    assert "already has an order" in CONFLICT and "not ordered again" in CONFLICT


def test_a_refused_request_carries_tremendous_message():
    class Errors(BaseModel):
        message: str

    class Data(BaseModel):
        errors: Errors

    found = payout_error(ApiException(status=400, reason="x", data=Data(errors=Errors(message="Campaign not found"))))
    assert found.retryable is False and found.message == "Tremendous refused the request (HTTP 400): Campaign not found"


def test_an_answer_of_another_shape_is_retryable():
    found = payout_error(ValueError("not the shape of an order"))
    assert found.retryable is True
