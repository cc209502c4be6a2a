"""Two-factor sign-in for tests (issue 40): staff accounts get an authenticator with a known secret, and the sign-in
helpers type its codes the way a person reads them off the app, each 30-second step's code used once."""

from __future__ import annotations

import time

import pyotp
from sqlmodel import Session

from portal.models import TwoFactor
from portal.models._base import utcnow
from portal.services.two_factor import seal

# The SECRET_KEY of the apps the browser and security tests start (tests/e2e/conftest.py app_env): the TOTP
# secret is stored encrypted with a key derived from it.
APP_SECRET_KEY = "e2e-secret-key"
SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
_last_step: dict[object, int] = {}


def enable(db: Session, account_id: int, *, secret: str = SECRET, secret_key: str | None = APP_SECRET_KEY) -> None:
    """Two-factor sign-in on for the account, with `secret` (as if set up in account settings)."""
    row = db.get(TwoFactor, account_id) or TwoFactor(account_id=account_id, secret="")
    row.secret, row.enabled_at, row.last_used_step = seal(secret, secret_key=secret_key), utcnow(), 0
    db.add(row)
    db.commit()


def next_code(account: object, secret: str = SECRET) -> str:
    """A code the server takes for this account (its e-mail or id) now: this step's, or the next step's when this
    step's code was used already by this test run (the server accepts one step ahead)."""
    step = int(time.time()) // 30
    step = max(step, _last_step.get(account, -1) + 1)
    _last_step[account] = step
    return pyotp.TOTP(secret).generate_otp(step)
