"""The stand-in's Twilio API (as much of Messages as twilio-python needs: create, list, fetch; Basic auth with
the stand-in's account SID and auth token; errors in Twilio's shape) and its pages: the texts it "sent"
(/local-sms, where a newcomer reads a confirmation code) and a phone's reply (STOP, START), posted to the portal
as Twilio posts an incoming text, signed with the SDK's RequestValidator."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
import html
import logging
from datetime import UTC, datetime
from urllib.parse import parse_qsl, urlencode

import phonenumbers
import requests
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from twilio.request_validator import RequestValidator

from portal.domain import sms as rules
from portal.standins.twilio.store import Store, Text, as_json

log = logging.getLogger(__name__)
MAX_FORM_BYTES = 8 * 1024
NO_STORE = {"Cache-Control": "no-store"}


def error(status: int, code: int, message: str) -> JSONResponse:
    return JSONResponse(
        {"code": code, "message": message, "more_info": f"https://www.twilio.com/docs/errors/{code}", "status": status},
        status_code=status,
    )


async def form_of(request: Request) -> dict[str, str] | None:
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return None
    try:
        return dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
    except UnicodeDecodeError:
        return None


def valid_number(value: str) -> bool:
    try:
        return value.startswith("+") and phonenumbers.is_valid_number(phonenumbers.parse(value, None))
    except phonenumbers.NumberParseException:
        return False


def api_router(store: Store, prefix: str) -> APIRouter:
    api = APIRouter(prefix=f"{prefix}/2010-04-01/Accounts/{{account_sid}}")
    config = store.config

    def refused(request: Request, account_sid: str) -> JSONResponse | None:
        given = request.headers.get("authorization", "")
        try:
            user, _, password = base64.b64decode(given.removeprefix("Basic "), validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            user, password = "", ""
        good = hmac.compare_digest(user.encode(), config.account_sid.encode()) and hmac.compare_digest(
            password.encode(), config.auth_token.encode()
        )
        if not good or account_sid != config.account_sid:
            return error(401, 20003, "Authentication Error - invalid username")
        return None

    @api.post("/Messages.json")
    async def create_message(request: Request, account_sid: str) -> JSONResponse:
        if answer := refused(request, account_sid):
            return answer
        form = await form_of(request)
        if form is None:
            return error(400, 21619, "A text message body or media urls must be specified.")
        to, body = form.get("To", ""), form.get("Body", "")
        sender = form.get("From") or form.get("MessagingServiceSid", "")
        if not valid_number(to):
            return error(400, 21211, f"The 'To' number {to} is not a valid phone number.")
        if not sender:
            return error(400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message")
        if not body.strip() or len(body) > rules.BODY_MAX:
            return error(400, 21617, "The concatenated message body exceeds the 1600 character limit.")
        if await asyncio.to_thread(store.is_stopped, to):
            return error(400, 21610, "Attempt to send to unsubscribed recipient")
        text = await asyncio.to_thread(
            store.add,
            direction="outbound-api",
            to=to,
            sender=config.sender if sender.startswith("MG") else sender,
            body=body,
        )
        return JSONResponse(as_json(text, config.account_sid), status_code=201)

    @api.get("/Messages.json")
    async def list_messages(request: Request, account_sid: str) -> JSONResponse:
        if answer := refused(request, account_sid):
            return answer
        to, sender = request.query_params.get("To"), request.query_params.get("From")
        try:
            size = int(request.query_params.get("PageSize", "50"))
        except ValueError:
            size = 50
        texts = await asyncio.to_thread(store.texts, to=to, sender=sender, limit=size)
        uri = f"/2010-04-01/Accounts/{account_sid}/Messages.json"
        return JSONResponse(
            {
                "messages": [as_json(t, config.account_sid) for t in texts],
                "first_page_uri": uri,
                "next_page_uri": None,
                "previous_page_uri": None,
                "page": 0,
                "page_size": size,
                "uri": uri,
                "end": max(len(texts) - 1, 0),
                "start": 0,
            }
        )

    @api.get("/Messages/{sid}.json")
    async def fetch_message(request: Request, account_sid: str, sid: str) -> JSONResponse:
        if answer := refused(request, account_sid):
            return answer
        text = await asyncio.to_thread(store.get, sid)
        if text is None:
            return error(404, 20404, f"The requested resource /Messages/{sid}.json was not found")
        return JSONResponse(as_json(text, config.account_sid))

    return api


STYLE = """
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f5f7;
  color: #1c2024; }
