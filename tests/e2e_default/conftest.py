"""The portal as `make run` serves it on a fresh clone: no settings at all (no LinkedIn, no Google, no
SMTP), a loopback BASE_URL, its own SQLite file. Runs in its own pytest process, since it builds the
frontend for its own port. The browser fixtures are tests/e2e/conftest.py's (console errors fail a test)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import (  # noqa: F401 (fixtures)
    AppServer,
    app_env,
    browser,
    console_guard,
    context,
    db,
    free_port,
    page,
    start_app,
    stop_app,
)

PROVIDER_SETTINGS = ("LINKEDIN_", "GOOGLE_", "LOCAL_OIDC", "SMTP_", "TRUSTED_PROXIES", "CAPTCHA_")


@pytest.fixture(scope="session")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    data = tmp_path_factory.mktemp("default-run")
    port = free_port()
    database_url = f"sqlite:///{data}/default.db"
    env = {k: v for k, v in app_env(port, database_url).items() if not k.startswith(PROVIDER_SETTINGS)}
    assert not any(k.startswith(PROVIDER_SETTINGS) for k in env), "the default run has no provider settings"
    os.environ.pop("LOCAL_OIDC", None)
    log_path = data / "server.log"
    server = AppServer(url=env["BASE_URL"], database_url=database_url, log_path=log_path, env=env,
                       proc=start_app(port, env, log_path))
    try:
        yield server
    finally:
        if server.proc is not None:
            stop_app(server.proc)
