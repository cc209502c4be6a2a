"""Security tests against the real app, started exactly as the browser tests start it.

The fixtures are tests/e2e/conftest.py's (one app process per session: `app_server` with its
`url`, `log_path`, `db()` and `env`; the SMTP and OpenID Connect stand-ins; `browser`, `context`
and `page`, whose console errors and CSP violations fail a test through `console_guard`).
The app builds its frontend in `.web-security`, not tests/e2e's `.web`, so both suites can run at once
(`make test` runs them side by side; tests.support.web_dir).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import (  # noqa: F401 (fixtures)
    ROOT,
    AppServer,
    app_server,
    browser,
    console_guard,
    context,
    db,
    oidc_provider,
    page,
    sentry_server,
    smtp_server,
)


@pytest.fixture
def http(app_server: AppServer) -> Iterator[httpx.Client]:
    """A plain HTTP client for the app (no cookies kept between tests, no redirects followed)."""
    with httpx.Client(base_url=app_server.url, timeout=30, follow_redirects=False) as client:
        yield client


@pytest.fixture(scope="session")
def web_dir() -> Path:
    return ROOT / (os.environ.get("REFLEX_WEB_WORKDIR") or ".web-security")
