"""Password recovery against a migrated database (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlmodel import func, select

from portal.domain import password_policy as policy
from portal.domain.password_reset import LINK_USED, PURPOSE
from portal.domain.passwords_hashing import verify_password
from portal.models import Account, AuthSession, LoginAttempt, OneTimeToken, OutboxEmail
from portal.models._base import utcnow
from portal.services.errors import ServiceError, ThrottledError
from portal.services.password_reset import (
    PasswordRulesError,
    ResetLinkError,
    check_token,
    check_token_throttled,
    request_reset,
    reset_password,
)
from portal.services.sessions import create_session, resolve_user
from portal.services.tokens import hash_token
from portal.settings import settings
from tests.support.factories import make_participant, unique_email
from tests.support.throttle import rewind

OLD = "Correct-Horse-42!"
NEW = "Blue-Tulip-Harbor-9"
IP = "198.51.100.23"


def _request(session, email, ip=IP):
    try:
        return request_reset(session=session, email=email, ip_address=ip)
    finally:
        session.commit()


def _reset(session, token, password=NEW, confirm=None, ip=IP):
    try:
        return reset_password(
            session=session,
            token=token,
            password=password,
            confirm_password=password if confirm is None else confirm,
            ip_address=ip,
        )
    finally:
        session.commit()


def _mails(session, to):
    session.expire_all()
    return session.exec(select(OutboxEmail).where(OutboxEmail.to_address == to).order_by(OutboxEmail.id)).all()


def _token_from_mail(session, to) -> str:
    mail = [m for m in _mails(session, to) if m.link][-1]
    parts = urlsplit(mail.link)
    assert f"{parts.scheme}://{parts.netloc}" == settings.base_url and parts.path == "/reset"
    assert mail.link in mail.body_text
    return parse_qs(parts.query)["token"][0]


def _tokens(session, account_id):
    session.expire_all()
    return session.exec(
        select(OneTimeToken).where(OneTimeToken.account_id == account_id, OneTimeToken.purpose == PURPOSE)
    ).all()


def test_request_stores_only_the_hash_of_a_256_bit_token_and_mails_the_link(session):
    account = make_participant(session)
    before = utcnow()
    result = _request(session, account.email.upper() + "  ")
    assert result.email == account.email and result.minutes == 60
    token = _token_from_mail(session, account.email)
    assert len(token) >= 43  # 32 random bytes, URL-safe base64
    (row,) = _tokens(session, account.id)
    assert row.token_hash == hash_token(token) and token not in row.token_hash
    assert row.used_at is None and row.email == account.email
    assert timedelta(minutes=59) < row.expires_at - before <= timedelta(minutes=60, seconds=5)
    mail = _mails(session, account.email)[-1]
    assert mail.kind == "reset-password" and mail.sent_at is None
    assert check_token(session=session, token=token)


def test_unknown_address_gets_the_same_answer_and_nothing_is_stored(session):
    email = unique_email("nobody")
    before_tokens = session.exec(select(func.count()).select_from(OneTimeToken)).one()
    result = _request(session, email)
    assert (result.email, result.minutes) == (email, 60)
    assert _mails(session, email) == []
    assert session.exec(select(func.count()).select_from(OneTimeToken)).one() == before_tokens


def test_account_without_a_password_gets_a_notice_not_a_link(session):
    account = make_participant(session)
    account.password_hash = None
    session.add(account)
    session.commit()
    _request(session, account.email)
    assert _tokens(session, account.id) == []
    (mail,) = _mails(session, account.email)
    assert mail.link is None and "LinkedIn or Google" in mail.body_text


@pytest.mark.parametrize(
    ("email", "message"),
    [("", "Email is required"), ("   ", "Email is required"), ("not-an-email", "Please enter a valid email address")],
)
def test_request_needs_a_valid_address(session, email, message):
    with pytest.raises(ServiceError) as err:
        _request(session, email)
    assert err.value.errors == {"email": message}


def test_reset_sets_the_password_ends_every_session_and_does_not_sign_in(session):
    account = make_participant(session, password=OLD)
    phone = create_session(session=session, account_id=account.id)
    laptop = create_session(session=session, account_id=account.id)
    session.commit()
    _request(session, account.email)
    token = _token_from_mail(session, account.email)

    account_id = _reset(session, token)
    assert account_id == account.id
    session.expire_all()
    stored = session.get(Account, account.id)
    assert verify_password(NEW, stored.password_hash)[0]
    assert not verify_password(OLD, stored.password_hash)[0]
    assert stored.password_hash.startswith("$argon2")
    assert stored.password_changed_at is not None
    assert resolve_user(session=session, token=phone) is None
    assert resolve_user(session=session, token=laptop) is None
    rows = session.exec(select(AuthSession).where(AuthSession.account_id == account.id)).all()
    assert len(rows) == 2 and all(r.revoked_at is not None for r in rows)  # no new session was opened
    notice = _mails(session, account.email)[-1]
    assert notice.kind == "password-changed"


def test_surrounding_spaces_are_not_part_of_the_new_password(session):
    account = make_participant(session)
    _request(session, account.email)
    _reset(session, _token_from_mail(session, account.email), password=f"  {NEW}  ")
    session.expire_all()
    assert verify_password(NEW, session.get(Account, account.id).password_hash)[0]


def test_a_link_works_once(session):
    account = make_participant(session)
    _request(session, account.email)
    token = _token_from_mail(session, account.email)
    _reset(session, token)
    assert not check_token(session=session, token=token)
    with pytest.raises(ResetLinkError) as err:
        _reset(session, token, password="Another-Fine-Password-7")
    assert err.value.errors == {"token": LINK_USED}


def test_an_expired_link_is_refused(session):
    account = make_participant(session)
    _request(session, account.email)
    token = _token_from_mail(session, account.email)
    (row,) = _tokens(session, account.id)
    row.expires_at = utcnow() - timedelta(seconds=1)
    session.add(row)
    session.commit()
    assert not check_token(session=session, token=token)
    with pytest.raises(ResetLinkError):
        _reset(session, token)


def test_a_link_dies_with_any_later_password_change(session):
    account = make_participant(session)
    _request(session, account.email)
    token = _token_from_mail(session, account.email)
    stored = session.get(Account, account.id)
    stored.password_changed_at = utcnow()  # e.g. changed on the profile page
    session.add(stored)
    session.commit()
    assert not check_token(session=session, token=token)
    with pytest.raises(ResetLinkError):
        _reset(session, token)


def test_a_reset_uses_up_every_other_outstanding_link(session):
    account = make_participant(session)
    _request(session, account.email)
    first = _token_from_mail(session, account.email)
    rewind(session, seconds=61)  # one reset e-mail a minute per address
    _request(session, account.email)
    second = _token_from_mail(session, account.email)
    assert first != second
    _reset(session, second)
    assert all(row.used_at is not None for row in _tokens(session, account.id))
    with pytest.raises(ResetLinkError):
        _reset(session, first, password="Another-Fine-Password-7")


@pytest.mark.parametrize("token", ["", "short", "x" * 43, "not a token!", None])
def test_unknown_or_malformed_links_are_refused(session, token):
    assert not check_token(session=session, token=token)
    with pytest.raises(ResetLinkError):
        _reset(session, token)


def test_a_link_of_a_removed_account_is_refused(session):
    account = make_participant(session)
    _request(session, account.email)
    token = _token_from_mail(session, account.email)
    stored = session.get(Account, account.id)
    stored.removed_at = utcnow()
    session.add(stored)
    session.commit()
    assert not check_token(session=session, token=token)


def test_rule_errors_keep_the_link_alive(session):
    account = make_participant(session)
    _request(session, account.email)
    token = _token_from_mail(session, account.email)
    with pytest.raises(PasswordRulesError) as err:
        _reset(session, token, password="short", confirm="")
    assert err.value.errors == {"password": policy.PASSWORD_INVALID, "confirmPassword": policy.PASSWORD_REQUIRED}
    with pytest.raises(PasswordRulesError) as err:
        _reset(session, token, password=NEW, confirm="Blue-Tulip-Harbor-8")
    assert err.value.errors == {"confirmPassword": "Passwords don't match"}
    with pytest.raises(PasswordRulesError):
        _reset(session, token, password="Password2024!")  # common
    assert check_token(session=session, token=token)
    _reset(session, token)


def test_the_current_password_is_refused_as_duplicated(session):
    account = make_participant(session, password=OLD)
    _request(session, account.email)
    token = _token_from_mail(session, account.email)
    with pytest.raises(PasswordRulesError) as err:
        _reset(session, token, password=f" {OLD} ")
    assert err.value.codes == {"password": "duplicated"}
    assert err.value.errors == {"password": policy.PASSWORD_DUPLICATED}
    assert check_token(session=session, token=token)


def test_requests_are_throttled_per_account_for_known_and_unknown_addresses(session):
    known = make_participant(session).email
    unknown = unique_email("ghost")
    for email in (known, unknown):
        for i in range(settings.reset_max_requests_per_account):
            _request(session, email, ip=f"203.0.113.{i}")
            rewind(session, seconds=61)  # one reset e-mail a minute per address
        with pytest.raises(ThrottledError) as err:
            _request(session, email, ip="203.0.113.200")
        assert err.value.field == "email"
        assert "Too many password reset requests" in err.value.message
    assert len([m for m in _mails(session, known) if m.link]) == settings.reset_max_requests_per_account
    keys = set(session.exec(select(LoginAttempt.key)).all())
    assert f"reset:{known}" in keys and f"reset:{unknown}" in keys


def test_requests_are_throttled_per_client_address(session):
    for _ in range(settings.reset_max_requests_per_ip):
        _request(session, unique_email("spray"), ip="192.0.2.77")
    with pytest.raises(ThrottledError):
        _request(session, unique_email("spray"), ip="192.0.2.77")
    _request(session, unique_email("spray"), ip="192.0.2.78")  # another client is not blocked


def test_refused_links_count_against_the_client_address(session):
    account = make_participant(session)
    _request(session, account.email, ip="192.0.2.10")
    token = _token_from_mail(session, account.email)
    used = settings.reset_max_requests_per_ip - 1  # the request above counted once
    for i in range(used):
        with pytest.raises(ResetLinkError):
            try:
                check_token_throttled(session=session, token=f"guess-{i:040d}", ip_address="192.0.2.10")
            finally:
                session.commit()
    with pytest.raises(ThrottledError):
        _reset(session, token, ip="192.0.2.10")
    _reset(session, token, ip="192.0.2.11")  # the owner elsewhere is not blocked


def test_a_successful_reset_lifts_the_sign_in_lock(session):
    account = make_participant(session)
    session.add(LoginAttempt(key=f"account:{account.email}"))
    session.commit()
    _request(session, account.email)
    _reset(session, _token_from_mail(session, account.email))
    session.expire_all()
    assert session.exec(select(LoginAttempt).where(LoginAttempt.key == f"account:{account.email}")).all() == []
