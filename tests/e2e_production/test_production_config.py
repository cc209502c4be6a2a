"""The app as production runs it: PostgreSQL, Reflex state in Redis, several backend
workers, invisible captcha on (a provider stand-in on loopback), and no trusted proxy.

Runs in its own pytest process after tests/e2e, since both build the frontend in .web.
Tests run in file order; the address-throttling test blocks loopback, so it is last.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect
from sqlmodel import Session, select

from portal.db import make_engine
from portal.models import AuthSession

# browser and console_guard are fixtures: a console error or CSP violation fails the test here too.
from tests.e2e.conftest import app_env, browser, console_guard, free_port, start_app, stop_app, wait_for_hydration  # noqa: F401
from tests.e2e.helpers import DEMO_EMAIL, DEMO_NAME, DEMO_PASSWORD, sign_in
from tests.support.captcha_provider import CaptchaProvider
from tests.support.services import fresh_redis, postgres_database


@pytest.fixture(scope="module")
def captcha_provider() -> Iterator[CaptchaProvider]:
    provider = CaptchaProvider().start()
    yield provider
    provider.stop()


@pytest.fixture(scope="module")
def scaled_app(tmp_path_factory, captcha_provider) -> Iterator[tuple[str, str, str]]:
    database_url = postgres_database("portal_e2e")
    redis_url = fresh_redis("redis://127.0.0.1:6379/5")
    port = free_port()
    env = app_env(port, database_url, REDIS_URL=redis_url, LOGIN_MAX_FAILURES_PER_IP="8", **captcha_provider.env())
    log_path = tmp_path_factory.mktemp("scaled") / "server.log"
    proc = start_app(port, env, log_path)
    try:
        yield env["BASE_URL"], database_url, log_path.read_text()
    finally:
        stop_app(proc)


def test_sign_in_and_out_across_workers(scaled_app, browser):
    base_url, database_url, _ = scaled_app
    ctx = browser.new_context()
    try:
        page = wait_for_hydration(ctx.new_page())
        sign_in(page, base_url, DEMO_EMAIL, DEMO_PASSWORD)
        expect(page.locator("#header-user-name")).to_have_text(DEMO_NAME)
        # A second tab shares the cookie; each tab has its own state in Redis.
        second = wait_for_hydration(ctx.new_page())
        second.goto(f"{base_url}/profile")
        expect(second.locator("#header-user-name")).to_have_text(DEMO_NAME)
        page.click("#account-menu")
        page.click("#desktop-sign-out")
        expect(page).to_have_url(re.compile(r"/sign-in"))
        second.reload()
        expect(second).to_have_url(re.compile(r"/sign-in"))
    finally:
        ctx.close()
    with Session(make_engine(database_url)) as session:
        rows = session.exec(select(AuthSession)).all()
        assert rows and all(r.revoked_at is not None for r in rows)


def test_state_lives_in_redis(scaled_app):
    import redis

    client = redis.Redis.from_url("redis://127.0.0.1:6379/5")
    try:
        assert any(True for _ in client.scan_iter(count=100)), "no Reflex state keys in Redis"
    finally:
        client.close()


def test_ready_checks_postgresql_and_redis(scaled_app):
    base_url, _, _ = scaled_app
    answer = httpx.get(f"{base_url}/ready", timeout=30)
    assert answer.status_code == 200
    assert answer.json() == {"status": "ready", "checks": {"database": "ok", "migrations": "ok", "redis": "ok"}}


def _post_sign_in(base_url: str, body: dict, **headers: str) -> httpx.Response:
    return httpx.post(f"{base_url}/api/account/sign-in", json=body, headers=headers, timeout=30)


def test_sign_in_without_a_captcha_token_is_refused(scaled_app):
    base_url = scaled_app[0]
    r = _post_sign_in(base_url, {"email": DEMO_EMAIL, "password": DEMO_PASSWORD})
    assert r.status_code == 400
    assert r.json()["errors"] == [{"field": "_global", "message": "Please confirm you are not a robot and try again."}]
    assert "portal_session" not in r.headers.get("set-cookie", "")


def test_a_captcha_token_works_once(scaled_app, captcha_provider):
    base_url = scaled_app[0]
    token = captcha_provider.issue("sign_in")
    first = _post_sign_in(base_url, {"email": DEMO_EMAIL, "password": DEMO_PASSWORD, "captchaToken": token})
    assert first.status_code == 200
    again = _post_sign_in(base_url, {"email": DEMO_EMAIL, "password": DEMO_PASSWORD, "captchaToken": token})
    assert again.status_code == 400
    assert again.json()["errors"][0]["message"] == "We could not confirm you are not a robot. Please try again."
    forged = _post_sign_in(
        base_url, {"email": DEMO_EMAIL, "password": DEMO_PASSWORD, "captchaToken": "forged-" + "x" * 40}
    )
    assert forged.status_code == 400


def test_forwarded_for_from_an_untrusted_peer_is_ignored(scaled_app, captcha_provider):
    """With no trusted proxy, X-Forwarded-For cannot spread failures over made-up addresses."""
    base_url = scaled_app[0]
    statuses = []
    for i in range(12):
        body = {
            "email": f"spray-{i}@example.com",
            "password": "Wrong-1!",
            "captchaToken": captcha_provider.issue("sign_in"),
        }
        statuses.append(_post_sign_in(base_url, body, **{"X-Forwarded-For": f"198.51.100.{i}"}).status_code)
    assert statuses[:8] == [400] * 8
    assert statuses[8:] == [429] * 4
