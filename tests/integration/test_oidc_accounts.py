"""The LinkedIn/Google account service against a migrated database (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlmodel import select

from portal.domain.oidc import Action, Flow
from portal.models import Account, AuthSession, LoginIdentity, ParticipantProfile
from portal.services.oidc_accounts import (
    ProviderLogin,
    ProviderLoginError,
    complete_login,
    linked_providers,
    login_from_claims,
)
from portal.services.sessions import create_session, resolve_user
from portal.services.tokens import hash_token
from tests.support.factories import make_participant, unique_email

SIGN_UP = Flow(provider="linkedin", sign_up=True, tracking={"utm_source": "news", "REFERRALCODE": "R1"})
SIGN_IN = Flow(provider="linkedin", is_sign_in=True, return_url="/profile")
CONNECT = Flow(provider="linkedin", connect_existing=True)


def linkedin(sub: str, email: str | None = None, verified: bool = True) -> ProviderLogin:
    return login_from_claims(
        "linkedin",
        {
            "sub": sub,
            "email": email or unique_email("li"),
            "email_verified": verified,
            "given_name": "Lin",
            "family_name": "Kedin",
        },
    )


def test_sign_up_creates_account_profile_and_identity_then_signs_in_again(session):
    login = linkedin("li-1")
    outcome = complete_login(session=session, login=login, flow=SIGN_UP)
    session.commit()
    assert outcome.action is Action.CREATE and outcome.redirect == "/sign-up/finish" and outcome.token
    account = session.get(Account, outcome.account_id)
    assert account.email == login.email and account.email_verified_at is not None
    assert account.signup_tracking == {"utm_source": "news", "REFERRALCODE": "R1"}
    assert account.last_login_method == "linkedin" and not account.is_registration_complete
    profile = session.get(ParticipantProfile, account.id)
    assert profile.first_name == "Lin" and profile.linkedin_profile["sub"] == "li-1"
    assert resolve_user(session=session, token=outcome.token).account_id == account.id
    assert linked_providers(session=session, account_id=account.id) == ["linkedin"]

    again = complete_login(session=session, login=login, flow=SIGN_IN, current_token=outcome.token)
    session.commit()
    assert again.action is Action.SIGN_IN and again.account_id == account.id
    assert again.redirect == "/sign-up"  # registration not finished
    # The earlier session was rotated out.
    old = session.exec(select(AuthSession).where(AuthSession.token_hash == hash_token(outcome.token))).one()
    assert old.revoked_at is not None


def test_returning_user_with_finished_registration_goes_to_return_url(session):
    account = make_participant(session)
    session.add(LoginIdentity(account_id=account.id, provider="linkedin", subject="li-ret"))
    session.commit()
    outcome = complete_login(session=session, login=linkedin("li-ret", "changed@example.com"), flow=SIGN_IN)
    assert outcome.action is Action.SIGN_IN and outcome.redirect == "/profile" and outcome.account_id == account.id


def test_email_match_leads_to_existing_account_then_connect_attaches(session):
    account = make_participant(session)
    login = linkedin("li-match", account.email.upper())
    outcome = complete_login(session=session, login=login, flow=SIGN_IN)
    assert outcome.action is Action.EXISTING_ACCOUNT and outcome.token is None
    assert outcome.redirect.startswith("/existing-account")
    assert session.exec(select(LoginIdentity).where(LoginIdentity.subject == "li-match")).first() is None

    connected = complete_login(session=session, login=login, flow=CONNECT)
    session.commit()
    assert connected.action is Action.ATTACH and connected.account_id == account.id and connected.token
    identity = session.exec(select(LoginIdentity).where(LoginIdentity.subject == "li-match")).one()
    assert identity.account_id == account.id
    assert session.get(ParticipantProfile, account.id).linkedin_profile["sub"] == "li-match"


def test_unverified_provider_email_never_connects(session):
    account = make_participant(session)
    outcome = complete_login(session=session, login=linkedin("li-unv", account.email, verified=False), flow=CONNECT)
    assert outcome.action is Action.CONNECT_ERROR and outcome.token is None
    assert outcome.redirect == "/existing-account?linkedin_error=true"


def test_subject_of_another_account_is_linkedin_exists(session):
    first = make_participant(session)
    session.add(LoginIdentity(account_id=first.id, provider="linkedin", subject="li-taken"))
    second = make_participant(session)
    token = create_session(session=session, account_id=second.id)
    session.commit()
    outcome = complete_login(
        session=session, login=linkedin("li-taken", first.email), flow=CONNECT, current_token=token
    )
    session.commit()
    assert outcome.action is Action.LINKEDIN_EXISTS and outcome.redirect == "/existing-account?linkedin_exists=true"
    assert resolve_user(session=session, token=token).account_id == second.id  # still signed in as before


def test_account_holds_one_login_per_provider(session):
    account = make_participant(session)
    session.add(LoginIdentity(account_id=account.id, provider="linkedin", subject="li-own"))
    token = create_session(session=session, account_id=account.id)
    session.commit()
    outcome = complete_login(session=session, login=linkedin("li-second"), flow=CONNECT, current_token=token)
    assert outcome.action is Action.CONNECT_ERROR


def test_signed_in_unverified_user_with_other_email_gets_mismatch(session):
    account = make_participant(session, email_verified=False)
    token = create_session(session=session, account_id=account.id)
    session.commit()
    flow = Flow(provider="linkedin", connect_existing=True, sign_in_flow=True)
    outcome = complete_login(session=session, login=linkedin("li-mis"), flow=flow, current_token=token)
    assert outcome.action is Action.EMAIL_MISMATCH
    assert outcome.redirect == "/verify-account?reason=email_mismatch&from_sign_in=true"
    assert linked_providers(session=session, account_id=account.id) == []


def test_google_sign_in_without_linkedin_is_offered_linkedin_connect(session):
    account = make_participant(session)
    session.add(LoginIdentity(account_id=account.id, provider="google", subject="g-1"))
    session.commit()
    google = login_from_claims("google", {"sub": "g-1", "email": account.email, "email_verified": True})
    outcome = complete_login(session=session, login=google, flow=Flow(provider="google", return_url="/profile"))
    assert outcome.redirect == "/linkedin-connect?from_sign_in=true&returnUrl=%2Fprofile"
    unknown = login_from_claims("google", {"sub": "g-unknown", "email": unique_email(), "email_verified": True})
    assert (
        complete_login(session=session, login=unknown, flow=Flow(provider="google", sign_up=True)).redirect
        == "/sign-in?notExists=true"
    )


def test_removed_account_cannot_be_signed_into_or_taken_over(session):
    account = make_participant(session)
    session.add(LoginIdentity(account_id=account.id, provider="linkedin", subject="li-gone"))
    from portal.models._base import utcnow

    account.removed_at = utcnow()
    session.add(account)
    session.commit()
    outcome = complete_login(session=session, login=linkedin("li-gone"), flow=SIGN_UP)
    assert outcome.token is None and outcome.action is Action.LINKEDIN_NOT_EXISTS


@pytest.mark.parametrize("subject", ["", "x" * 300])
def test_a_login_without_usable_subject_is_refused(session, subject):
    with pytest.raises(ProviderLoginError):
        complete_login(session=session, login=linkedin(subject), flow=SIGN_UP)


def test_duplicate_identity_is_refused_by_the_database(session):
    """The (provider, subject) and (account, provider) constraints hold even if a race slips past the checks."""
    from sqlalchemy.exc import IntegrityError

    a, b = make_participant(session), make_participant(session)
    session.add(LoginIdentity(account_id=a.id, provider="linkedin", subject="li-race"))
    session.commit()
    session.add(LoginIdentity(account_id=b.id, provider="linkedin", subject="li-race"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
    session.add(LoginIdentity(account_id=a.id, provider="linkedin", subject="li-race-2"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
