"""Accounts behind LinkedIn and Google logins, keyed on (provider, subject).

`complete_login` runs after the ID token was verified: it gathers the facts,
asks `portal.domain.oidc.decide` what to do, does it (sign in, attach the
identity, create the account) and says where the browser goes next, with a new
session token when a session was opened.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, or_, select

from portal.domain.accounts import normalize_email
from portal.domain.oidc import (
    PROVIDERS,
    AccountFacts,
    Action,
    Decision,
    Facts,
    Flow,
    after_sign_in,
    claims_email_verified,
    claims_profile,
    decide,
    destination,
    error_destination,
)
from portal.domain.staff.roles import is_staff
from portal.models import Account, LoginIdentity, ParticipantProfile
from portal.models._base import utcnow
from portal.services import two_factor
from portal.services.errors import ServiceError
from portal.services.referrals import credit_referral_at_sign_up
from portal.services.sessions import create_session, resolve_user, revoke_session
from portal.services.two_factor import two_factor_path


class ProviderLoginError(ServiceError):
    """The provider's answer cannot identify anyone (no subject, unknown provider)."""


class IdentityTakenError(ServiceError):
    """The (provider, subject) pair, or this provider's slot on the account, was taken meanwhile."""


@dataclass(frozen=True)
class ProviderLogin:
    """A verified ID token, reduced to what the portal uses."""

    provider: str
    subject: str
    email: str = ""
    email_verified: bool = False
    given_name: str = ""
    family_name: str = ""
    profile: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LoginOutcome:
    redirect: str
    action: Action
    account_id: int | None = None
    token: str | None = None  # a new session token when a session was opened
    challenge: str | None = None  # two-factor sign-in on: the second step's token, no session yet

    @property
    def signed_in(self) -> bool:
        return self.token is not None


def _identity(session: Session, provider: str, subject: str) -> LoginIdentity | None:
    return session.exec(
        select(LoginIdentity).where(LoginIdentity.provider == provider, LoginIdentity.subject == subject)
    ).first()


def _has_identity(session: Session, account_id: int, provider: str, *, other_than: str | None = None) -> bool:
    query = select(LoginIdentity.id).where(LoginIdentity.account_id == account_id, LoginIdentity.provider == provider)
    if other_than is not None:
        query = query.where(LoginIdentity.subject != other_than)
    return session.exec(query).first() is not None


def _facts_of(session: Session, account: Account, login: ProviderLogin) -> AccountFacts:
    return AccountFacts(
        account_id=account.id,
        emails=tuple(e for e in (normalize_email(account.email), normalize_email(account.work_email)) if e),
        email_verified=account.email_verified_at is not None,
        has_other_identity=_has_identity(session, account.id, login.provider, other_than=login.subject),
    )


def _account_with_email(session: Session, email: str) -> Account | None:
    if not email:
        return None
    return session.exec(
        select(Account)
        .where(or_(Account.email == email, Account.work_email == email), Account.removed_at.is_(None))
        .order_by(Account.id)
    ).first()


def linked_providers(session: Session, *, account_id: int) -> list[str]:
    """The providers whose login is attached to the account (e.g. ['linkedin'])."""
    rows = session.exec(select(LoginIdentity.provider).where(LoginIdentity.account_id == account_id)).all()
    return sorted(set(rows))


def _attach(session: Session, account: Account, login: ProviderLogin) -> None:
    """Attach the identity; a race with another attach of the same identity is IdentityTakenError."""
    try:
        with session.begin_nested():
            session.add(
                LoginIdentity(
                    account_id=account.id, provider=login.provider, subject=login.subject, email=login.email or None
                )
            )
            session.flush()
    except IntegrityError as err:
        raise IdentityTakenError("This login is already connected to an account.") from err
    if login.provider == "linkedin" and login.profile:
        profile = session.get(ParticipantProfile, account.id)
        if profile is None:
            profile = ParticipantProfile(account_id=account.id)
        profile.linkedin_profile = dict(login.profile)
        profile.first_name = profile.first_name or login.given_name[:100] or None
        profile.last_name = profile.last_name or login.family_name[:100] or None
        profile.updated_at = utcnow()
        session.add(profile)


def _create(session: Session, login: ProviderLogin, flow: Flow) -> Account:
    now = utcnow()
    email = normalize_email(login.email) or None
    account = Account(
        email=email,
        email_verified_at=now if email and login.email_verified else None,
        signup_tracking=dict(flow.tracking),
        stage="new",
    )
    try:
        with session.begin_nested():
            session.add(account)
            session.flush()
            session.add(
                ParticipantProfile(
                    account_id=account.id,
                    first_name=login.given_name[:100] or None,
                    last_name=login.family_name[:100] or None,
                    linkedin_profile=dict(login.profile) if login.provider == "linkedin" else {},
                )
            )
            session.add(
                LoginIdentity(account_id=account.id, provider=login.provider, subject=login.subject, email=email)
            )
            session.flush()
    except IntegrityError as err:
        raise IdentityTakenError("This login or e-mail was registered meanwhile.") from err
    return account


