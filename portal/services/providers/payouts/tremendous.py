"""Tremendous through its official SDK (tremendous-python): one reward per order, delivered by e-mail; the
recipient chooses a gift card, VISA, PayPal or a charity on Tremendous's page.

Every call has a timeout (PAYOUT_TIMEOUT_SECONDS) and no retries of its own (the ledger's job retries);
network errors (urllib3's) and answers 429 and 5xx are retryable PayoutErrors, other answers are not.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import urllib3
from pydantic import ValidationError
from tremendous import (
    ApiClient,
    Configuration,
    CreateOrderRequest,
    ResendRewardRequest,
    SingleRewardOrder,
    TremendousApi,
)
from tremendous.exceptions import ApiException, OpenApiException

from portal.services.providers.payouts import statuses, webhooks
from portal.services.providers.payouts.base import Delivery, PayoutError, WebhookEvent

log = logging.getLogger(__name__)
T = TypeVar("T")

UNREACHABLE = "Tremendous could not be reached; the payout will be tried again."
BUSY = "Tremendous is busy or failing (HTTP {status}); the payout will be tried again."
REFUSED_KEY = "Tremendous refused the API key (TREMENDOUS_API_KEY)."
CONFLICT = (
    "Tremendous already has an order for this reward with a different amount or recipient; it was not ordered "
    "again. Check the order on Tremendous before changing anything."
)
NOT_FOUND = "Tremendous has no such reward or order."
NOT_RESENDABLE = "Only a reward whose delivery failed can be sent again."
ODD_ANSWER = "Tremendous gave an answer this portal does not understand; the payout will be tried again."
LOOPBACK_HOSTS = "127.0.0.1,localhost,::1"


def _message(error: ApiException) -> str:
    """Tremendous's own message of an error answer (`{"errors": {"message": ...}}`), if any."""
    errors = getattr(getattr(error, "data", None), "errors", None)
    message = getattr(errors, "message", None)
    return message.strip() if isinstance(message, str) else ""


def payout_error(error: Exception) -> PayoutError:
    """The PayoutError for what an SDK call raised."""
    if isinstance(error, urllib3.exceptions.HTTPError | OSError):
        return PayoutError(UNREACHABLE, retryable=True)
    if isinstance(error, ApiException):
        status = int(error.status or 0)
        if status == 0 or status == 429 or status >= 500:
            return PayoutError(BUSY.format(status=status or "no status"), retryable=True)
        if status in (401, 403):
            return PayoutError(REFUSED_KEY, retryable=False)
        if status == 409:
            return PayoutError(CONFLICT, retryable=False)
        if status == 404:
            return PayoutError(NOT_FOUND, retryable=False)
        said = _message(error)
        return PayoutError(
            f"Tremendous refused the request (HTTP {status})" + (f": {said}" if said else "."), retryable=False
        )
    return PayoutError(ODD_ANSWER, retryable=True)  # an answer of another shape (ValidationError, ...)


def _delivery(order_id: str, order_status: str | None, reward: Any) -> Delivery:
    delivery = getattr(reward, "delivery", None)
    state, provider_status, reason = statuses.ledger_state(order_status, getattr(delivery, "status", None))
    link = getattr(delivery, "link", None)
    return Delivery(
        order_id=order_id or str(getattr(reward, "order_id", "") or ""),
        reward_id=str(getattr(reward, "id", "") or ""),
        state=state,
        provider_status=provider_status,
        reason=reason,
        link=link if isinstance(link, str) else "",
    )


def _of_order(order: Any) -> Delivery:
    rewards = getattr(order, "rewards", None) or []
    if not rewards:
        raise PayoutError(ODD_ANSWER, retryable=True)
    return _delivery(str(order.id), str(order.status), rewards[0])


class TremendousProvider:
    name = "tremendous"

    def __init__(
        self,
        *,
        host: str,
        api_key: str,
        campaign_id: str,
        funding_source_id: str = "BALANCE",
        webhook_key: str = "",
        timeout_seconds: float = 10.0,
        loopback: bool = False,
    ) -> None:
        configuration = Configuration(
            host=host,
            access_token=api_key,
            retries=False,
            # The local stand-in is never reached through a proxy of the environment.
            no_proxy=LOOPBACK_HOSTS if loopback else None,
        )
        self.api = TremendousApi(ApiClient(configuration))
        self.campaign_id = campaign_id
        self.funding_source_id = funding_source_id
        self.webhook_key = webhook_key
        self.timeout = float(timeout_seconds)

    def _call(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return call(*args, _request_timeout=self.timeout, **kwargs)
        except (OpenApiException, ValidationError, urllib3.exceptions.HTTPError, OSError, ValueError) as error:
            raised = payout_error(error)
            log.warning("Tremendous call %s failed: %s", getattr(call, "__name__", "?"), raised.message)
            raise raised from error

    def order(self, *, external_id: str, amount_cents: int, currency: str, email: str, name: str) -> Delivery:
        try:
            request = CreateOrderRequest(
                SingleRewardOrder.model_validate(
                    {
                        "external_id": external_id,
                        "payment": {"funding_source_id": self.funding_source_id},
                        "reward": {
                            "campaign_id": self.campaign_id,
                            "value": {"denomination": round(amount_cents / 100, 2), "currency_code": currency.upper()},
                            "recipient": {"name": name, "email": email},
                            "delivery": {"method": "EMAIL"},
                        },
                    }
                )
            )
        except ValueError as error:  # e.g. a campaign id of another form (TREMENDOUS_CAMPAIGN_ID)
            raise PayoutError(f"The order could not be made: {error}", retryable=False) from error
        return _of_order(self._call(self.api.create_order, request).order)

    def reward(self, *, provider_reward_id: str) -> Delivery:
        reward = self._call(self.api.get_reward, provider_reward_id).reward
        status = getattr(reward.delivery, "status", None)
        if str(status).upper() == statuses.DELIVERY_SUCCEEDED or not reward.order_id:
            return _delivery(str(reward.order_id or ""), None, reward)
        # Not delivered yet, or failed: the order says whether it was canceled or could not be processed.
        order = self._call(self.api.get_order, reward.order_id).order
        return _delivery(str(order.id), str(order.status), reward)

    def find(self, *, external_id: str) -> Delivery | None:
        orders = self._call(self.api.list_orders, external_id=external_id, limit=1).orders or []
        matching = [o for o in orders if o.external_id == external_id]
        return _of_order(matching[0]) if matching else None

    def resend(self, *, provider_reward_id: str, email: str) -> Delivery:
        try:
            self._call(self.api.resend_reward, provider_reward_id, ResendRewardRequest(updated_email=email))
        except PayoutError as error:
            if error.__cause__ is not None and getattr(error.__cause__, "status", None) == 422:
                raise PayoutError(NOT_RESENDABLE, retryable=False) from error.__cause__
            raise
        return self.reward(provider_reward_id=provider_reward_id)

    def webhook_event(self, *, body: bytes, headers: Mapping[str, str]) -> WebhookEvent | None:
        return webhooks.event(body, headers, self.webhook_key)
