"""The local sign-in stand-in as an OpenID Connect client meets it (portal/http/local_oidc_routes.py):
the page says it is not LinkedIn or Google, a chosen person comes back as a code, the code buys one
signed ID token with the PKCE verifier and the client secret, and every wrong request is refused.
And it never runs where it may not: not on a non-loopback BASE_URL, never in place of a configured
provider, and the portal refuses to start when it is required there (LOCAL_OIDC=on)."""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import subprocess
import sys
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from fastapi import FastAPI
from joserfc import jwt
from joserfc.jwk import KeySet
from starlette.testclient import TestClient

from portal.domain.local_oidc import LocalOidcRefused, client_id
from portal.http import local_oidc_routes
from portal.services import local_oidc as provider
from portal.settings import ROOT, Settings

BASE = "http://localhost:3999"


def settings_with(monkeypatch, **env: str) -> Settings:
    for name in ("LINKEDIN_CLIENT_ID", "GOOGLE_CLIENT_ID", "LOCAL_OIDC", "LINKEDIN_METADATA_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BASE_URL", BASE)
    monkeypatch.setenv("SECRET_KEY", "local-oidc-test-secret")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings()


@pytest.fixture
def config(monkeypatch) -> Settings:
    return settings_with(monkeypatch)


@pytest.fixture
def client(config) -> TestClient:
    """The routes alone, called from this machine (the stand-in answers loopback clients only); nobody
    is staff here (the staff refusal: tests/integration/test_local_oidc_local_only.py)."""
    app = FastAPI()
    app.include_router(local_oidc_routes.router(config, is_staff_email=lambda email: False))
    return TestClient(app, base_url=BASE, client=("127.0.0.1", 50000))


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize_params(tenant: str, challenge: str, **extra: str) -> dict[str, str]:
    return {
        "client_id": client_id(tenant),
        "redirect_uri": f"{BASE}/api/auth/{tenant}/callback",
        "response_type": "code",
        "scope": "openid profile email",
        "state": "st-1",
        "nonce": "nonce-1",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        **extra,
    }


def choose(client: TestClient, tenant: str, params: dict[str, str], **form: str):
    return client.post(
        f"/local-oidc/{tenant}/authorize", data={**params, **form}, headers={"Origin": BASE}, follow_redirects=False
    )


def code_from(answer) -> str:
    assert answer.status_code == 303, answer.text
    query = parse_qs(urlsplit(answer.headers["location"]).query)
    assert query["state"] == ["st-1"]
    return query["code"][0]


def token(client: TestClient, config: Settings, tenant: str, code: str, verifier: str, **override: str):
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": f"{BASE}/api/auth/{tenant}/callback",
        "code_verifier": verifier,
        "client_id": client_id(tenant),
        "client_secret": config.local_oidc_secret(tenant),
        **override,
    }
    return client.post(f"/local-oidc/{tenant}/token", data=form)


def test_the_settings_point_both_providers_at_the_stand_in(config):
    assert config.local_oidc_active and config.oidc_configured("linkedin") and config.oidc_configured("google")
    assert config.linkedin_metadata_url == f"{BASE}/local-oidc/linkedin/.well-known/openid-configuration"
    assert config.google_client_id == client_id("google")


@pytest.mark.parametrize("tenant", ["linkedin", "google"])
def test_a_ready_made_person_signs_in_with_a_verifiable_id_token(client, config, tenant):
    meta = client.get(f"/local-oidc/{tenant}/.well-known/openid-configuration").json()
    assert meta["issuer"] == f"{BASE}/local-oidc/{tenant}" and meta["code_challenge_methods_supported"] == ["S256"]
    verifier, challenge = pkce()
    params = authorize_params(tenant, challenge)
    page = client.get(f"/local-oidc/{tenant}/authorize?{urlencode(params)}")
    name = {"linkedin": "LinkedIn", "google": "Google"}[tenant]
    assert page.status_code == 200 and f"This is not {name}." in page.text and "local" in page.text
    person = provider.READY_MADE[0]
    assert person.email in page.text

    code = code_from(choose(client, tenant, params, person="0"))
    answer = token(client, config, tenant, code, verifier)
    assert answer.status_code == 200, answer.text
    keys = KeySet.import_key_set(client.get(f"/local-oidc/{tenant}/jwks").json())
    claims = jwt.decode(answer.json()["id_token"], keys).claims
    assert claims["iss"] == meta["issuer"] and claims["aud"] == client_id(tenant) and claims["nonce"] == "nonce-1"
    assert (claims["email"], claims["given_name"], claims["email_verified"]) == (person.email, person.given_name, True)
    assert claims["sub"] == provider.subject(tenant, person.email)
    # A code is good once.
    assert token(client, config, tenant, code, verifier).json()["error"] == "invalid_grant"