def complete_login(
    session: Session,
    *,
    login: ProviderLogin,
    flow: Flow,
    current_token: str | None = None,
    linkedin_configured: bool = True,
    user_agent: str = "",
    ip_address: str = "",
    staff_allowed: bool = True,
) -> LoginOutcome:
    """Decide and carry out what a verified provider login means for the accounts. `staff_allowed`
    False (the local sign-in stand-in vouched for the login): a staff account is neither signed in to
    nor given the login; the flow ends with the 'staff' message and nothing changes."""
    if login.provider not in PROVIDERS or not login.subject or len(login.subject) > 255:
        raise ProviderLoginError("The provider's answer did not identify an account.")
    email = normalize_email(login.email)

    identity = _identity(session, login.provider, login.subject)
    if identity is not None:
        owner = session.get(Account, identity.account_id)
        if owner is None or owner.removed_at is not None:
            # A removed account keeps its identity row; nobody may sign in with it or take it over.
            decision = Decision(Action.LINKEDIN_NOT_EXISTS if login.provider == "linkedin" else Action.NOT_EXISTS)
            return LoginOutcome(redirect=destination(flow, decision), action=decision.action)

    current_user = resolve_user(session=session, token=current_token) if current_token else None
    current = session.get(Account, current_user.account_id) if current_user else None
    match = _account_with_email(session, email)
    facts = Facts(
        provider=login.provider,
        email=email,
        email_verified=login.email_verified,
        identity_account_id=identity.account_id if identity else None,
        current=_facts_of(session, current, login) if current else None,
        email_account=_facts_of(session, match, login) if match else None,
    )
    decision = decide(flow, facts)

    if not staff_allowed and decision.action in (Action.SIGN_IN, Action.ATTACH):
        target = session.get(Account, decision.account_id)
        if target is not None and is_staff(target.staff_role):
            return LoginOutcome(redirect=error_destination(flow, "staff"), action=decision.action)

    created = False
    account: Account | None
    if decision.action is Action.SIGN_IN:
        account = session.get(Account, decision.account_id)
    elif decision.action is Action.ATTACH:
        account = session.get(Account, decision.account_id)
        assert account is not None  # decide() named an account this transaction read
        try:
            _attach(session, account, login)
        except IdentityTakenError:
            decision = Decision(Action.LINKEDIN_EXISTS)
            return LoginOutcome(redirect=destination(flow, decision), action=decision.action)
    elif decision.action is Action.CREATE:
        try:
            account = _create(session, login, flow)
        except IdentityTakenError:
            decision = Decision(Action.LINKEDIN_EXISTS)
            return LoginOutcome(redirect=destination(flow, decision), action=decision.action)
        created = True
        # A REFERRALCODE in the sign-up tracking links the new account to its referrer (never fails the sign-up).
        credit_referral_at_sign_up(session=session, account=account)
    else:
        return LoginOutcome(
            redirect=destination(flow, decision), action=decision.action, account_id=decision.account_id
        )

    assert account is not None  # decide() named an account this transaction read
    # Open a session exactly like the password sign-in: a fresh token, the old session revoked.
    if current_token:
        revoke_session(session=session, token=current_token)
    account.last_login_method = login.provider
    account.last_login_at = utcnow()
    account.updated_at = utcnow()
    session.add(account)
    if two_factor.enabled_for(session, account_id=account.id):
        onward = after_sign_in(
            flow=flow,
            created=created,
            registration_complete=account.is_registration_complete,
            has_linkedin=login.provider == "linkedin" or _has_identity(session, account.id, "linkedin"),
            linkedin_configured=linkedin_configured,
        )
        return LoginOutcome(
            redirect=two_factor_path(onward),
            action=decision.action,
            account_id=account.id,
            challenge=two_factor.begin_challenge(session, account_id=account.id),
        )
    token = create_session(session=session, account_id=account.id, user_agent=user_agent, ip_address=ip_address)
    redirect = after_sign_in(
        flow=flow,
        created=created,
        registration_complete=account.is_registration_complete,
        has_linkedin=login.provider == "linkedin" or _has_identity(session, account.id, "linkedin"),
        linkedin_configured=linkedin_configured,
    )
    return LoginOutcome(redirect=redirect, action=decision.action, account_id=account.id, token=token)


def login_from_claims(provider: str, claims: dict[str, Any]) -> ProviderLogin:
    """The verified ID token claims as a ProviderLogin."""

    def text(key: str) -> str:
        value = claims.get(key)
        return value.strip() if isinstance(value, str) else ""

    return ProviderLogin(
        provider=provider,
        subject=text("sub"),
        email=normalize_email(text("email"))[:320],
        email_verified=claims_email_verified(claims),
        given_name=text("given_name"),
        family_name=text("family_name"),
        profile=claims_profile(claims),
    )
