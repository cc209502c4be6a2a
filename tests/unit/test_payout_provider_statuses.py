"""Tremendous's order and delivery statuses in the ledger's words (paid = delivery SUCCEEDED: Tremendous
reports no redemption), and what the manual provider answers."""

from __future__ import annotations

import pytest

from portal.services.providers.payouts import ManualProvider, PayoutError
from portal.services.providers.payouts.statuses import (
    DELIVERY_FAILED_REASON,
    ORDER_FAILED_REASON,
    ledger_state,
)


@pytest.mark.parametrize(
    "order,delivery,expected",
    [
        ("EXECUTED", "SCHEDULED", ("sent", "SCHEDULED", "")),
        ("EXECUTED", "PENDING", ("sent", "PENDING", "")),
        ("EXECUTED", "SUCCEEDED", ("paid", "SUCCEEDED", "")),
        (None, "SUCCEEDED", ("paid", "SUCCEEDED", "")),
        ("EXECUTED", "FAILED", ("failed", "FAILED", DELIVERY_FAILED_REASON)),
        (None, "failed", ("failed", "FAILED", DELIVERY_FAILED_REASON)),
        ("CANCELED", "SCHEDULED", ("canceled", "CANCELED", "")),
        ("CANCELED", "SUCCEEDED", ("canceled", "CANCELED", "")),
        ("FAILED", None, ("failed", "FAILED", ORDER_FAILED_REASON)),
        ("PENDING APPROVAL", None, ("sent", "PENDING APPROVAL", "")),
        ("PENDING INTERNAL PAYMENT APPROVAL", "SCHEDULED", ("sent", "PENDING INTERNAL PAYMENT APPROVAL", "")),
        ("EXECUTED", None, ("sent", "EXECUTED", "")),
        (None, None, ("sent", "SCHEDULED", "")),
        ("EXECUTED", "SOMETHING NEW", ("sent", "SOMETHING NEW", "")),
    ],
)
def test_statuses_in_the_ledgers_words(order, delivery, expected):
    assert ledger_state(order, delivery) == expected


def test_a_failure_reason_is_plain_words():
    state, _, reason = ledger_state("EXECUTED", "FAILED")
    assert state == "failed" and "could not be delivered" in reason and "FAILED" not in reason


def test_the_manual_provider_orders_nothing():
    provider = ManualProvider()
    assert provider.name == "manual"
    with pytest.raises(PayoutError) as raised:
        provider.order(external_id="R1", amount_cents=500, currency="USD", email="a@example.org", name="A")
    assert raised.value.retryable is False and raised.value.message.startswith("Payouts are made by hand")
    with pytest.raises(PayoutError):
        provider.resend(provider_reward_id="R1", email="a@example.org")
    assert provider.find(external_id="R1") is None
    assert provider.webhook_event(body=b"{}", headers={}) is None