def test_a_typed_person_is_checked_then_signs_in(client, config):
    verifier, challenge = pkce()
    params = authorize_params("linkedin", challenge)
    refused = choose(
        client, "linkedin", params, person="typed", given_name="", family_name="Ng", email="not-an-address"
    )
    assert refused.status_code == 200 and "code=" not in refused.headers.get("location", "")
    assert "First name is required" in refused.text and "Please enter a valid email address" in refused.text
    assert 'value="Ng"' in refused.text  # what was typed stays
    code = code_from(
        choose(client, "linkedin", params, person="typed", given_name="Ada", family_name="Ng", email="Ada@Example.org")
    )
    claims = jwt.decode(
        token(client, config, "linkedin", code, verifier).json()["id_token"],
        KeySet.import_key_set(client.get("/local-oidc/linkedin/jwks").json()),
    ).claims
    assert (claims["email"], claims["name"]) == ("ada@example.org", "Ada Ng")


def test_cancel_answers_access_denied(client):
    _, challenge = pkce()
    answer = choose(client, "google", authorize_params("google", challenge), person="cancel")
    assert answer.status_code == 303
    assert parse_qs(urlsplit(answer.headers["location"]).query)["error"] == ["access_denied"]


def test_wrong_requests_are_refused(client, config):
    verifier, challenge = pkce()
    params = authorize_params("linkedin", challenge)
    for bad in (
        {"client_id": "someone-else"},
        {"redirect_uri": "http://localhost:3999/elsewhere"},
        {"redirect_uri": "https://evil.example/api/auth/linkedin/callback"},
        {"code_challenge_method": "plain"},
        {"response_type": "token"},
    ):
        assert client.get(f"/local-oidc/linkedin/authorize?{urlencode({**params, **bad})}").status_code == 400, bad
    # The page's form only from the portal's own pages.
    cross = client.post(
        "/local-oidc/linkedin/authorize",
        data={**params, "person": "0"},
        headers={"Origin": "https://evil.example"},
        follow_redirects=False,
    )
    assert cross.status_code == 403
    code = code_from(choose(client, "linkedin", params, person="1"))
    assert token(client, config, "linkedin", code, verifier, client_secret="guess").status_code == 401
    assert token(client, config, "linkedin", code, "another-verifier-" + "x" * 40).json()["error"] == "invalid_grant"
    assert (
        token(
            client,
            config,
            "google",
            code,
            verifier,
            client_id=client_id("google"),
            client_secret=config.local_oidc_secret("google"),
        ).json()["error"]
        == "invalid_grant"
    )
    assert token(client, config, "linkedin", "forged." + code[7:], verifier).json()["error"] == "invalid_grant"
    assert client.get("/local-oidc/other/jwks").status_code == 404


def test_no_stand_in_on_a_public_address(monkeypatch):
    config = settings_with(monkeypatch, BASE_URL="https://portal.example.com")
    assert (
        not config.local_oidc_active and not config.oidc_configured("linkedin") and not config.oidc_configured("google")
    )
    with pytest.raises(LocalOidcRefused):
        local_oidc_routes.router(config)


def test_a_configured_provider_is_never_replaced(monkeypatch):
    real = "https://www.linkedin.com/oauth/.well-known/openid-configuration"
    config = settings_with(monkeypatch, LINKEDIN_CLIENT_ID="real-client", LINKEDIN_METADATA_URL=real)
    assert not config.local_oidc_active
    assert (config.linkedin_client_id, config.linkedin_metadata_url) == ("real-client", real)
    assert not config.oidc_configured("google")
    with pytest.raises(LocalOidcRefused):
        local_oidc_routes.router(config)


@pytest.mark.parametrize(
    "env",
    [
        {"BASE_URL": "https://portal.example.com"},
        {"BASE_URL": "http://localhost:3000", "GOOGLE_CLIENT_ID": "real-google"},
    ],
)
def test_the_portal_refuses_to_start_when_the_stand_in_is_required_where_it_may_not_run(env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LINKEDIN_", "GOOGLE_"))}
    run = subprocess.run(
        [sys.executable, "-c", "from portal.http.app import build_api; build_api()"],
        env={**clean, "LOCAL_OIDC": "on", "SECRET_KEY": "x", **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    assert "LocalOidcRefused" in run.stderr and "local sign-in stand-in" in run.stderr
