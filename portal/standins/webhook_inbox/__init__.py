"""A customer's webhook receiver, as a local stand-in (issue 39): on a loopback BASE_URL the portal serves one at
/local-webhooks/inbox, so a newcomer running `make run` can subscribe an API key to it and watch signed events
arrive at /local-webhooks, verified as a customer's receiver verifies them (the `standardwebhooks` package, with the
secret of the subscription that names this address) and counted once per `webhook-id`.

It keeps the last events in memory (a restart empties it) and shows ids, types, times and whether the signature
held; it is not mounted on any other address."""

from __future__ import annotations

import html
import json
import threading
from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session, select
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from portal import db
from portal.models import WebhookSubscription
from portal.services.webhooks import unseal
from portal.settings import Settings

INBOX = "/local-webhooks/inbox"
PAGE = "/local-webhooks"
KEEP = 200


class Inbox:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def add(self, event_id: str, entry: dict[str, Any]) -> None:
        with self.lock:
            if event_id in self.events:
                self.events[event_id]["deliveries"] += 1
                return
            self.events[event_id] = {**entry, "deliveries": 1}
            while len(self.events) > KEEP:
                self.events.popitem(last=False)

    def newest_first(self) -> list[tuple[str, dict[str, Any]]]:
        with self.lock:
            return list(reversed(self.events.items()))


def _secrets(session: Session, url: str) -> list[str]:
    rows = session.exec(
        select(WebhookSubscription.secret).where(
            WebhookSubscription.url == url,
            WebhookSubscription.disabled_at.is_(None),  # type: ignore[union-attr]
        )
    ).all()
    return [s for s in (unseal(sealed) for sealed in rows) if s]


def router(settings: Settings) -> APIRouter:
    inbox = Inbox()
    own_url = f"{settings.base_url.rstrip('/')}{INBOX}"
    api = APIRouter(include_in_schema=False)

    @api.post(INBOX)
    async def receive(request: Request) -> Response:
        body = (await request.body())[: 256 * 1024]
        headers = {k.lower(): v for k, v in request.headers.items()}
        event_id = headers.get("webhook-id", "")[:64]
        if not event_id:
            return Response(status_code=400)
        secrets = await db.run(_secrets, own_url)
        verified = False
        for secret in secrets:
            try:
                Webhook(secret).verify(body, headers)
            except WebhookVerificationError:
                continue
            verified = True
            break
        try:
            event = json.loads(body)
        except ValueError:
            event = {}
        inbox.add(
            event_id,
            {
                "type": str(event.get("type", ""))[:64] if isinstance(event, dict) else "",
                "received": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
                "verified": verified,
                "data": json.dumps(event.get("data", {}) if isinstance(event, dict) else {})[:500],
            },
        )
        return Response(status_code=204 if verified else 401)

    @api.get(PAGE, response_class=HTMLResponse)
    async def page() -> HTMLResponse:
        rows = "".join(
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>".format(
                html.escape(event_id),
                html.escape(entry["type"]),
                html.escape(entry["received"]),
                "Yes" if entry["verified"] else "No",
                entry["deliveries"],
                html.escape(entry["data"]),
            )
            for event_id, entry in inbox.newest_first()
        )
        return HTMLResponse(
            "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            "<title>Webhook inbox (local stand-in)</title><style>"
            "body{font:15px/1.5 system-ui,sans-serif;margin:0;padding:20px;color:#1c2024}"
            "table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e0e1e6;padding:6px;"
            "text-align:left;vertical-align:top}code{font-size:13px;word-break:break-all}</style></head><body><main>"
            "<h1>Webhook inbox (local stand-in)</h1>"
            f"<p>Subscribe an API key to <code>{html.escape(own_url)}</code> "
            "(<code>POST /api/v1/webhooks/subscriptions</code>); the events it receives are listed here, newest "
            "first, each once per <code>webhook-id</code>, with whether its Standard Webhooks signature held.</p>"
            "<table><thead><tr><th>webhook-id</th><th>Event</th><th>Received</th><th>Signature valid</th>"
            f"<th>Deliveries</th><th>Data</th></tr></thead><tbody>{rows}</tbody></table></main></body></html>"
        )

    return api
