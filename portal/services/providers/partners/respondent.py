"""The external research-participant service's API (Respondent-style), over HTTP with httpx.

- `GET {RESPONDENT_API_URL}/respondent-participant?projectId=&screenerResponseId=` (the spec's
  `GET /tester/respondent-participant`) answers `{screenerResponseData, isInvited, errors}`;
- `POST {RESPONDENT_API_URL}/completions` with `{event, projectId, screenerResponseId, testId, status}` reports a
  participant's completion; it carries `Idempotency-Key` and the service keeps one report per key.
Both send `Authorization: Bearer <RESPONDENT_API_KEY>`.
"""

from __future__ import annotations

from typing import Any

import httpx

from portal.domain import partners as rules
from portal.services.providers.partners.base import PartnerError, failure
from portal.settings import Settings, settings


class ResearchService:
    def __init__(self, *, base_url: str, api_key: str, timeout: float, transport: httpx.BaseTransport | None = None):
        self.base_url, self.api_key, self.timeout, self.transport = base_url.rstrip("/"), api_key, timeout, transport

    def _client(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.base_url,
            timeout=self.timeout,
            headers={"Authorization": f"Bearer {self.api_key}", "Accept": "application/json"},
            transport=self.transport,
        )

    def check_participant(self, *, project_id: str, screener_response_id: str) -> rules.InviteCheck:
        """Whether this screener response is invited to this project (PartnerError when the service cannot say)."""
        try:
            with self._client() as client:
                answer = client.get(
                    "/respondent-participant",
                    params={"projectId": project_id, "screenerResponseId": screener_response_id},
                )
        except httpx.HTTPError as exc:
            raise PartnerError(f"research service unreachable: {type(exc).__name__}") from None
        if answer.status_code == 404:
            return rules.InviteCheck(False, {}, ())
        if answer.status_code >= 300:
            raise failure(answer.status_code, answer.text)
        try:
            body: Any = answer.json()
        except ValueError:
            raise PartnerError("research service answered something that is not JSON") from None
        return rules.read_invite_check(body)

    def report(self, *, payload: dict[str, Any], idempotency_key: str) -> None:
        """Report a completion (PartnerError when it is not accepted)."""
        try:
            with self._client() as client:
                answer = client.post("/completions", json=payload, headers={"Idempotency-Key": idempotency_key})
        except httpx.HTTPError as exc:
            raise PartnerError(f"research service unreachable: {type(exc).__name__}") from None
        if answer.status_code >= 300:
            raise failure(answer.status_code, answer.text)


def research_service(config: Settings | None = None) -> ResearchService | None:
    """The configured service (or its local stand-in); None when none is configured."""
    config = config or settings
    if not config.respondent_api_url or not config.respondent_api_key:
        return None
    return ResearchService(
        base_url=config.respondent_api_url, api_key=config.respondent_api_key, timeout=config.partner_timeout_seconds
    )
