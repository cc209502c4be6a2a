"""Feature flags of the spec and the percentage-rollout rule."""

from __future__ import annotations

import hashlib

FLAGS = (
    "category-buyer-insights",
    "chat-with-your-icp",
    "demo-product",
    "enterprise-subscription-and-trial",
    "live-interviews",
    "monthly-and-yearly-plans",
    "pricing-test",
    "referral-program",
)
REFERRAL_PROGRAM = "referral-program"


def in_rollout(flag_key: str, account_id: int, percentage: int) -> bool:
    """Stable per user: the same user is always in or out of a given flag's percentage."""
    if percentage >= 100:
        return True
    if percentage <= 0:
        return False
    digest = hashlib.sha256(f"{flag_key}:{account_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 100 < percentage
