"""The local sign-in stand-in's HTTP side, at /local-oidc/{linkedin|google}/...: discovery, keys,
the page where a person is chosen (it says plainly that it is not LinkedIn or Google), and the token
endpoint. The protocol is in portal/services/local_oidc.py; when it runs, in portal/domain/local_oidc.py.

`router()` refuses to build where the stand-in may not run (a non-loopback BASE_URL, or a configured
provider): the routes then do not exist at all. Where they exist they answer clients on this machine
only (403 otherwise, the connection's peer and the client behind a trusted proxy both loopback), and
the person chosen is refused when the e-mail is a staff account's (the page says so; no code is issued).
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from portal.db import session_scope
from portal.domain import local_oidc as rules
from portal.http.client import client_ip, is_same_origin
from portal.services import local_oidc as provider
from portal.settings import Settings, settings

NO_STORE = {"Cache-Control": "no-store"}
MAX_FORM_BYTES = 16 * 1024

_STYLE = """
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f5f7;
  color: #1c2024; }
main { max-width: 560px; margin: 32px auto; padding: 0 16px; }
.card { background: #fff; border: 1px solid #dfe1e6; border-radius: 12px; padding: 24px; margin-bottom: 16px; }
.notice { background: #fff7d6; border: 1px solid #e2c044; border-radius: 8px; padding: 12px 14px; margin: 0 0 16px;
  color: #473600; }
h1 { font-size: 24px; margin: 0 0 8px; } h2 { font-size: 18px; margin: 0 0 12px; }
p { margin: 0 0 12px; } label { display: block; font-weight: 600; margin: 12px 0 4px; }
input[type=text], input[type=email] { width: 100%; box-sizing: border-box; padding: 10px 12px; font: inherit;
  border: 1px solid #b9bbc6; border-radius: 8px; }
button { font: inherit; font-weight: 600; padding: 10px 16px; border-radius: 8px; border: 1px solid #3e63dd;
  background: #3e63dd; color: #fff; cursor: pointer; }
button.person { display: block; width: 100%; text-align: left; background: #fff; color: #1c2024; border-color: #dfe1e6;
  margin-bottom: 8px; font-weight: 400; }
button.person strong { display: block; } button.secondary { background: #fff; color: #3e63dd; }
button:focus-visible, input:focus-visible { outline: 3px solid #3e63dd; outline-offset: 2px; }
.error { color: #ce2c31; font-size: 14px; margin: 4px 0 0; }
.actions { margin-top: 16px; display: flex; gap: 8px; flex-wrap: wrap; }
"""


def _hidden(request: dict[str, str]) -> str:
    return "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">' for k, v in request.items()
    )


def _field(name: str, label: str, kind: str, value: str, error: str | None, autocomplete: str) -> str:
    described = f' aria-describedby="{name}-error" aria-invalid="true"' if error else ""
    message = f'<p class="error" id="{name}-error">{html.escape(error)}</p>' if error else ""
    return (
        f'<label for="{name}">{label}</label>'
        f'<input id="{name}" name="{name}" type="{kind}" value="{html.escape(value)}" '
        f'autocomplete="{autocomplete}" required{described}>{message}'
    )


def _page(
    tenant: str,
    request: dict[str, str],
    typed: dict[str, str] | None = None,
    problems: dict[str, str] | None = None,
    status: int = 200,
) -> HTMLResponse:
    name = rules.LABELS[tenant]
    typed, problems = typed or {}, problems or {}
    people = "".join(
        f'<button class="person" type="submit" name="person" value="{i}" id="local-oidc-person-{i}">'
        f"<strong>{html.escape(p.label)}</strong>{html.escape(p.email)}</button>"
        for i, p in enumerate(provider.READY_MADE)
    )
    body = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="Local sign-in stand-in for trying the portal on this computer.">
<title>Local sign-in stand-in for {name}</title><style>{_STYLE}</style></head><body><main>
<div class="card"><p class="notice" id="local-oidc-notice"
role="note"><strong>This is not {name}.</strong> It is a local
stand-in that only runs on this computer, so the portal's '{name}' buttons can be tried without a real {name} account.
Nothing is sent to {name}.</p>
<h1>Sign in with {name} (local stand-in)</h1>
<p>Choose who signs in. The portal receives this name and e-mail as if {name} had confirmed them.</p></div>
<div class="card"><h2>Ready-made people</h2>
<form method="post">{_hidden(request)}{people}</form></div>
<div class="card"><h2>Someone else</h2><form method="post" novalidate>{_hidden(request)}
{_field("given_name", "First name", "text", typed.get("given_name", ""), problems.get("given_name"), "given-name")}
{_field("family_name", "Last name", "text", typed.get("family_name", ""), problems.get("family_name"), "family-name")}
{_field("email", "E-mail", "email", typed.get("email", ""), problems.get("email"), "email")}
<div class="actions"><button type="submit" name="person" value="typed" id="local-oidc-continue">Continue</button>
<button class="secondary" type="submit" name="person" value="cancel" id="local-oidc-cancel"
formnovalidate>Cancel</button></div>
</form></div></main></body></html>"""
    return HTMLResponse(body, status_code=status, headers=NO_STORE)


def _refused(error: provider.ProtocolError) -> Response:
    return JSONResponse(
        {"error": error.error, "error_description": error.description}, status_code=error.status, headers=NO_STORE
    )


def _staff_email(email: str) -> bool:
    with session_scope() as session:
        return provider.is_staff_email(session, email)


def _tenant(tenant: str) -> str | None:
    return tenant if tenant in rules.TENANTS else None


def router(config: Settings = settings, is_staff_email: Callable[[str], bool] = _staff_email) -> APIRouter:
    """The stand-in's routes. Refuses (LocalOidcRefused) where the stand-in may not run.
    `is_staff_email`: whether an e-mail is a staff account's (the app's database by default)."""
    if not config.local_oidc_active:  # Settings applied the rule: off, another address, or a configured provider
        raise rules.LocalOidcRefused(
            "The local sign-in stand-in does not run here (LOCAL_OIDC, BASE_URL or a configured provider)."
        )
    reason = rules.refusal(config.base_url, ())  # the address once more, in case settings were built by hand
    if reason is not None:
        raise rules.LocalOidcRefused(reason)

    def local_only(request: Request) -> None:
        """Every route: the request comes from this machine (the peer, and the client a trusted proxy names)."""
        peer = request.client.host if request.client else ""
        if not rules.is_loopback_client(peer, client_ip(request, config.trusted_proxies)):
            raise HTTPException(status_code=403, detail=rules.NOT_LOCAL)

    api = APIRouter(prefix=rules.PREFIX, dependencies=[Depends(local_only)])

    @api.get("/{tenant}/.well-known/openid-configuration")
    async def discovery(tenant: str) -> Response:
        if not _tenant(tenant):
            return JSONResponse({"error": "not_found"}, status_code=404)
        return JSONResponse(provider.metadata(config, tenant), headers=NO_STORE)

    @api.get("/{tenant}/jwks")
    async def keys(tenant: str) -> Response:
        if not _tenant(tenant):
            return JSONResponse({"error": "not_found"}, status_code=404)
        return JSONResponse(provider.jwks(), headers=NO_STORE)

    @api.get("/{tenant}/authorize")
    async def authorize_page(tenant: str, request: Request) -> Response:
        if not _tenant(tenant):
            return JSONResponse({"error": "not_found"}, status_code=404)
        try:
            kept = provider.check_authorize(config, tenant, dict(request.query_params))
        except provider.ProtocolError as error:
            return _refused(error)
        return _page(tenant, kept)

    @api.post("/{tenant}/authorize")
    async def authorize(tenant: str, request: Request) -> Response:
        if not _tenant(tenant) or not is_same_origin(request):
            return JSONResponse({"error": "forbidden"}, status_code=403)
        if int(request.headers.get("content-length") or 0) > MAX_FORM_BYTES:
            return JSONResponse({"error": "too_large"}, status_code=413)
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        try:
            kept = provider.check_authorize(config, tenant, form)
        except provider.ProtocolError as error:
            return _refused(error)
        choice = form.get("person", "")
        answer = {"state": kept["state"]} if "state" in kept else {}
        if choice == "cancel":
            answer.update(error="access_denied", error_description="The person cancelled.")
            return RedirectResponse(f"{kept['redirect_uri']}?{urlencode(answer)}", status_code=303)
        if choice == "typed":
            typed = {k: form.get(k, "")[:200] for k in ("given_name", "family_name", "email")}
            problems = provider.person_problems(**typed)
            if problems:
                return _page(tenant, kept, typed, problems)  # the form again, with its messages
            person = provider.Person(**typed)
        elif choice.isdigit() and int(choice) < len(provider.READY_MADE):
            person = provider.READY_MADE[int(choice)]
        else:
            return _page(tenant, kept, status=400)
        if await asyncio.to_thread(is_staff_email, person.email):
            return _page(
                tenant,
                kept,
                {"given_name": person.given_name, "family_name": person.family_name, "email": person.email},
                {"email": rules.STAFF_REFUSED},
            )  # the form again, saying why (as for any refused person)
        answer["code"] = provider.issue_code(config, tenant, kept, person)
        return RedirectResponse(f"{kept['redirect_uri']}?{urlencode(answer)}", status_code=303)

    @api.post("/{tenant}/token")
    async def token(tenant: str, request: Request) -> Response:
        if not _tenant(tenant):
            return JSONResponse({"error": "not_found"}, status_code=404)
        if int(request.headers.get("content-length") or 0) > MAX_FORM_BYTES:
            return JSONResponse({"error": "too_large"}, status_code=413)
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        try:
            return JSONResponse(
                provider.exchange(config, tenant, form, request.headers.get("authorization", "")), headers=NO_STORE
            )
        except provider.ProtocolError as error:
            return _refused(error)

    return api