main { max-width: 720px; margin: 32px auto; padding: 0 16px; }
.card { background: #fff; border: 1px solid #dfe1e6; border-radius: 12px; padding: 24px; margin-bottom: 16px; }
.notice { background: #fff7d6; border: 1px solid #e2c044; border-radius: 8px; padding: 12px 14px; margin: 0 0 16px;
  color: #473600; }
h1 { font-size: 24px; margin: 0 0 8px; } h2 { font-size: 18px; margin: 0 0 12px; } p { margin: 0 0 12px; }
.texts { list-style: none; margin: 0; padding: 0; } .texts li { border-top: 1px solid #dfe1e6; padding: 12px 0 0; }
.texts p { margin: 0 0 8px; overflow-wrap: break-word; }
a { color: #2a4fc4; } a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #3e63dd;
  outline-offset: 2px; }
label { display: block; font-weight: 600; margin: 8px 0 4px; }
input { font: inherit; padding: 8px 10px; border: 1px solid #b9bbc6; border-radius: 8px; width: 100%;
  box-sizing: border-box; }
button { font: inherit; font-weight: 600; margin-top: 12px; padding: 10px 16px; border-radius: 8px;
  border: 1px solid #3e63dd; background: #3e63dd; color: #fff; cursor: pointer; }
"""


def page(title: str, body: str, status: int = 200) -> HTMLResponse:
    text = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title><style>{STYLE}</style></head><body><main>
<p class="notice" role="note"><strong>This is not Twilio.</strong> It is a local stand-in that only runs on this
computer: no text leaves it.</p>
{body}</main></body></html>"""
    return HTMLResponse(text, status_code=status, headers=NO_STORE)


def _item(text: Text) -> str:
    when = datetime.fromtimestamp(text.created, UTC).strftime("%Y-%m-%d %H:%M:%S")
    way = f"To {text.to_number}" if text.direction != "inbound" else f"From {text.from_number} (a reply)"
    return (
        f'<li data-sid="{html.escape(text.sid)}" data-to="{html.escape(text.to_number)}">'
        f'<p class="text-body">{html.escape(text.body)}</p><p>{html.escape(way)}, {when} UTC</p></li>'
    )


def post_incoming(store: Store, *, sender: str, body: str) -> int:
    """Post a phone's text to the portal as Twilio does (form-encoded, X-Twilio-Signature); the HTTP status."""
    config = store.config
    text = store.add(direction="inbound", to=config.sender, sender=sender, body=body)
    params = {
        "MessageSid": text.sid,
        "SmsSid": text.sid,
        "AccountSid": config.account_sid,
        "From": sender,
        "To": config.sender,
        "Body": body,
        "NumMedia": "0",
        "NumSegments": "1",
    }
    word = rules.keyword(body)
    if word is not None:  # Twilio's own opt-out handling: it refuses to text a number that replied STOP
        store.set_stopped(sender, word == "stop")
    signature = RequestValidator(config.auth_token).compute_signature(config.webhook_url, params)
    try:
        answer = requests.post(config.webhook_url, data=params, headers={"X-Twilio-Signature": signature}, timeout=10)
    except requests.RequestException as err:
        log.warning("the SMS stand-in could not post an incoming text: %s", err)
        return 0
    return answer.status_code


def pages_router(store: Store, prefix: str) -> APIRouter:
    pages = APIRouter(prefix=prefix)

    @pages.get("")
    async def texts_page(request: Request) -> HTMLResponse:
        number = request.query_params.get("to", "")[:20]
        texts = await asyncio.to_thread(store.texts, number=number or None, limit=100)
        items = "".join(_item(t) for t in texts) or "<li><p>No texts yet.</p></li>"
        shown = f" with {html.escape(number)}" if number else ""
        return page(
            "Texts | Local SMS",
            f"""<div class="card"><h1>Texts{shown}</h1><p>What the portal texted, and the replies, newest first.</p>
<ul class="texts" id="local-sms-texts">{items}</ul></div>
<div class="card"><h2>Reply from a phone</h2>
<p>Reply STOP to stop the portal's texts to that number, START to allow them again.</p>
<form method="post" action="{prefix}/reply">
<label for="reply-from">From number</label><input id="reply-from" name="from" value="{html.escape(number)}"
 autocomplete="tel">
<label for="reply-body">Text</label><input id="reply-body" name="body" value="STOP">
<button type="submit">Send reply</button></form></div>""",
        )

    @pages.post("/reply")
    async def reply(request: Request) -> Response:
        form = await form_of(request)
        if form is None or not valid_number(form.get("from", "")) or not form.get("body", "").strip():
            return page("Reply not sent | Local SMS", "<div class='card'><h1>Enter a number and a text</h1></div>", 400)
        await asyncio.to_thread(post_incoming, store, sender=form["from"], body=form["body"][:1600])
        return RedirectResponse(f"{prefix}?{urlencode({'to': form['from']})}", status_code=303)

    return pages
