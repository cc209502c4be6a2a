"""The panel exchange (Cint-style): signed entry links in, signed exits and callbacks out, over HTTP with httpx.

- Entry: `/test/{id}/rate?panel=<name>&rid=<respondent id>&sig=<hex>` where `sig` is HMAC-SHA256 (shared secret)
  of the canonical request (portal/domain/partners.py `canonical`: path, '?', the other parameters sorted and
  percent-encoded).
- Exit: the participant is sent to `PANEL_EXCHANGE_EXIT_URL?outcome=&rid=&test=&ts=&sig=`, signed the same way
  (with the exit URL's path).
- Callback: `POST PANEL_EXCHANGE_CALLBACK_URL` with `{event, panel, rid, testId, outcome}`, headers
  `Idempotency-Key`, `X-Partner-Timestamp` and `X-Partner-Signature: sha256=<HMAC of "<timestamp>.<body>">`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import httpx

from portal.domain import partners as rules
from portal.services.providers.partners.base import PartnerError, failure
from portal.settings import Settings, settings


class PanelExchange:
    def __init__(
        self,
        *,
        name: str,
        secret: str,
        exit_url: str,
        callback_url: str,
        timeout: float,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.name, self.secret, self.exit_url, self.callback_url = name, secret, exit_url, callback_url
        self.timeout, self.transport = timeout, transport

    def verify_entry(self, path: str, params: Mapping[str, str]) -> bool:
        return rules.verify(self.secret, path, params)

    def exit_to(self, *, outcome: str, rid: str, test_id: int, now: float | None = None) -> str:
        """The signed exit URL for this outcome."""
        params = rules.exit_params(outcome=outcome, rid=rid, test_id=test_id, timestamp=int(now or time.time()))
        return rules.signed_url(self.secret, self.exit_url, params)

    def report(self, *, payload: dict[str, Any], idempotency_key: str) -> None:
        """Post the server-to-server callback (PartnerError when it is not accepted)."""
        if not self.callback_url:
            raise PartnerError("no PANEL_EXCHANGE_CALLBACK_URL", permanent=True)
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        stamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            "Idempotency-Key": idempotency_key,
            "X-Partner-Timestamp": stamp,
            "X-Partner-Signature": rules.body_signature(self.secret, stamp, body),
        }
        try:
            with httpx.Client(timeout=self.timeout, transport=self.transport) as client:
                answer = client.post(self.callback_url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise PartnerError(f"panel exchange unreachable: {type(exc).__name__}") from None
        if answer.status_code >= 300:
            raise failure(answer.status_code, answer.text)


def panel_exchange(config: Settings | None = None) -> PanelExchange | None:
    """The configured exchange (or its local stand-in); None when none is configured."""
    config = config or settings
    if not config.panel_exchange_secret:
        return None
    return PanelExchange(
        name=config.panel_exchange_name,
        secret=config.panel_exchange_secret,
        exit_url=config.panel_exchange_exit_url,
        callback_url=config.panel_exchange_callback_url,
        timeout=config.partner_timeout_seconds,
    )
