"""What every payout provider answers: a reward's delivery in the ledger's words, a webhook event, the
error a call can end in, and the interface (`PayoutProvider`) the ledger calls."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

# The ledger's words for what a provider says of one reward.
SENT = "sent"  # ordered; the link is being delivered
PAID = "paid"  # delivered: the link is in the participant's hands
FAILED = "failed"  # the delivery failed (reason given)
CANCELED = "canceled"
STATES = (SENT, PAID, FAILED, CANCELED)


@dataclass(frozen=True)
class Delivery:
    """What the provider says of one reward."""

    order_id: str  # the provider's order id
    reward_id: str  # the provider's reward id
    state: str  # one of STATES
    provider_status: str  # the provider's own word, e.g. "SCHEDULED", "SUCCEEDED", "FAILED", "CANCELED"
    reason: str = ""  # a failure's reason in plain words ("" otherwise)
    link: str = ""  # not always known


@dataclass(frozen=True)
class WebhookEvent:
    """One signed event the provider posted (e.g. REWARDS.DELIVERY.SUCCEEDED of a reward)."""

    uuid: str
    name: str
    created: datetime  # aware, UTC
    resource_id: str
    resource_type: str


class PayoutError(Exception):
    """A provider call that did not succeed. `message`: plain words, safe to show staff; `retryable`: the same
    call may succeed later (the provider was unreachable, busy or failing), else it will not without a change."""

    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable


class PayoutProvider(Protocol):
    name: str  # "tremendous" | "manual"

    def order(self, *, external_id: str, amount_cents: int, currency: str, email: str, name: str) -> Delivery:
        """Order one reward. Idempotent by `external_id`: a repeat answers the same order, never a second one."""
        ...

    def reward(self, *, provider_reward_id: str) -> Delivery:
        """The reward as the provider has it now."""
        ...

    def find(self, *, external_id: str) -> Delivery | None:
        """The order made with this external id, if any."""
        ...

    def resend(self, *, provider_reward_id: str, email: str) -> Delivery:
        """Deliver a reward whose delivery failed again, to `email`."""
        ...

    def webhook_event(self, *, body: bytes, headers: Mapping[str, str]) -> WebhookEvent | None:
        """The event a webhook request carries; None when its signature or shape is wrong."""
        ...
