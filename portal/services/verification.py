"""E-mail verification: links for the personal and the work e-mail, resends, the verify-account send.

A link is single use, expires, and is bound to the address it was sent to: if the
account's address changed since, the link no longer verifies anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlmodel import Session, select

from portal.domain import emails, mail_limits
from portal.domain import verification as rules
from portal.domain.throttling import Limit
from portal.models import Account, OneTimeToken
from portal.models._base import utcnow
from portal.services import throttle
from portal.services.errors import ServiceError, ThrottledError
from portal.services.outbox import enqueue_email
from portal.services.tokens import hash_token, new_token
from portal.settings import settings


class ResendError(ServiceError):
    """errors: the first is shown as a toast; a second one means 'already verified'."""

    def __init__(self, message: str, *, already_verified: bool = False):
        super().__init__(message)
        self.messages = [message, "already verified"] if already_verified else [message]
        self.already_verified = already_verified


@dataclass(frozen=True)
class LinkOutcome:
    status: str  # verified | already | invalid
    email: str = ""
    sign_up: bool = False  # a work e-mail verified during the sign-up (goes on to the thank-you page)


def _address(account: Account, kind: str) -> str | None:
    return account.work_email if kind == "work" else account.email


def _is_verified(account: Account, kind: str) -> bool:
    return (account.work_email_verified_at if kind == "work" else account.email_verified_at) is not None


def _limits(account_id: int, kind: str, address: str) -> list[Limit]:
    return mail_limits.verification_limits(
        account_id=account_id,
        kind=rules.purpose_for(kind) or kind,
        address=address,
        cooldown_seconds=settings.mail_cooldown_seconds,
        max_per_address_per_hour=settings.mail_max_per_address_per_hour,
    )


def check_send_allowed(session: Session, *, account_id: int, kind: str, address: str) -> None:
    """Raise ThrottledError (with the wait in its message) when a verification e-mail of `kind` for
    this account may not go to `address` yet. For callers that must refuse before changing anything."""
    wait = throttle.seconds_to_wait(session=session, limits=_limits(account_id, kind, address))
    if wait:
        raise ThrottledError(mail_limits.wait_message(wait), field="workEmail" if kind == "work" else "email")


def send_verification(session: Session, *, account: Account, kind: str) -> str:
    """Write a fresh link for the account's personal or work e-mail to the outbox; returns the address.

    Within the e-mail limits (`portal.domain.mail_limits`) only: else ThrottledError, nothing written.
    """
    address = _address(account, kind)
    purpose = rules.purpose_for(kind)
    if not address or purpose is None:
        raise ServiceError(rules.RESEND_FAILED)
    check_send_allowed(session=session, account_id=account.id, kind=kind, address=address)
    throttle.record(session=session, keys=mail_limits.keys_to_record(_limits(account.id, kind, address)))
    token = new_token()
    hours = settings.verification_link_hours
    session.add(
        OneTimeToken(
            token_hash=hash_token(token),
            account_id=account.id,
            purpose=purpose,
            email=address,
            expires_at=utcnow() + timedelta(hours=hours),
        )
    )
    link = f"{settings.base_url}/api/account/verify-email?token={token}"
    mail = emails.verify_email(brand=settings.brand_name, email=address, link=link, work=kind == "work", hours=hours)
    enqueue_email(session=session, to=address, subject=mail.subject, body=mail.body, kind=purpose, link=link)
    return address


def use_link(session: Session, *, token: str) -> LinkOutcome:
    """Consume a verification link."""
    if not token or len(token) > 128:
        return LinkOutcome("invalid")
    row = session.exec(select(OneTimeToken).where(OneTimeToken.token_hash == hash_token(token))).first()
    if row is None or row.purpose not in rules.KINDS.values():
        return LinkOutcome("invalid")
    account = session.get(Account, row.account_id)
    kind = "work" if row.purpose == rules.KINDS["work"] else "personal"
    if account is None or _address(account, kind) != row.email:
        return LinkOutcome("invalid")  # the address changed since the link was sent
    if row.used_at is not None or _is_verified(account, kind):
        return LinkOutcome("already", row.email or "") if _is_verified(account, kind) else LinkOutcome("invalid")
    if utcnow() >= row.expires_at:
        return LinkOutcome("invalid")
    now = utcnow()
    row.used_at = now
    if kind == "work":
        account.work_email_verified_at = now
    else:
        account.email_verified_at = now
    account.updated_at = now
    session.add(row)
    session.add(account)
    sign_up = (
        kind == "work" and account.is_registration_complete and not account.verified and account.stage != "completed"
    )
    return LinkOutcome("verified", row.email or "", sign_up=sign_up)


def resend(session: Session, *, account_id: int, kind: str) -> str:
    """The banner's Resend: a new link for 'work' or 'personal'. Returns the toast text."""
    if rules.purpose_for(kind) is None:
        raise ResendError(rules.RESEND_FAILED)
    account = session.get(Account, account_id)
    if account is None:
        raise ResendError(rules.SOMETHING_WENT_WRONG)
    if _is_verified(account, kind):
        raise ResendError(rules.ALREADY_VERIFIED.format(email=_address(account, kind)), already_verified=True)
    try:
        send_verification(session=session, account=account, kind=kind)
    except ThrottledError as err:  # 'Please wait 45 seconds before asking for another email.'
        raise ResendError(err.message) from err
    return rules.RESEND_SENT


def send_account_verification(session: Session, *, account_id: int) -> dict[str, object]:
    """The verify-account page's button: {alreadyVerified, toastMessage}."""
    account = session.get(Account, account_id)
    if account is None:
        raise ServiceError(rules.VERIFY_PAGE_FAILED)
    if account.email_verified_at is not None:
        return {"alreadyVerified": True, "toastMessage": rules.VERIFY_PAGE_ALREADY}
    try:
        resend(session=session, account_id=account_id, kind="personal")
    except ResendError as err:
        raise ServiceError(err.message) from err
    return {"alreadyVerified": False, "toastMessage": rules.VERIFY_PAGE_SENT}


def notify_email_changed(session: Session, *, old_email: str, new_email: str) -> None:
    """Tell the old address that the account's e-mail changed (same transaction as the change)."""
    mail = emails.email_changed(brand=settings.brand_name, old_email=old_email, new_email=new_email)
    enqueue_email(session=session, to=old_email, subject=mail.subject, body=mail.body, kind="email-changed")
