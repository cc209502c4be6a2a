"""Tremendous's statuses in the ledger's words.

An order's status says whether it was processed (EXECUTED) or not (CANCELED, FAILED, awaiting an approval or
funds); a reward's delivery status says where its e-mail is (SCHEDULED, PENDING, SUCCEEDED, FAILED). Tremendous
reports nothing after delivery (no redemption), so a delivery that SUCCEEDED (the link is in the participant's
hands) is 'paid'.
"""

from __future__ import annotations

from portal.services.providers.payouts.base import CANCELED, FAILED, PAID, SENT

DELIVERY_FAILED_REASON = "The reward e-mail could not be delivered (the address bounced or does not exist)."
ORDER_FAILED_REASON = "Tremendous could not process the order (for example, not enough funds on the account)."
ORDER_CANCELED, ORDER_FAILED = "CANCELED", "FAILED"
DELIVERY_SUCCEEDED, DELIVERY_FAILED = "SUCCEEDED", "FAILED"


def ledger_state(order_status: str | None, delivery_status: str | None) -> tuple[str, str, str]:
    """(state, provider_status, reason) of a reward from its order's status (None: not known) and its
    delivery's status. A canceled or failed order decides; otherwise the delivery does; anything else
    (SCHEDULED, PENDING, an order awaiting approval, a status this code does not know) is 'sent'."""
    order = (order_status or "").strip().upper()
    delivery = (delivery_status or "").strip().upper()
    if order == ORDER_CANCELED:
        return CANCELED, order, ""
    if order == ORDER_FAILED:
        return FAILED, order, ORDER_FAILED_REASON
    if delivery == DELIVERY_SUCCEEDED:
        return PAID, delivery, ""
    if delivery == DELIVERY_FAILED:
        return FAILED, delivery, DELIVERY_FAILED_REASON
    if order and order != "EXECUTED":
        return SENT, order, ""  # e.g. PENDING APPROVAL: ordered, not delivered yet
    return SENT, delivery or order or "SCHEDULED", ""
