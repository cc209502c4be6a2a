"""The Tremendous stand-in's state, in its own SQLite file (several backend workers share it: no state is held
in memory), and what happens to it: orders (idempotent by external_id), rewards and their delivery, the link
e-mails it "sends" (its inbox), and the signed webhooks it posts to the portal.

Every write is one `BEGIN IMMEDIATE` transaction, so concurrent orders with one external_id make one order,
and a delivery or a webhook is claimed by a conditional UPDATE: whichever worker runs `tick()`, each reward
is delivered once and each webhook sent once (again, with a growing wait, while the portal answers non-2xx).

Test controls are plain methods: `deliver()`, `pending_webhooks()`, `inbox()`, `orders()`.
"""

from __future__ import annotations

from portal.standins.tremendous.database import Database, StandinConfig
from portal.standins.tremendous.delivery import (
    BOUNCED,
    CHOICES,
    SUCCEEDED,
    Deliveries,
    InboxEmail,
    PendingWebhook,
)
from portal.standins.tremendous.orders import FAILED, SCHEDULED, Orders, Refused


class Store(Orders, Deliveries):
    """The stand-in's state in its file (`config.db_path`): the API's operations (Orders), delivery, webhooks and
    the test controls (Deliveries)."""

    def __init__(self, config: StandinConfig) -> None:
        self.config = config
        self.db = Database(config)


__all__ = [
    "BOUNCED",
    "CHOICES",
    "FAILED",
    "SCHEDULED",
    "SUCCEEDED",
    "InboxEmail",
    "PendingWebhook",
    "Refused",
    "StandinConfig",
    "Store",
]
