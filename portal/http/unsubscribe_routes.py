"""GET and POST /unsubscribe/<token>: the one-click unsubscribe of a notification e-mail (RFC 8058, issue 38).

A mail client POSTs `List-Unsubscribe=One-Click` to the URL without a session; a person who opens the link gets a
small page with a button that POSTs the same. Both only turn off the kind the signed token names, for the account it
names; turning it off twice answers the same. A token this portal did not sign gets a 400 page and changes nothing.
"""

from __future__ import annotations

import asyncio
from html import escape

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from portal.db import session_scope
from portal.domain import notifications as rules
from portal.services import notification_settings
from portal.settings import settings

router = APIRouter(prefix=rules.UNSUBSCRIBE_PATH)
BAD_LINK = "This unsubscribe link is not valid. Sign in and choose what we send you on the notifications page."


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    brand = escape(settings.brand_name)
    html = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} | {brand}</title></head><body><main>"
        f"<h1>{escape(title)}</h1>{body}"
        f'<p><a href="{escape(settings.base_url)}{rules.PAGE_PATH}">All notification settings</a></p>'
        "</main></body></html>"
    )
    return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})


def _bad() -> HTMLResponse:
    return _page("Link not valid", f"<p>{escape(BAD_LINK)}</p>", status=400)


@router.get("/{token}")
async def unsubscribe_page(token: str) -> HTMLResponse:
    def work() -> tuple[int, str] | None:
        with session_scope() as session:
            return notification_settings.unsubscribe_target(session, token=token)

    found = await asyncio.to_thread(work)
    if found is None:
        return _bad()
    label = rules.LABELS[found[1]]
    return _page(
        "Unsubscribe",
        f"<p>Stop e-mails for: <strong>{escape(label)}</strong>?</p>"
        f'<form method="post" action="{rules.UNSUBSCRIBE_PATH}/{escape(token)}">'
        '<input type="hidden" name="List-Unsubscribe" value="One-Click">'
        '<button type="submit">Unsubscribe</button></form>',
    )


@router.post("/{token}")
async def unsubscribe(token: str) -> HTMLResponse:
    def work() -> str | None:
        with session_scope() as session:
            return notification_settings.unsubscribe(session, token=token)

    label = await asyncio.to_thread(work)
    if label is None:
        return _bad()
    return _page(
        "You are unsubscribed",
        f"<p>We will no longer e-mail you about: <strong>{escape(label)}</strong>. "
        "You can turn it back on at any time on the notifications page.</p>",
    )
