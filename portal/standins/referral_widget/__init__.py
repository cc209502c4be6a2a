"""The referral provider's widget, as a local stand-in (issue 40, item 3): on a loopback BASE_URL the demo
programme's widget is this page, served by the portal at /local-referral/widget, so /referral shows its iframe as the
spec says. It says what it is; it keeps nothing and sends nothing."""

from __future__ import annotations

import html

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from portal.domain.local_oidc import is_loopback
from portal.settings import Settings

PATH = "/local-referral/widget"
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Referral programme (local stand-in)</title>
<style>
body {{ font: 15px/1.5 system-ui, sans-serif; margin: 0; padding: 20px; color: #1c2024; background: #f9f9fb; }}
h1 {{ font-size: 18px; margin: 0 0 8px; }} p {{ margin: 0 0 12px; color: #60646c; }}
ol {{ margin: 0 0 12px; padding-left: 20px; }}
.note {{ font-size: 13px; border-top: 1px solid #e0e1e6; padding-top: 10px; }}
</style></head>
<body><main>
<h1 id="widget-title">Refer a colleague to {brand}</h1>
<p>Share your referral link from the page around this one. For each colleague who signs up with it and is paid for
their first test, you earn a $20 reward.</p>
<ol><li>Share your link</li><li>They sign up and get invites</li><li>You get your reward</li></ol>
<p class="note">This is the portal's local stand-in for the referral provider's widget (a local run has no provider).
A programme with its own widget address shows that widget here instead.</p>
</main></body></html>
"""


def widget_url(base_url: str) -> str:
    """The demo programme's widget on a local run ('' on any other address)."""
    return f"{base_url.rstrip('/')}{PATH}" if is_loopback(base_url) else ""


def router(config: Settings) -> APIRouter:
    api = APIRouter()
    page = PAGE.format(brand=html.escape(config.brand_name))

    @api.get(PATH, include_in_schema=False)
    async def widget() -> HTMLResponse:
        # Framed by the portal's own /referral page only (the rest of the portal may not be framed at all).
        return HTMLResponse(
            page,
            headers={
                "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'",
                "X-Frame-Options": "SAMEORIGIN",
                "Cache-Control": "no-store",
            },
        )

    return api
