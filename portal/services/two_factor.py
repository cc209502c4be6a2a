"""Two-factor sign-in (issue 40, item 1): turning it on and off from account settings, and the second step of a
sign-in.

Turning it on: a secret is made (kept encrypted), shown as a QR code and a key, and confirmed by a code from the
app; then ten recovery codes are made and shown once (only their SHA-256 is kept). A sign-in of an account with it
on opens no session after the password (or the LinkedIn/Google return): it gets a challenge, a single-use token kept
hashed in one_time_token, valid for CHALLENGE_MINUTES and MAX_TRIES wrong codes, and the session is opened when a
code from the app (each step's code works once) or an unused recovery code is given.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlencode

from cryptography.fernet import Fernet, InvalidToken
from sqlmodel import Session, col, delete, func, select, update

from portal.domain import two_factor as rules
from portal.domain.staff import roles
from portal.models import Account, AuthSession, OneTimeToken, RecoveryCode, TwoFactor
from portal.models._base import utcnow
from portal.services import throttle
from portal.services.errors import ServiceError
from portal.services.sessions import create_session, live_session
from portal.services.tokens import hash_token, looks_like_token, new_token
from portal.settings import settings

PURPOSE = "two-factor"
_CODE = "code"


class NotSignedIn(ServiceError):
    def __init__(self) -> None:
        super().__init__("Please sign in again.", field="_global")


class ChallengeExpired(ServiceError):
    def __init__(self) -> None:
        super().__init__(rules.CHALLENGE_EXPIRED, field="_global")


# --- the secret at rest ------------------------------------------------------------------------------------------


def _fernet(secret_key: str | None = None) -> Fernet:
    key = hmac.new((secret_key or settings.secret_key).encode(), b"portal-two-factor-secret", hashlib.sha256).digest()
    return Fernet(base64.urlsafe_b64encode(key))


def seal(secret: str, *, secret_key: str | None = None) -> str:
    """The secret as stored: encrypted with a key derived from SECRET_KEY (`secret_key`: another app's)."""
    return _fernet(secret_key).encrypt(secret.encode()).decode()


def _open(sealed: str) -> str | None:
    try:
        return _fernet().decrypt(sealed.encode()).decode()
    except (InvalidToken, ValueError):
        return None  # SECRET_KEY changed: the authenticator must be set up again (recovery codes still work)


# --- what the account has ----------------------------------------------------------------------------------------


def enabled_for(session: Session, *, account_id: int) -> bool:
    row = session.get(TwoFactor, account_id)
    return row is not None and row.enabled_at is not None


def _caller(session: Session, token: str | None) -> tuple[AuthSession, Account]:
    row = live_session(session, token=token)
    account = session.get(Account, row.account_id) if row is not None else None
    if row is None or account is None or account.removed_at is not None:
        raise NotSignedIn()
    return row, account


@dataclass(frozen=True)
class Status:
    enabled: bool
    codes_left: int
    required: bool  # staff may not turn it off


def status(session: Session, *, token: str | None) -> Status:
    _row, account = _caller(session, token)
    left = session.exec(
        select(func.count())
        .select_from(RecoveryCode)
        .where(col(RecoveryCode.account_id) == account.id, col(RecoveryCode.used_at).is_(None))
    ).one()
    return Status(
        enabled=enabled_for(session, account_id=account.id),
        codes_left=int(left),
        required=roles.is_staff(account.staff_role),
    )


@dataclass(frozen=True)
class Setup:
    secret: str
    uri: str


def start_setup(session: Session, *, token: str | None) -> Setup:
    """A new secret to scan (replacing one not confirmed yet). Refused while two-factor sign-in is on."""
    _row, account = _caller(session, token)
    row = session.get(TwoFactor, account.id)
    if row is not None and row.enabled_at is not None:
        raise ServiceError(rules.TURNED_ON, field="_global")
    secret = rules.new_secret()
    if row is None:
        session.add(TwoFactor(account_id=account.id, secret=seal(secret)))
    else:
        row.secret, row.last_used_step, row.created_at = seal(secret), 0, utcnow()
        session.add(row)
    name = account.email or account.work_email or f"account {account.id}"
    return Setup(secret=secret, uri=rules.provisioning_uri(secret, account_name=name, issuer=settings.brand_name))


def confirm_setup(session: Session, *, token: str | None, code: object) -> list[str]:
    """Turn it on with a code from the app; the ten recovery codes, to show once."""
    _row, account = _caller(session, token)
    row = session.get(TwoFactor, account.id)
    if row is None or row.enabled_at is not None:
        raise ServiceError(rules.SETUP_EXPIRED, field=_CODE)
    secret = _open(row.secret)
    step = rules.matching_step(secret, code, utcnow()) if secret else None
    if step is None:
        raise ServiceError(rules.CODE_WRONG if rules.normalize(code) else rules.CODE_REQUIRED, field=_CODE)
    # Once, even if the same code is sent twice at the same moment.
    turned_on = session.exec(
        update(TwoFactor)
        .where(col(TwoFactor.account_id) == account.id, col(TwoFactor.enabled_at).is_(None))
        .values(enabled_at=utcnow(), last_used_step=step)
    )
    if turned_on.rowcount != 1:
        raise ServiceError(rules.SETUP_EXPIRED, field=_CODE)
    return _new_recovery_codes(session, account.id)


def _new_recovery_codes(session: Session, account_id: int) -> list[str]:
    session.exec(delete(RecoveryCode).where(col(RecoveryCode.account_id) == account_id))
    codes = rules.new_recovery_codes()
    for code in codes:
        session.add(RecoveryCode(account_id=account_id, code_hash=rules.recovery_hash(code)))
    return codes


def _use_code(session: Session, account_id: int, code: object) -> bool:
    """A code from the app (a step after the last one used) or an unused recovery code, used up; else False."""
    row = session.get(TwoFactor, account_id)
    if row is None or row.enabled_at is None:
        return False
    if rules.looks_like_recovery_code(code):
        used = session.exec(
            update(RecoveryCode)
            .where(
                col(RecoveryCode.account_id) == account_id,
                col(RecoveryCode.code_hash) == rules.recovery_hash(code),
                col(RecoveryCode.used_at).is_(None),
            )
            .values(used_at=utcnow())
        )
        return used.rowcount == 1
    secret = _open(row.secret)
    step = rules.matching_step(secret, code, utcnow()) if secret else None
    if step is None:
        return False
    # A step's code works once: only a step later than the last one used moves it on.
    moved = session.exec(
        update(TwoFactor)
        .where(col(TwoFactor.account_id) == account_id, col(TwoFactor.last_used_step) < step)
        .values(last_used_step=step)
    )
    return moved.rowcount == 1


def turn_off(session: Session, *, token: str | None, code: object) -> None:
    """Off with a code from the app or a recovery code; never for staff."""
    _row, account = _caller(session, token)
    if roles.is_staff(account.staff_role):
        raise ServiceError(rules.STAFF_KEEP, field="_global")
    if not rules.normalize(code):
        raise ServiceError(rules.CODE_REQUIRED, field=_CODE)
    if not _use_code(session, account.id, code):
        raise ServiceError(rules.CODE_WRONG, field=_CODE)
    session.exec(delete(RecoveryCode).where(col(RecoveryCode.account_id) == account.id))
    session.exec(delete(TwoFactor).where(col(TwoFactor.account_id) == account.id))


# --- the second step of a sign-in --------------------------------------------------------------------------------


def two_factor_path(onward: str) -> str:
    """The code page, with where the sign-in goes once the code is right."""
    return f"{rules.PATH}?{urlencode({'to': onward})}"


def begin_challenge(session: Session, *, account_id: int) -> str:
    """The challenge of a sign-in whose first step passed: the opaque token for the portal_2fa cookie."""
    token = new_token()
    now = utcnow()
    session.add(
        OneTimeToken(
            token_hash=hash_token(token),
            account_id=account_id,
            purpose=PURPOSE,
            created_at=now,
            expires_at=now + timedelta(minutes=rules.CHALLENGE_MINUTES),
        )
    )
    return token


def _live_challenge(session: Session, challenge: str | None) -> OneTimeToken | None:
    if not looks_like_token(challenge):
        return None
    row = session.exec(
        select(OneTimeToken).where(
            col(OneTimeToken.token_hash) == hash_token(challenge or ""), col(OneTimeToken.purpose) == PURPOSE
        )
    ).first()
    if row is None or row.used_at is not None or utcnow() >= row.expires_at:
        return None
    return row


def challenge_open(session: Session, *, challenge: str | None) -> bool:
    return _live_challenge(session, challenge) is not None


@dataclass(frozen=True)
class Passed:
    token: str
    account_id: int
    is_registration_complete: bool
    is_email_verified: bool


def complete_challenge(
    session: Session, *, challenge: str | None, code: object, user_agent: str = "", ip_address: str = ""
) -> Passed:
    """The code of a sign-in's second step: the session opens, or the wrong try is counted (the caller commits even
    then) and after MAX_TRIES the challenge dies."""
    row = _live_challenge(session, challenge)
    if row is None:
        raise ChallengeExpired()
    if not rules.normalize(code):
        raise ServiceError(rules.CODE_REQUIRED, field=_CODE)
    account = session.get(Account, row.account_id)
    if account is None or account.removed_at is not None:
        raise ChallengeExpired()
    if not _use_code(session, account.id, code):
        key = f"two-factor:{row.id}"
        throttle.record_failure(session=session, keys=[key])
        if throttle.seconds_blocked(
            session=session, keys_and_limits=[(key, rules.MAX_TRIES)], window_seconds=rules.CHALLENGE_MINUTES * 60
        ):
            session.exec(update(OneTimeToken).where(col(OneTimeToken.id) == row.id).values(used_at=utcnow()))
            raise ChallengeExpired()
        raise ServiceError(rules.CODE_WRONG, field=_CODE)
    # The challenge is spent once: a second request with the same cookie opens no second session.
    spent = session.exec(
        update(OneTimeToken)
        .where(col(OneTimeToken.id) == row.id, col(OneTimeToken.used_at).is_(None))
        .values(used_at=utcnow())
    )
    if spent.rowcount != 1:
        raise ChallengeExpired()
    token = create_session(session=session, account_id=account.id, user_agent=user_agent, ip_address=ip_address)
    return Passed(
        token=token,
        account_id=account.id,
        is_registration_complete=account.is_registration_complete,
        is_email_verified=account.email_verified_at is not None,
    )
