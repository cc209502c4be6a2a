"""Account settings (issue 40, item 1) on SQLite and PostgreSQL: the password change asks the current password first
(wrong ones counted, then a wait), keeps the spec's rules, ends every other session but not this one and e-mails the
owner; the sessions list is the caller's own; signing a device out works only on the caller's own sessions."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlmodel import Session

from portal.domain import account_settings as rules
from portal.domain import password_policy as policy
from portal.domain.passwords_hashing import verify_password
from portal.models import Account, AuthSession, OutboxEmail
from portal.services import account_settings as service
from portal.services.errors import ServiceError, ThrottledError
from portal.services.sessions import create_session, resolve_user
from tests.support.factories import make_participant
from tests.support.races import all_at_once

OLD = "Correct-Horse-42!"
NEW = "Blue-Tulip-Harbor-9"
CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.0 Mobile/15E148 Safari/604.1"
)


def _two_devices(session: Session) -> tuple[Account, str, str]:
    account = make_participant(session, password=OLD)
    here = create_session(session, account_id=account.id, user_agent=CHROME, ip_address="127.0.0.1")
    there = create_session(session, account_id=account.id, user_agent=IPHONE, ip_address="198.51.100.20")
    session.commit()
    return account, here, there


def _change(session: Session, token: str, current: str = OLD, new: str = NEW, confirm: str | None = None) -> None:
    try:
        service.change_password(
            session,
            token=token,
            current_password=current,
            password=new,
            confirm_password=new if confirm is None else confirm,
        )
    finally:
        session.commit()  # as the route does: a recorded wrong password stays recorded


def _mails(session: Session, to: str) -> list[OutboxEmail]:
    session.expire_all()
    query = select(OutboxEmail).where(OutboxEmail.kind == "password-changed", OutboxEmail.to_address == to)
    return list(session.execute(query).scalars())


def test_change_keeps_this_session_ends_the_others_and_mails_the_owner(session):
    account, here, there = _two_devices(session)
    _change(session, here)
    session.expire_all()
    assert verify_password(NEW, session.get(Account, account.id).password_hash)[0]
    assert resolve_user(session, token=here) is not None
    assert resolve_user(session, token=there) is None
    [mail] = _mails(session, account.email)
    assert "every other signed-in device was signed out" in mail.body_text


@pytest.mark.parametrize(
    ("current", "new", "confirm", "field", "message"),
    [
        ("", NEW, NEW, rules.CURRENT_FIELD, rules.CURRENT_REQUIRED),
        ("Not-The-Password-1!", NEW, NEW, rules.CURRENT_FIELD, rules.CURRENT_WRONG),
        (OLD, "short", "short", policy.PASSWORD_FIELD, policy.PASSWORD_INVALID),
        (OLD, NEW, NEW + "x", policy.CONFIRM_FIELD, policy.PASSWORDS_DONT_MATCH),
        (OLD, OLD, OLD, policy.PASSWORD_FIELD, policy.PASSWORD_DUPLICATED),
    ],
)
def test_refusals_name_the_field_and_change_nothing(session, current, new, confirm, field, message):
    account, here, there = _two_devices(session)
    with pytest.raises(ServiceError) as refused:
        _change(session, here, current, new, confirm)
    assert refused.value.errors[field] == message
    session.expire_all()
    assert verify_password(OLD, session.get(Account, account.id).password_hash)[0]
    assert resolve_user(session, token=there) is not None
    assert _mails(session, account.email) == []


def test_wrong_current_passwords_are_counted_then_the_form_waits(session):
    account, here, _there = _two_devices(session)
    for _ in range(rules.MAX_WRONG_CURRENT):
        with pytest.raises(ServiceError) as wrong:
            _change(session, here, current="Not-The-Password-1!")
        assert not isinstance(wrong.value, ThrottledError)
    with pytest.raises(ThrottledError) as waits:
        _change(session, here)  # even the right one waits now
    assert waits.value.errors[rules.CURRENT_FIELD].startswith("Too many incorrect passwords. Please wait")
    session.expire_all()
    assert verify_password(OLD, session.get(Account, account.id).password_hash)[0]


def test_no_session_no_change_and_an_oidc_account_has_no_password(session):
    with pytest.raises(service.NotSignedIn):
        _change(session, "not-a-token")
    account = make_participant(session)
    account.password_hash = None
    session.add(account)
    token = create_session(session, account_id=account.id)
    session.commit()
    assert service.has_password(session, token=token) is False
    with pytest.raises(ServiceError) as refused:
        _change(session, token)
    assert refused.value.errors["_global"] == rules.NO_PASSWORD


def test_concurrent_identical_changes_change_it_once(session, db_url):
    account, here, _there = _two_devices(session)
    results = all_at_once(
        db_url,
        [lambda s: service.change_password(s, token=here, current_password=OLD, password=NEW, confirm_password=NEW)]
        * 10,
    )
    assert sum(1 for r in results if r is None) == 1, results
    assert all(isinstance(r, ServiceError) for r in results if r is not None)
    assert len(_mails(session, account.email)) == 1


def test_the_list_is_the_callers_own_with_this_device_first(session):
    account, here, there = _two_devices(session)
    stranger = make_participant(session)
    create_session(session, account_id=stranger.id, user_agent=CHROME)
    session.commit()
    found = service.signed_in_sessions(session, token=here)
    assert [(s.current, s.device, s.place) for s in found] == [
        (True, "Chrome 156 on Linux", "This computer"),
        (False, "Mobile Safari 17 on iPhone (iOS 17)", "Address 198.51.100.20"),
    ]
    assert [s.mobile for s in found] == [False, True]


def test_sign_out_one_device_and_everywhere_else(session):
    account, here, there = _two_devices(session)
    third = create_session(session, account_id=account.id, user_agent=CHROME)
    stranger = make_participant(session)
    foreign = create_session(session, account_id=stranger.id)
    session.commit()
    ids = {row.token_hash: row.id for row in session.execute(select(AuthSession)).scalars()}
    from portal.services.tokens import hash_token

    # Another account's session, this session, a made-up id, a string: refused, nothing changes.
    for other in (ids[hash_token(foreign)], ids[hash_token(here)], 10**9, str(ids[hash_token(there)]), True):
        with pytest.raises(ServiceError) as refused:
            service.sign_out_session(session, token=here, session_id=other)
        assert refused.value.errors["_global"] == rules.SESSION_GONE
        session.rollback()
    assert resolve_user(session, token=foreign) is not None

    service.sign_out_session(session, token=here, session_id=ids[hash_token(there)])
    session.commit()
    assert resolve_user(session, token=there) is None
    with pytest.raises(ServiceError):  # already ended
        service.sign_out_session(session, token=here, session_id=ids[hash_token(there)])
    session.rollback()
    assert service.sign_out_others(session, token=here) == 1
    session.commit()
    assert resolve_user(session, token=third) is None
    assert resolve_user(session, token=here) is not None
    assert resolve_user(session, token=foreign) is not None
