"""The local sign-in stand-in stays a local tool (portal/http/local_oidc_routes.py, portal/domain/local_oidc.py):
- it answers clients on this machine only: every route refuses another address with 403, whether the
  connection comes from it or a trusted proxy forwards for it (the client address is set at the ASGI
  level: no traffic leaves loopback);
- it never signs in to a staff account: a staff e-mail (or work e-mail, in any case) chosen on its page is
  refused with a message and no code, on SQLite and PostgreSQL; and a login it vouched for never
  opens nor attaches to a staff account however the login reaches it (an identity linked before, an
  e-mail that matches), while the same login through a real provider still does.
"""

from __future__ import annotations

import asyncio
import uuid
from urllib.parse import urlencode

import httpx
import pytest
from fastapi import FastAPI
from sqlmodel import select

from portal.domain.local_oidc import NOT_LOCAL, STAFF_REFUSED, client_id, is_loopback_client
from portal.domain.oidc import AUTH_ERRORS, Action, Flow
from portal.domain.staff import roles
from portal.http import local_oidc_routes
from portal.models import AuthSession, LoginIdentity
from portal.services import local_oidc as provider
from portal.services.oidc_accounts import complete_login, login_from_claims
from tests.integration.test_local_oidc import BASE, authorize_params, pkce, settings_with
from tests.support.factories import make_participant, unique_email

SIGN_IN = Flow(provider="linkedin", is_sign_in=True, return_url="/")
CONNECT = Flow(provider="linkedin", connect_existing=True)


def call(app: FastAPI, peer: str, method: str, path: str, **kwargs) -> httpx.Response:
    """One request to the ASGI app as if from `peer` (httpx's ASGI transport: nothing goes on the network)."""

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=(peer, 50123))
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
            return await client.request(method, path, **kwargs)

    return asyncio.run(go())


def stand_in(monkeypatch, is_staff_email=lambda email: False, **env: str) -> FastAPI:
    app = FastAPI()
    app.include_router(local_oidc_routes.router(settings_with(monkeypatch, **env), is_staff_email=is_staff_email))
    return app


def every_route(tenant: str = "linkedin") -> list[tuple[str, str, dict]]:
    _, challenge = pkce()
    params = authorize_params(tenant, challenge)
    return [
        ("GET", f"/local-oidc/{tenant}/.well-known/openid-configuration", {}),
        ("GET", f"/local-oidc/{tenant}/jwks", {}),
        ("GET", f"/local-oidc/{tenant}/authorize?{urlencode(params)}", {}),
        ("POST", f"/local-oidc/{tenant}/authorize", {"data": {**params, "person": "0"}, "headers": {"Origin": BASE}}),
        ("POST", f"/local-oidc/{tenant}/token", {"data": {"grant_type": "authorization_code", "code": "x"}}),
    ]


@pytest.mark.parametrize("peer", ["10.0.0.5", "192.168.1.20", "2001:db8::5", "::ffff:10.0.0.5", "testclient", ""])
def test_a_client_on_another_machine_is_refused_on_every_route(monkeypatch, peer):
    app = stand_in(monkeypatch)
    for method, path, kwargs in every_route():
        answer = call(app, peer, method, path, **kwargs)
        assert (answer.status_code, answer.json()) == (403, {"detail": NOT_LOCAL}), (method, path)
        assert "code=" not in answer.headers.get("location", "")


@pytest.mark.parametrize("peer", ["127.0.0.1", "127.0.0.2", "::1"])
def test_a_client_on_this_machine_is_answered(monkeypatch, peer):
    app = stand_in(monkeypatch)
    statuses = [call(app, peer, method, path, **kwargs).status_code for method, path, kwargs in every_route()]
    assert statuses == [
        200,
        200,
        200,
        303,
        401,
    ]  # the token request without client credentials: the protocol refuses it, not the door


