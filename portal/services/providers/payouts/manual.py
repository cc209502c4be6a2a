"""No payout provider: staff pay by hand (mark paid, the payout CSV) as before issue 37."""

from __future__ import annotations

from collections.abc import Mapping

from portal.services.providers.payouts.base import Delivery, PayoutError, WebhookEvent

BY_HAND = (
    "Payouts are made by hand on this panel (no payout provider is configured): mark the reward paid once it is paid."
)


class ManualProvider:
    name = "manual"

    def order(self, *, external_id: str, amount_cents: int, currency: str, email: str, name: str) -> Delivery:
        raise PayoutError(BY_HAND, retryable=False)

    def reward(self, *, provider_reward_id: str) -> Delivery:
        raise PayoutError(BY_HAND, retryable=False)

    def find(self, *, external_id: str) -> Delivery | None:
        return None  # nothing is ever ordered

    def resend(self, *, provider_reward_id: str, email: str) -> Delivery:
        raise PayoutError(BY_HAND, retryable=False)

    def webhook_event(self, *, body: bytes, headers: Mapping[str, str]) -> WebhookEvent | None:
        return None
