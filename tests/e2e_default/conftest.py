"""The portal as `make run` serves it on a fresh clone: no settings at all (no LinkedIn, no Google, no
SMTP), a loopback BASE_URL, its own SQLite file. Runs in its own pytest process, since it builds the
frontend for its own port. The browser fixtures are tests/e2e/conftest.py's (console errors fail a test)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.conftest import (  # noqa: F401 (fixtures)
    AppServer,
    app_env,
    browser,
    console_guard,
    context,
    db,
    page,
    served_app,
)

# What a developer's shell might carry that a fresh `make run` does not have.
PROVIDER_SETTINGS = (
    "LINKEDIN_",
    "GOOGLE_",
    "LOCAL_OIDC",
    "SMTP_",
    "TRUSTED_PROXIES",
    "CAPTCHA_",
    "SENTRY_",
    "PAYOUT_",
    "TREMENDOUS_",
    "LOCAL_PAYOUTS_",
)


# Only the pace differs from `make run`: the payout job runs every 2 s (60 by default) and the stand-in
# delivers a reward 8 s after its order (5 by default), so a test sees 'Sent' and then 'Paid' in seconds.
PACE = {"PAYOUT_EVERY_SECONDS": "2", "LOCAL_PAYOUTS_DELIVERY_SECONDS": "8"}


def default_env(port: int, database_url: str) -> dict[str, str]:
    env = {k: v for k, v in app_env(port, database_url).items() if not k.startswith(PROVIDER_SETTINGS)}
    return env | PACE


@pytest.fixture(scope="session")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    yield from served_app(tmp_path_factory, "default-run", default_env)
