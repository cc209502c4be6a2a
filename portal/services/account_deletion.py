"""'Delete my account' (issue 40, item 2): asked for in account settings, confirmed by a link e-mailed to the person,
then done once and for good.

What goes and what stays (docs/decisions.md, 'Deleting an account'): the account row stays, marked deleted and
removed (rewards, reviews and audit rows point to it), with every personal field erased; the profile keeps only the
country (the payments' tax reporting); sign-in methods, sessions, the phone, messages, notification choices,
two-factor and pending changes are deleted; e-mails and texts sent keep their date and subject but not the address
or the text; audit rows stay with the person replaced by 'account #id (deleted)'. Reward amounts and dates stay,
and so do the answers given in tests (research results, no longer tied to anyone who can be named).
"""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
from sqlmodel import Session, col, delete, select, update

from portal.domain import account_deletion as rules
from portal.domain import emails
from portal.domain.staff import roles
from portal.models import (
    Account,
    AuditEntry,
    AuthSession,
    FeatureFlagUser,
    LoginIdentity,
    MessageThread,
    Notification,
    NotificationOptOut,
    OneTimeToken,
    OutboxEmail,
    OutboxSms,
    ParticipantProfile,
    PhoneContact,
    ProblemReport,
    ProfileAudience,
    ProfileChangeRequest,
    ProfileIndustry,
    ProfileRole,
    RecoveryCode,
    ReferralMember,
    ReviewAppeal,
    ReviewSession,
    SmsOptIn,
    TwoFactor,
)
from portal.models._base import utcnow
from portal.services import throttle
from portal.services.account_settings import NotSignedIn
from portal.services.errors import ServiceError, ThrottledError
from portal.services.outbox import enqueue_email
from portal.services.sessions import live_session
from portal.services.tokens import hash_token, looks_like_token, new_token
from portal.settings import settings

# The profile keeps the country: the tax reporting of payments made to the person depends on it.
PROFILE_KEPT = frozenset({"account_id", "country", "updated_at"})
ERASED_TEXT = "(deleted with the account)"


class LinkDead(ServiceError):
    def __init__(self) -> None:
        super().__init__(rules.LINK_DEAD, field="token")


def _caller(session: Session, token: str | None) -> Account:
    row = live_session(session, token=token)
    account = session.get(Account, row.account_id) if row is not None else None
    if row is None or account is None or account.removed_at is not None:
        raise NotSignedIn()
    return account


def request_deletion(session: Session, *, token: str | None) -> str:
    """E-mail the confirmation link; the address it went to."""
    account = _caller(session, token)
    if roles.is_staff(account.staff_role):
        raise ServiceError(rules.STAFF, field="_global")
    address = account.email or account.work_email
    if not address:
        raise ServiceError(rules.STAFF, field="_global")  # every participant has one; never reached in practice
    key = f"delete-account:{account.id}"
    if throttle.seconds_blocked(
        session=session, keys_and_limits=[(key, rules.MAX_LINKS_PER_HOUR)], window_seconds=3600
    ):
        raise ThrottledError(rules.TOO_MANY, field="_global")
    throttle.record(session=session, keys=[key])
    link_token = new_token()
    now = utcnow()
    session.add(
        OneTimeToken(
            token_hash=hash_token(link_token),
            account_id=account.id,
            purpose=rules.PURPOSE,
            email=address,
            created_at=now,
            expires_at=now + timedelta(minutes=rules.LINK_MINUTES),
        )
    )
    link = f"{settings.base_url}{rules.PATH}?token={link_token}"
    mail = emails.delete_account(brand=settings.brand_name, link=link, minutes=rules.LINK_MINUTES)
    enqueue_email(session=session, to=address, subject=mail.subject, body=mail.body, kind="delete-account", link=link)
    return address


def _usable(session: Session, link_token: str | None) -> OneTimeToken | None:
    if not looks_like_token(link_token):
        return None
    row = session.exec(
        select(OneTimeToken).where(
            col(OneTimeToken.token_hash) == hash_token(link_token or ""), col(OneTimeToken.purpose) == rules.PURPOSE
        )
    ).first()
    if row is None or row.used_at is not None or utcnow() >= row.expires_at:
        return None
    account = session.get(Account, row.account_id)
    if account is None or account.deleted_at is not None or account.removed_at is not None:
        return None
    return row


def link_usable(session: Session, *, token: str | None) -> bool:
    return _usable(session, token) is not None


def delete_account(session: Session, *, token: str | None) -> int:
    """The confirmed deletion: once (the link is claimed by `UPDATE ... WHERE used_at IS NULL`); the account id."""
    row = _usable(session, token)
    if row is None:
        raise LinkDead()
    claimed = session.exec(
        update(OneTimeToken)
        .where(col(OneTimeToken.id) == row.id, col(OneTimeToken.used_at).is_(None))
        .values(used_at=utcnow())
    )
    if claimed.rowcount != 1:
        raise LinkDead()
    account = session.get(Account, row.account_id)
    assert account is not None  # _usable read it in this transaction
    erase(session, account)
    return account.id


