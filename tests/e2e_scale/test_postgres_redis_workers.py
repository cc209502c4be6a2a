"""The same app on PostgreSQL with Reflex state in Redis and several backend workers.

Runs in its own pytest process after tests/e2e, since both build the frontend in .web.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect
from sqlmodel import Session, select

from portal.db import make_engine
from portal.models import AuthSession
from tests.e2e.conftest import app_env, browser, free_port, start_app, stop_app  # noqa: F401 (browser is a fixture)
from tests.e2e.helpers import DEMO_EMAIL, DEMO_NAME, DEMO_PASSWORD, sign_in
from tests.support.services import fresh_redis, postgres_database


@pytest.fixture(scope="module")
def scaled_app(tmp_path_factory) -> Iterator[tuple[str, str, str]]:
    database_url = postgres_database("portal_e2e")
    redis_url = fresh_redis("redis://127.0.0.1:6379/5")
    port = free_port()
    env = app_env(port, database_url, REDIS_URL=redis_url)
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
        page = ctx.new_page()
        sign_in(page, base_url, DEMO_EMAIL, DEMO_PASSWORD)
        expect(page.locator("#header-user-name")).to_have_text(DEMO_NAME)
        # A second tab shares the cookie; each tab has its own state in Redis.
        second = ctx.new_page()
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
