"""Password sign-in, throttling and server sessions against a migrated database (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import bcrypt
import pytest
from sqlmodel import select

from portal.models import Account, AuthSession, LoginAttempt
from portal.models._base import utcnow
from portal.services.errors import SignInError, ThrottledError
from portal.services.sessions import create_session, resolve_user, revoke_all_sessions, revoke_session
from portal.services.sign_in import sign_in_with_password
from portal.services.tokens import hash_token
from portal.settings import settings
from tests.support.factories import make_participant

PASSWORD = "Correct-Horse-42!"


def _sign_in(session, email, password, ip="203.0.113.7"):
    try:
        return sign_in_with_password(session=session, email=email, password=password, ip_address=ip)
    finally:
        session.commit()


def test_sign_in_opens_a_session_that_resolves_to_the_user(session):
    account = make_participant(session, first_name="Robin", last_name="Reader")
    result = _sign_in(session, account.email.upper(), PASSWORD)
    user = resolve_user(session=session, token=result.token)
    assert user is not None
    assert (user.account_id, user.first_name, user.last_name) == (account.id, "Robin", "Reader")
    stored = session.exec(select(AuthSession).where(AuthSession.account_id == account.id)).one()
    assert stored.token_hash == hash_token(result.token)
    assert result.token not in stored.token_hash


def test_wrong_password_and_unknown_email_give_the_same_answer(session):
    account = make_participant(session)
    with pytest.raises(SignInError) as wrong:
        _sign_in(session, account.email, "Wrong-Password-1!")
    with pytest.raises(SignInError) as unknown:
        _sign_in(session, "nobody-" + account.email, "Wrong-Password-1!")
    assert wrong.value.errors == unknown.value.errors == {"_global": "Incorrect email or password."}


def test_empty_fields_name_the_field(session):
    with pytest.raises(SignInError) as err:
        _sign_in(session, "  ", "")
    assert err.value.errors == {"email": "Email is required", "password": "Password is required"}


def test_failures_are_throttled_per_account_then_allowed_again(session):
    account = make_participant(session)
    limit = settings.login_max_failures_per_account
    for i in range(limit):
        with pytest.raises(SignInError):
            _sign_in(session, account.email, "Wrong-Password-1!", ip=f"198.51.100.{i}")
    with pytest.raises(ThrottledError) as err:
        _sign_in(session, account.email, PASSWORD, ip="198.51.100.200")
    assert "Too many sign-in attempts" in err.value.message
    # Once the failures leave the window the real owner gets in again.
    for row in session.exec(select(LoginAttempt)).all():
        row.created_at = utcnow() - timedelta(seconds=settings.login_window_seconds + 1)
        session.add(row)
    session.commit()
    assert _sign_in(session, account.email, PASSWORD).account_id == account.id


def test_older_bcrypt_hash_is_accepted_and_upgraded(session):
    legacy = bcrypt.hashpw(PASSWORD.encode(), bcrypt.gensalt()).decode()
    account = make_participant(session, password_hash=legacy)
    _sign_in(session, account.email, PASSWORD)
    session.expire_all()
    assert session.get(Account, account.id).password_hash.startswith("$argon2")


@pytest.mark.parametrize("token", [None, "", "short", "x" * 500, "not a token!!", "é" * 40])
def test_malformed_or_unknown_tokens_resolve_to_nobody(session, token):
    assert resolve_user(session=session, token=token) is None


def test_revoked_and_expired_sessions_resolve_to_nobody(session):
    account = make_participant(session)
    a = create_session(session=session, account_id=account.id)
    b = create_session(session=session, account_id=account.id)
    c = create_session(session=session, account_id=account.id)
    session.commit()
    assert revoke_session(session=session, token=a)
    row = session.exec(select(AuthSession).where(AuthSession.token_hash == hash_token(b))).one()
    row.idle_expires_at = utcnow() - timedelta(seconds=1)
    session.add(row)
    session.commit()
    assert resolve_user(session=session, token=a) is None
    assert resolve_user(session=session, token=b) is None
    assert resolve_user(session=session, token=c) is not None
    revoke_all_sessions(session=session, account_id=account.id)
    session.commit()
    assert resolve_user(session=session, token=c) is None


def test_spaces_around_the_typed_password_are_not_part_of_it(session):
    account = make_participant(session)
    assert _sign_in(session, account.email, f"  {PASSWORD}\t").account_id == account.id
