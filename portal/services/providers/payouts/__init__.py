"""Payout providers behind one interface (`PayoutProvider`): Tremendous through its SDK (or its local stand-in,
portal/standins/tremendous), or the manual provider (staff pay by hand). `payout_provider()` is the one the
settings choose (PAYOUT_PROVIDER, see portal/domain/payout_choice.py), built once per process."""

from __future__ import annotations

import functools

from portal.domain import payout_choice
from portal.services.providers.payouts.base import (
    CANCELED,
    FAILED,
    PAID,
    SENT,
    STATES,
    Delivery,
    PayoutError,
    PayoutProvider,
    WebhookEvent,
)
from portal.services.providers.payouts.manual import ManualProvider
from portal.services.providers.payouts.tremendous import TremendousProvider
from portal.settings import Settings, settings


def build(config: Settings) -> PayoutProvider:
    """The provider `config` chooses."""
    if config.payout_provider_name != payout_choice.TREMENDOUS:
        return ManualProvider()
    return TremendousProvider(
        host=config.tremendous_host,
        api_key=config.tremendous_api_key,
        campaign_id=config.tremendous_campaign_id,
        funding_source_id=config.tremendous_funding_source_id,
        webhook_key=config.tremendous_webhook_key,
        timeout_seconds=config.payout_timeout_seconds,
        loopback=config.local_payouts_active,
    )


@functools.cache
def payout_provider() -> PayoutProvider:
    """The portal's payout provider (from settings), built once."""
    return build(settings)


__all__ = [
    "CANCELED",
    "FAILED",
    "PAID",
    "SENT",
    "STATES",
    "Delivery",
    "ManualProvider",
    "PayoutError",
    "PayoutProvider",
    "TremendousProvider",
    "WebhookEvent",
    "build",
    "payout_provider",
]
