"""Password recovery: the forgot-password request, the link check and the new password.

Reset links carry a 256-bit random token; the database keeps only its SHA-256. A link
works once, for at most 60 minutes, and dies with any password change (a token issued
before `Account.password_changed_at` is refused; a reset also marks every outstanding
reset link of the account used). A reset ends every session of the account and does
not sign in. The request answers the same way, after the same kind of work, whether or
not the address belongs to an account.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from email_validator import EmailNotValidError, validate_email
from sqlmodel import Session, select, update

from portal.domain import emails, mail_limits, messages
from portal.domain import password_policy as policy
from portal.domain import password_reset as rules
from portal.domain.accounts import normalize_email
from portal.domain.passwords_hashing import DUMMY_HASH, hash_password, verify_password
from portal.models import Account, OneTimeToken
from portal.models._base import utcnow
from portal.services import throttle
from portal.services.errors import ServiceError, ThrottledError
from portal.services.outbox import enqueue_email
from portal.services.sessions import revoke_all_sessions
from portal.services.tokens import hash_token, looks_like_token, new_token
from portal.settings import settings


class ResetLinkError(ServiceError):
    """The link is unknown, used, expired or older than the last password change."""

    def __init__(self) -> None:
        super().__init__(rules.LINK_USED, field="token")


class PasswordRulesError(ServiceError):
    """The new password or its confirmation breaks the rules; `codes` marks the 'duplicated' error."""

    def __init__(self, errors: dict[str, str], codes: dict[str, str] | None = None):
        super().__init__(next(iter(errors.values())), field=next(iter(errors)), errors=errors)
        self.codes = codes or {}


@dataclass(frozen=True)
class ResetRequest:
    email: str
    minutes: int


def account_key(email: str) -> str:
    return f"reset:{email}"


def ip_key(ip_address: str) -> str:
    return f"reset-ip:{ip_address or 'unknown'}"


def _wait_message(seconds: int) -> str:
    return rules.TOO_MANY_REQUESTS.format(minutes=max(1, math.ceil(seconds / 60)))


def _check_throttle(session: Session, keys_and_limits: list[tuple[str, int]]) -> None:
    wait = throttle.seconds_blocked(
        session=session, keys_and_limits=keys_and_limits, window_seconds=settings.reset_window_seconds
    )
    if wait:
        raise ThrottledError(
            _wait_message(wait), field="email" if keys_and_limits[0][0].startswith("reset:") else "_global"
        )


def _link(token: str) -> str:
    return f"{settings.base_url}{rules.RESET_PATH}?token={token}"


# --- forgot password ----------------------------------------------------------------------


def request_reset(session: Session, *, email: str, ip_address: str = "") -> ResetRequest:
    """'Send Me Reset Link'. Known and unknown addresses get the same answer after the same work:
    a token is made and hashed either way, and every request counts towards the throttle and the
    e-mail cooldown of the address (so a refusal, with its wait, tells nothing either)."""
    address = normalize_email(email)
    if not address:
        raise ServiceError(messages.EMAIL_REQUIRED, field="email")
    try:
        validate_email(address, check_deliverability=False)
    except EmailNotValidError as err:
        raise ServiceError(rules.EMAIL_INVALID, field="email") from err

    a_key, i_key = account_key(address), ip_key(ip_address)
    _check_throttle(
        session,
        [(a_key, settings.reset_max_requests_per_account), (i_key, settings.reset_max_requests_per_ip)],
    )
    cooldown = mail_limits.reset_limits(address=address, cooldown_seconds=settings.mail_cooldown_seconds)
    wait = throttle.seconds_to_wait(session=session, limits=cooldown)
    if wait:
        raise ThrottledError(mail_limits.wait_message(wait), field="email")
    throttle.record_failure(session=session, keys=[a_key, i_key, *mail_limits.keys_to_record(cooldown)])

    minutes = settings.reset_link_minutes
    token = new_token()
    token_hash = hash_token(token)
    account = session.exec(select(Account).where(Account.email == address)).first()
    if account is None or account.removed_at is not None:
        return ResetRequest(email=address, minutes=minutes)  # nothing to send; same answer

    if not account.password_hash:
        # A LinkedIn or Google account has no password to reset: say so to the owner only.
        mail = emails.password_reset_no_password(brand=settings.brand_name, sign_in_link=f"{settings.base_url}/sign-in")
        enqueue_email(session=session, to=address, subject=mail.subject, body=mail.body, kind="reset-password")
        return ResetRequest(email=address, minutes=minutes)

    now = utcnow()
    session.add(
        OneTimeToken(
            token_hash=token_hash,
            account_id=account.id,
            purpose=rules.PURPOSE,
            email=address,
            created_at=now,
            expires_at=now + timedelta(minutes=minutes),
        )
    )
    link = _link(token)
    mail = emails.password_reset(brand=settings.brand_name, link=link, minutes=minutes)
    enqueue_email(session=session, to=address, subject=mail.subject, body=mail.body, kind="reset-password", link=link)
    return ResetRequest(email=address, minutes=minutes)


# --- the link -----------------------------------------------------------------------------


def _usable(session: Session, token: str | None, now: datetime) -> tuple[OneTimeToken, Account] | None:
    if not looks_like_token(token):
        return None
    row = session.exec(
        select(OneTimeToken).where(OneTimeToken.token_hash == hash_token(token), OneTimeToken.purpose == rules.PURPOSE)
    ).first()
    if row is None:
        return None
    account = session.get(Account, row.account_id)
    if account is None or account.removed_at is not None or not account.password_hash:
        return None
    if not rules.link_usable(
        created_at=row.created_at,
        expires_at=row.expires_at,
        used_at=row.used_at,
        password_changed_at=account.password_changed_at,
        now=now,
    ):
        return None
    return row, account


def check_token(session: Session, *, token: str | None) -> bool:
    """GET /account/reset-password/check-token: may this link still set a password?"""
    return _usable(session, token, utcnow()) is not None


def check_token_throttled(session: Session, *, token: str | None, ip_address: str = "") -> None:
    """The HTTP check: a refused link counts against the client address. Raises ResetLinkError."""
    _check_throttle(session, [(ip_key(ip_address), settings.reset_max_requests_per_ip)])
    if not check_token(session=session, token=token):
        throttle.record_failure(session=session, keys=[ip_key(ip_address)])
        raise ResetLinkError()


# --- the new password ---------------------------------------------------------------------


def reset_password(
    session: Session, *, token: str | None, password: str | None, confirm_password: str | None, ip_address: str = ""
) -> int:
    """PUT /account/reset-password. Sets the new password, uses up every reset link of the account,
    ends all its sessions and returns the account id. Does not sign in.

    A refused link is recorded as a failure for the client address before ResetLinkError is
    raised: the caller commits the transaction even then.
    """
    i_key = ip_key(ip_address)
    _check_throttle(session, [(i_key, settings.reset_max_requests_per_ip)])
    now = utcnow()
    found = _usable(session, token, now)
    if found is None:
        throttle.record_failure(session=session, keys=[i_key])
        raise ResetLinkError()
    row, account = found

    errors = policy.validate(password, confirm_password)
    if errors:
        raise PasswordRulesError(errors)
    new_password = policy.normalize(password)
    same, _ = verify_password(new_password, account.password_hash or DUMMY_HASH)
    if same:
        raise PasswordRulesError(
            {policy.PASSWORD_FIELD: policy.PASSWORD_DUPLICATED}, {policy.PASSWORD_FIELD: policy.DUPLICATED_CODE}
        )

    # Single use even under a race: only one request can move used_at from NULL.
    claimed = session.exec(
        update(OneTimeToken).where(OneTimeToken.id == row.id, OneTimeToken.used_at.is_(None)).values(used_at=now)
    )
    if claimed.rowcount != 1:
        raise ResetLinkError()
    # Every other outstanding reset link of the account dies with this change.
    session.exec(
        update(OneTimeToken)
        .where(
            OneTimeToken.account_id == account.id, OneTimeToken.purpose == rules.PURPOSE, OneTimeToken.used_at.is_(None)
        )
        .values(used_at=now)
    )
    account.password_hash = hash_password(new_password)
    account.password_changed_at = now
    account.updated_at = now
    session.add(account)
    revoke_all_sessions(session=session, account_id=account.id)
    # The owner proved control of the address: lift the sign-in lock and the reset counter.
    throttle.clear(session=session, key=f"account:{account.email}")
    throttle.clear(session=session, key=account_key(account.email or ""))
    if account.email:
        mail = emails.password_changed(brand=settings.brand_name, forgot_link=f"{settings.base_url}{rules.FORGOT_PATH}")
        enqueue_email(session=session, to=account.email, subject=mail.subject, body=mail.body, kind="password-changed")
    return account.id