def test_a_client_forwarded_by_a_trusted_proxy_is_judged_by_its_own_address(monkeypatch):
    app = stand_in(monkeypatch, TRUSTED_PROXIES="127.0.0.1,10.0.0.1")
    discovery = "/local-oidc/google/.well-known/openid-configuration"
    # A proxy on this machine forwarding for someone elsewhere: refused.
    assert call(app, "127.0.0.1", "GET", discovery, headers={"X-Forwarded-For": "10.0.0.5"}).status_code == 403
    # A proxy on another machine, whatever it says the client is: refused.
    assert call(app, "10.0.0.1", "GET", discovery, headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 403
    # A spoofed header from an untrusted client changes nothing.
    assert call(app, "10.0.0.5", "GET", discovery, headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 403
    assert call(app, "127.0.0.1", "GET", discovery, headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 200


def test_the_loopback_rule():
    assert is_loopback_client("127.0.0.1") and is_loopback_client("::1", "127.9.9.9")
    assert not is_loopback_client() and not is_loopback_client("127.0.0.1", "10.0.0.5")
    assert not is_loopback_client("localhost") and not is_loopback_client("0.0.0.0")


# --- never a staff account ----------------------------------------------------------------------------


def choose_typed(app: FastAPI, email: str) -> httpx.Response:
    _, challenge = pkce()
    params = authorize_params("linkedin", challenge)
    return call(
        app,
        "127.0.0.1",
        "POST",
        "/local-oidc/linkedin/authorize",
        headers={"Origin": BASE},
        data={**params, "person": "typed", "given_name": "Sam", "family_name": "Staff", "email": email},
    )


@pytest.mark.parametrize("role", roles.ROLES)
def test_the_stand_in_refuses_a_staff_email_with_a_message_and_no_code(monkeypatch, session, role):
    staff = make_participant(session)
    staff.staff_role = role
    staff.work_email = unique_email("work")
    session.add(staff)
    session.commit()
    app = stand_in(monkeypatch, is_staff_email=lambda email: provider.is_staff_email(session, email))
    for email in (staff.email, staff.email.upper(), staff.work_email):
        refused = choose_typed(app, email)
        assert refused.status_code == 200 and "location" not in refused.headers  # the form again, no code
        assert STAFF_REFUSED.replace("'", "&#x27;") in refused.text or STAFF_REFUSED in refused.text
        assert f'value="{email}"' in refused.text  # the form again, with what was typed
    # A participant's e-mail, and a new person's, get their code.
    participant = make_participant(session)
    session.commit()
    for email in (participant.email, unique_email("new")):
        answer = choose_typed(app, email)
        assert answer.status_code == 303 and "code=" in answer.headers["location"]


def test_a_removed_staff_account_does_not_block_its_old_email(session):
    staff = make_participant(session)
    staff.staff_role = roles.SUPER_ADMIN
    session.add(staff)
    session.commit()
    assert provider.is_staff_email(session, staff.email)
    from portal.models._base import utcnow

    staff.removed_at = utcnow()
    session.add(staff)
    session.commit()
    assert not provider.is_staff_email(session, staff.email)


def _login(sub: str, email: str):
    return login_from_claims(
        "linkedin", {"sub": sub, "email": email, "email_verified": True, "given_name": "Sam", "family_name": "Staff"}
    )


@pytest.mark.parametrize("how", ["linked identity", "matching e-mail, connect"])
def test_a_login_the_stand_in_vouched_for_never_opens_a_staff_account(session, how):
    staff = make_participant(session)
    staff.staff_role = roles.TEAM_MANAGER
    session.add(staff)
    sub = f"li-{uuid.uuid4().hex[:8]}"
    if how == "linked identity":  # e.g. connected while it was a participant's, or its e-mail changed since
        session.add(LoginIdentity(account_id=staff.id, provider="linkedin", subject=sub))
        login, flow = _login(sub, unique_email("other")), SIGN_IN
    else:
        login, flow = _login(sub, staff.email), CONNECT
    session.commit()
    sessions_before = len(session.exec(select(AuthSession).where(AuthSession.account_id == staff.id)).all())

    refused = complete_login(session=session, login=login, flow=flow, staff_allowed=False)
    session.commit()
    assert refused.token is None and refused.account_id is None
    assert "authError=staff" in refused.redirect or flow.connect_existing
    assert AUTH_ERRORS["staff"].startswith("Staff accounts sign in with their e-mail and password")
    assert len(session.exec(select(AuthSession).where(AuthSession.account_id == staff.id)).all()) == sessions_before
    if how != "linked identity":
        assert session.exec(select(LoginIdentity).where(LoginIdentity.subject == sub)).first() is None

    # The same login through a real provider (the stand-in not running) still does what it did.
    allowed = complete_login(session=session, login=login, flow=flow)
    assert allowed.action in (Action.SIGN_IN, Action.ATTACH) and allowed.account_id == staff.id and allowed.token


def test_the_local_client_ids_are_the_stand_ins():
    assert client_id("linkedin") == "local-linkedin-client"
