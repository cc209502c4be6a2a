"""The stand-in's pages, plain HTML: the inbox of the link e-mails it "sent" (/local-payouts/inbox), and a
reward's page (/local-payouts/rewards/{id}, the e-mailed link) where the recipient chooses a gift card, a
prepaid VISA card, PayPal or a charity donation, as on Tremendous's own page. Each says it is a stand-in."""

from __future__ import annotations

import asyncio
import html
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from portal.standins.tremendous.store import CHOICES, SUCCEEDED, InboxEmail, Store

NO_STORE = {"Cache-Control": "no-store"}
MAX_FORM_BYTES = 4 * 1024

STYLE = """
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f5f7;
  color: #1c2024; }
main { max-width: 720px; margin: 32px auto; padding: 0 16px; }
.card { background: #fff; border: 1px solid #dfe1e6; border-radius: 12px; padding: 24px; margin-bottom: 16px; }
.notice { background: #fff7d6; border: 1px solid #e2c044; border-radius: 8px; padding: 12px 14px; margin: 0 0 16px;
  color: #473600; }
h1 { font-size: 24px; margin: 0 0 8px; } h2 { font-size: 18px; margin: 0 0 12px; } p { margin: 0 0 12px; }
.inbox { list-style: none; margin: 0; padding: 0; } .inbox li { border-top: 1px solid #dfe1e6; padding: 12px 0 0; }
.inbox p { margin: 0 0 8px; overflow-wrap: break-word; }
a { color: #2a4fc4; } a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #3e63dd;
  outline-offset: 2px; }
fieldset { border: 0; padding: 0; margin: 0 0 16px; } legend { font-weight: 600; margin-bottom: 8px; }
label { display: block; padding: 6px 0; }
button { font: inherit; font-weight: 600; padding: 10px 16px; border-radius: 8px; border: 1px solid #3e63dd;
  background: #3e63dd; color: #fff; cursor: pointer; }
.bad { color: #ce2c31; } .good { color: #18794e; }
"""


def page(title: str, body: str, status: int = 200) -> HTMLResponse:
    text = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="Local stand-in of the Tremendous rewards service, for trying payouts.">
<title>{html.escape(title)}</title><style>{STYLE}</style></head><body><main>
<p class="notice" role="note"><strong>This is not Tremendous.</strong> It is a local stand-in that only runs on this
computer: no money moves and no e-mail leaves it.</p>
{body}</main></body></html>"""
    return HTMLResponse(text, status_code=status, headers=NO_STORE)


def _item(email: InboxEmail) -> str:
    outcome = (
        '<span class="good">Delivered</span>'
        if email.outcome == "delivered"
        else f'<span class="bad">Not delivered: {html.escape(email.outcome)}</span>'
    )
    return (
        f"<li><p><strong>{html.escape(email.subject)}</strong></p>"
        f"<p>To {html.escape(email.recipient)}, {email.sent_at:%Y-%m-%d %H:%M:%S} UTC. {outcome}</p>"
        f'<p><a href="{html.escape(email.link)}" id="local-payouts-link-{html.escape(email.reward_id)}">'
        "Open the reward</a></p></li>"
    )


def _inbox(emails: list[InboxEmail]) -> HTMLResponse:
    listing = (
        f'<ol id="local-payouts-inbox" class="inbox">{"".join(_item(e) for e in emails)}</ol>'
        if emails
        else "<p>No reward e-mail was sent yet.</p>"
    )
    return page(
        "Reward e-mails (local payout stand-in)",
        f'<div class="card"><h1>Reward e-mails</h1><p>Every reward link the stand-in e-mailed, newest first.</p>'
        f"{listing}</div>",
    )


def _reward(reward: dict[str, Any], status: int = 200) -> HTMLResponse:
    amount = f"{reward['amount']:.2f} {html.escape(reward['currency'])}"
    heading = f"<h1>Your reward: {amount}</h1><p>For {html.escape(reward['name'] or reward['email'])}.</p>"
    if reward["status"] != SUCCEEDED:
        body = f'<div class="card">{heading}<p>This reward has not been delivered (its delivery is '
        body += f"{html.escape(reward['status'].lower())}).</p></div>"
        return page("Your reward (local payout stand-in)", body, status)
    if reward["choice"]:
        chosen = CHOICES.get(reward["choice"], reward["choice"])
        body = f'<div class="card">{heading}<p id="local-payouts-choice">You chose: <strong>'
        body += f"{html.escape(chosen)}</strong>.</p></div>"
        return page("Your reward (local payout stand-in)", body, status)
    options = "".join(
        f'<label><input type="radio" name="choice" value="{key}" required> {html.escape(label)}</label>'
        for key, label in CHOICES.items()
    )
    body = (
        f'<div class="card">{heading}<form method="post"><fieldset><legend>How would you like to receive it?'
        f'</legend>{options}</fieldset><button type="submit" id="local-payouts-redeem">Redeem</button></form></div>'
    )
    return page("Your reward (local payout stand-in)", body, status)


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    return not origin or urlsplit(origin).netloc == request.headers.get("host", "")


def pages_router(store: Store, prefix: str) -> APIRouter:
    api = APIRouter(prefix=prefix)

    @api.get("/inbox")
    async def inbox() -> Response:
        return _inbox(await asyncio.to_thread(store.inbox))

    @api.get("/rewards/{reward_id}")
    async def reward_page(reward_id: str) -> Response:
        reward = await asyncio.to_thread(store.reward_page, reward_id)
        if reward is None:
            return page(
                "No such reward (local payout stand-in)", '<div class="card"><h1>No such reward</h1></div>', 404
            )
        return _reward(reward)

    @api.post("/rewards/{reward_id}")
    async def redeem(reward_id: str, request: Request) -> Response:
        if not _same_origin(request) or int(request.headers.get("content-length") or 0) > MAX_FORM_BYTES:
            return page("Refused (local payout stand-in)", '<div class="card"><h1>Refused</h1></div>', 403)
        choice = (await request.form()).get("choice")
        reward = await asyncio.to_thread(store.reward_page, reward_id)
        if reward is None:
            return page(
                "No such reward (local payout stand-in)", '<div class="card"><h1>No such reward</h1></div>', 404
            )
        if not isinstance(choice, str) or not await asyncio.to_thread(store.choose, reward_id, choice):
            return _reward(reward, 400)
        return RedirectResponse(str(request.url), status_code=303)

    return api
