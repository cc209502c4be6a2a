"""E-mail-and-password sign-in for older accounts."""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlmodel import Session, select

from portal.domain import messages
from portal.domain.accounts import normalize_email
from portal.domain.passwords_hashing import verify_sign_in
from portal.models import Account
from portal.models._base import utcnow
from portal.services import throttle, two_factor
from portal.services.errors import SignInError, ThrottledError
from portal.services.sessions import create_session
from portal.settings import settings


@dataclass(frozen=True)
class SignInResult:
    token: str  # the new session's token; empty when two-factor sign-in asks for a code first
    account_id: int
    is_registration_complete: bool
    is_email_verified: bool
    challenge: str = ""  # the second step's token (two-factor sign-in on): no session yet


def _keys(email: str, ip_address: str) -> tuple[str, str]:
    return f"account:{email}", f"ip:{ip_address or 'unknown'}"


def sign_in_with_password(
    session: Session, *, email: str, password: str, ip_address: str = "", user_agent: str = ""
) -> SignInResult:
    """Check the password and open a session. Unknown e-mail and wrong password answer alike."""
    email = normalize_email(email)
    errors: dict[str, str] = {}
    if not email:
        errors["email"] = messages.EMAIL_REQUIRED
    if not password:
        errors["password"] = messages.PASSWORD_REQUIRED
    if errors:
        raise SignInError(next(iter(errors.values())), errors=errors)

    account_key, ip_key = _keys(email, ip_address)
    wait = throttle.seconds_blocked(
        session=session,
        keys_and_limits=[
            (account_key, settings.login_max_failures_per_account),
            (ip_key, settings.login_max_failures_per_ip),
        ],
        window_seconds=settings.login_window_seconds,
    )
    if wait:
        raise ThrottledError(messages.TOO_MANY_ATTEMPTS.format(minutes=max(1, math.ceil(wait / 60))))

    account = session.exec(select(Account).where(Account.email == email)).first()
    stored_hash = account.password_hash if account and account.removed_at is None else None
    # As many hash verifications for an unknown e-mail (against a dummy hash) as for a wrong password.
    ok, new_hash = verify_sign_in(password, stored_hash)
    if not ok or account is None:  # no account never verifies (its hash is the dummy one)
        throttle.record_failure(session=session, keys=[account_key, ip_key])
        raise SignInError(messages.INVALID_CREDENTIALS)

    if new_hash:  # legacy or weaker hash: upgrade transparently
        account.password_hash = new_hash
    account.last_login_method = "email"
    account.last_login_at = utcnow()
    session.add(account)
    throttle.clear(session=session, key=account_key)
    if two_factor.enabled_for(session, account_id=account.id):
        return SignInResult(
            token="",
            account_id=account.id,
            is_registration_complete=account.is_registration_complete,
            is_email_verified=account.email_verified_at is not None,
            challenge=two_factor.begin_challenge(session, account_id=account.id),
        )
    token = create_session(session=session, account_id=account.id, user_agent=user_agent, ip_address=ip_address)
    return SignInResult(
        token=token,
        account_id=account.id,
        is_registration_complete=account.is_registration_complete,
        is_email_verified=account.email_verified_at is not None,
    )