def erase(session: Session, account: Account) -> None:
    """Erase the person's data from the account and everything that points to it (see the module's docstring)."""
    now = utcnow()
    account_id = account.id
    addresses = {a for a in (account.email, account.work_email, account.payment_email) if a}
    addresses |= {
        e for e in session.exec(select(LoginIdentity.email).where(LoginIdentity.account_id == account_id)) if e
    }
    threads = select(MessageThread.id).where(MessageThread.account_id == account_id)
    for model, where in (
        (LoginIdentity, col(LoginIdentity.account_id) == account_id),
        (AuthSession, col(AuthSession.account_id) == account_id),
        (OneTimeToken, col(OneTimeToken.account_id) == account_id),
        (PhoneContact, col(PhoneContact.account_id) == account_id),
        (SmsOptIn, col(SmsOptIn.account_id) == account_id),
        (NotificationOptOut, col(NotificationOptOut.account_id) == account_id),
        (Notification, col(Notification.account_id) == account_id),
        (FeatureFlagUser, col(FeatureFlagUser.account_id) == account_id),
        (ProfileIndustry, col(ProfileIndustry.account_id) == account_id),
        (ProfileRole, col(ProfileRole.account_id) == account_id),
        (ProfileAudience, col(ProfileAudience.account_id) == account_id),
        (ProfileChangeRequest, col(ProfileChangeRequest.account_id) == account_id),
        (RecoveryCode, col(RecoveryCode.account_id) == account_id),
        (TwoFactor, col(TwoFactor.account_id) == account_id),
        (MessageThread, col(MessageThread.id).in_(threads)),
    ):
        session.exec(delete(model).where(where))
    session.exec(
        update(ReviewSession)
        .where(col(ReviewSession.account_id) == account_id)
        .values(draft_answers={}, draft_position={})
    )
    session.exec(update(ReviewAppeal).where(col(ReviewAppeal.account_id) == account_id).values(message=ERASED_TEXT))
    session.exec(update(ProblemReport).where(col(ProblemReport.account_id) == account_id).values(text=ERASED_TEXT))
    session.exec(
        update(ReferralMember)
        .where(col(ReferralMember.referee_account_id) == account_id)
        .values(first_name=None, email=rules.placeholder_address(account_id))
    )
    if addresses:
        session.exec(
            update(OutboxEmail)
            .where(col(OutboxEmail.to_address).in_(addresses))
            .values(to_address=rules.placeholder_address(account_id), body_text="", link=None, unsubscribe_url=None)
        )
    session.exec(update(OutboxSms).where(col(OutboxSms.account_id) == account_id).values(to_number="", body=""))
    _replace_in_audit(session, account_id, addresses)

    profile = session.get(ParticipantProfile, account_id)
    if profile is not None:
        for name, field in ParticipantProfile.model_fields.items():
            if name not in PROFILE_KEPT:
                setattr(profile, name, field.get_default(call_default_factory=True))
        profile.updated_at = now
        session.add(profile)
    account.email = account.work_email = account.payment_email = None
    account.email_verified_at = account.work_email_verified_at = None
    account.password_hash = None
    account.referral_code = None
    account.signup_tracking = {}
    account.is_subscribed_to_referral = False
    account.last_login_method = None
    account.removed_at = account.deleted_at = account.updated_at = now
    session.add(account)
    session.add(
        AuditEntry(
            actor_id=account_id,
            actor_email=rules.placeholder(account_id),
            actor_role="",
            action="account.deleted",
            target_type="account",
            target_id=str(account_id),
            after={"deleted_at": now.isoformat()},
        )
    )


def _scrub(value: object, addresses: set[str], placeholder: str) -> object:
    if isinstance(value, str):
        for address in addresses:
            value = value.replace(address, placeholder)
        return value
    if isinstance(value, dict):
        return {k: _scrub(v, addresses, placeholder) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, addresses, placeholder) for v in value]
    return value


def _replace_in_audit(session: Session, account_id: int, addresses: set[str]) -> None:
    """Audit rows stay; the person in them becomes 'account #id (deleted)' (as actor, and wherever an address of
    theirs is written in what changed)."""
    placeholder = rules.placeholder(account_id)
    now = utcnow()
    session.exec(
        update(AuditEntry).where(col(AuditEntry.actor_id) == account_id).values(actor_email=placeholder, erased_at=now)
    )
    if not addresses:
        return
    mentions = sa.or_(
        *(
            sa.or_(
                sa.cast(AuditEntry.before, sa.Text).contains(address),
                sa.cast(AuditEntry.after, sa.Text).contains(address),
                col(AuditEntry.actor_email) == address,
            )
            for address in addresses
        )
    )
    for entry in session.exec(select(AuditEntry).where(mentions)).all():
        entry.before = _scrub(entry.before, addresses, placeholder)  # type: ignore[assignment]
        entry.after = _scrub(entry.after, addresses, placeholder)  # type: ignore[assignment]
        if entry.actor_email in addresses:
            entry.actor_email = placeholder
        entry.erased_at = now
        session.add(entry)
