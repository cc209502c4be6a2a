"""The HTTP endpoints as any client can call them: bad input gets a clear answer and changes nothing."""

from __future__ import annotations

import httpx
import pytest
from sqlmodel import func, select

from portal.models import AuthSession
from tests.e2e.helpers import DEMO_EMAIL, DEMO_PASSWORD


@pytest.fixture
def client(app_server):
    with httpx.Client(base_url=app_server.url, timeout=20) as c:
        yield c


def _sessions(db) -> int:
    db.expire_all()
    return db.exec(select(func.count()).select_from(AuthSession)).one()


@pytest.mark.parametrize(
    "body",
    [b"", b"not json", b"[1,2,3]", b'{"email": 5, "password": ["x"]}', b'{"email": "", "password": ""}'],
)
def test_malformed_sign_in_bodies_get_field_errors_not_a_trace(client, db, body):
    before = _sessions(db)
    r = client.post("/api/account/sign-in", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    fields = {e["field"]: e["message"] for e in r.json()["errors"]}
    assert fields == {"email": "Email is required", "password": "Password is required"}
    assert "Traceback" not in r.text
    assert "portal_session" not in r.headers.get("set-cookie", "")
    assert _sessions(db) == before


def test_sign_in_sets_an_httponly_lax_cookie_and_a_safe_redirect(client):
    r = client.post(
        "/api/account/sign-in", json={"email": DEMO_EMAIL, "password": DEMO_PASSWORD, "to": "https://evil.example.com/"}
    )
    assert r.status_code == 200
    assert r.json()["redirect"] == "/"
    cookie = r.headers["set-cookie"].lower()
    assert "portal_session=" in cookie and "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie


def test_cross_site_post_is_refused(client, db):
    before = _sessions(db)
    r = client.post(
        "/api/account/sign-in",
        json={"email": DEMO_EMAIL, "password": DEMO_PASSWORD},
        headers={"Origin": "https://evil.example.com"},
    )
    assert r.status_code == 403
    assert _sessions(db) == before


@pytest.mark.parametrize(
    "cookie",
    [
        "garbage",
        "portal_session=",
        'portal_session="unterminated',
        "portal_session=" + "x" * 4000,
        "a=b; portal_session=%%%",
    ],
)
def test_malformed_cookie_is_just_signed_out(client, cookie):
    # The logout endpoint answers normally and the pages still load.
    r = client.post("/api/account/logout", headers={"Cookie": cookie})
    assert r.status_code == 200
    assert r.json() == {"redirect": "/sign-in"}
    page = client.get("/sign-in/", headers={"Cookie": cookie})
    assert page.status_code == 200


def test_malformed_cookie_in_the_browser_lands_on_sign_in(page, app_server):
    import re

    from playwright.sync_api import expect

    page.context.add_cookies([{"name": "portal_session", "value": "%%%not-a-token%%%", "url": app_server.url}])
    page.goto(f"{app_server.url}/")
    expect(page).to_have_url(re.compile(r"/sign-in"))
    expect(page.locator("#sign-in-title")).to_have_text("Log in as participant")


@pytest.mark.parametrize("path", ["/health", "/api/health"])
def test_health_says_the_process_is_up(client, path):
    answer = client.get(path)
    assert answer.status_code == 200 and answer.json() == {"status": "ok"}
    assert answer.headers["cache-control"] == "no-store"


def test_ready_checks_the_database_and_its_migrations(client):
    answer = client.get("/ready")
    assert answer.status_code == 200
    assert answer.json() == {
        "status": "ready",
        "checks": {"database": "ok", "migrations": "ok", "redis": "not configured"},
    }


@pytest.mark.parametrize("path", ["/sign-in", "/sign-up", "/forgot", "/profile", "/admin/tests"])
def test_page_links_are_served_without_a_redirect(client, path):
    """A link to /sign-in gets the page itself, not a 307 to /sign-in/ (issue 18, item 5)."""
    direct = client.get(path)
    assert direct.status_code == 200 and "location" not in direct.headers
    assert direct.text == client.get(f"{path}/").text
    assert "content-security-policy" in direct.headers  # still inside the security headers
    assert client.head(path).status_code == 200


def test_hashed_assets_are_cached_for_a_year_and_the_rest_revalidated(client):
    import re

    page = client.get("/sign-in")
    assets = sorted(set(re.findall(r'"(/assets/[^"]+\.(?:js|css))"', page.text)))
    assert assets, "the page names its hashed bundles"
    for asset in assets[:5]:
        r = client.get(asset)
        assert r.status_code == 200
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
        again = client.get(asset, headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304 and again.headers["cache-control"] == "public, max-age=31536000, immutable"
    missing = client.get("/assets/no-such-file-123.js")
    assert missing.status_code == 404 and "immutable" not in missing.headers.get("cache-control", "")
    # Paths that try to leave the frontend's folder are not turned into pages.
    assert client.get("/..%2f..%2fetc").status_code in (404, 400)


@pytest.mark.parametrize(
    "path",
    [
        "/sign-in",
        "/sign-in/",
        "/",
        "/portal.js",
        "/favicon.ico",
        "/favicon.svg",
        "/oidc/google.svg",
        "/oidc/linkedin.svg",
    ],
)
def test_files_without_a_hash_are_revalidated_on_every_use(client, path):
    """Pages and unhashed files keep their name across builds: no lifetime, an ETag, a 304 when unchanged
    (Lighthouse's cache audit flags a file with no Cache-Control or a short lifetime; issue 18, item 5)."""
    r = client.get(path)
    assert r.status_code == 200 and "location" not in r.headers
    assert r.headers["cache-control"] == "no-cache"
    again = client.get(path, headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"] == "no-cache"


def test_the_not_found_page_is_not_cached_and_the_api_keeps_its_own_headers(client):
    missing = client.get("/no-such-page")
    assert missing.status_code == 404 and missing.headers["cache-control"] == "no-cache"
    health = client.get("/api/health")
    assert health.status_code == 200 and "no-cache" not in health.headers.get("cache-control", "")
