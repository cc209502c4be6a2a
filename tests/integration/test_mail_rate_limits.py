"""E-mail rate limits (issue 12): verification resends, e-mail changes and forgot-password.

One message per minute per account and kind and per address and kind, five verification e-mails
an hour per account and kind and per address; time passes by moving the recorded events back
(`tests.support.throttle.rewind`), never by sleeping.
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from sqlmodel import func, select

from portal.models import Account, OneTimeToken, OutboxEmail
from portal.services import onboarding
from portal.services import profile as profile_service
from portal.services.errors import ServiceError, ThrottledError
from portal.services.password_reset import request_reset
from portal.services.seeding import seed_reference
from portal.services.verification import ResendError, resend, send_account_verification
from tests.support.factories import make_participant, unique_email
from tests.support.throttle import rewind

SENT = "New verification email was sent."
TODAY = dt.date(2026, 11, 21)


def _wait(seconds: int) -> str:
    return f"Please wait {seconds} seconds before asking for another email."


def _mails(session, to: str | None = None) -> int:
    session.expire_all()
    query = select(func.count()).select_from(OutboxEmail)
    if to is not None:
        query = query.where(OutboxEmail.to_address == to)
    return session.exec(query).one()


def _tokens(session, account_id: int) -> int:
    return session.exec(
        select(func.count()).select_from(OneTimeToken).where(OneTimeToken.account_id == account_id)
    ).one()


def _resend(session, account_id: int, kind: str = "work") -> str:
    try:
        return resend(session=session, account_id=account_id, kind=kind)
    finally:
        session.commit()


def _work_address() -> str:
    return f"pat-{uuid.uuid4().hex[:10]}@initech.example"


def _move_work_email(session, account: Account, address: str) -> None:
    account.work_email, account.work_email_verified_at = address, None
    session.add(account)
    session.commit()


# --- resend -----------------------------------------------------------------------------------


def test_a_second_resend_within_the_cooldown_is_refused_and_queues_nothing(session):
    account = make_participant(session, work_email_verified=False)
    assert _resend(session, account.id) == SENT
    mails, tokens = _mails(session), _tokens(session, account.id)

    with pytest.raises(ResendError) as err:
        _resend(session, account.id)
    assert err.value.message == _wait(60)
    assert not err.value.already_verified
    assert (_mails(session), _tokens(session, account.id)) == (mails, tokens)

    rewind(session, seconds=15)  # the message counts down
    with pytest.raises(ResendError) as err:
        _resend(session, account.id)
    assert err.value.message == _wait(45)

    rewind(session, seconds=46)  # the cooldown is over
    assert _resend(session, account.id) == SENT
    assert _mails(session, account.work_email) == 2


def test_each_kind_has_its_own_cooldown(session):
    account = make_participant(session, email_verified=False, work_email_verified=False)
    assert _resend(session, account.id, "work") == SENT
    assert _resend(session, account.id, "personal") == SENT
    with pytest.raises(ResendError):
        _resend(session, account.id, "personal")


def test_the_verify_account_page_shows_the_wait(session):
    account = make_participant(session, email_verified=False)
    assert send_account_verification(session=session, account_id=account.id)["alreadyVerified"] is False
    session.commit()
    with pytest.raises(ServiceError) as err:
        send_account_verification(session=session, account_id=account.id)
    assert err.value.message == _wait(60)


def test_the_address_is_limited_across_accounts(session):
    address = _work_address()
    first = make_participant(session)
    _move_work_email(session, first, address)
    assert _resend(session, first.id) == SENT

    # The address moves to another account: its cooldown goes with the address.
    _move_work_email(session, first, _work_address())
    second = make_participant(session)
    _move_work_email(session, second, address)
    with pytest.raises(ResendError) as err:
        _resend(session, second.id)
    # 60 s less the time the test took since the first send (a second on a loaded machine).
    assert err.value.message in (_wait(60), _wait(59))
    assert _mails(session, address) == 1

    # Five an hour per address, whichever accounts ask.
    holder = second
    for _ in range(4):
        rewind(session, seconds=61)
        assert _resend(session, holder.id) == SENT
        _move_work_email(session, holder, _work_address())
        holder = make_participant(session)
        _move_work_email(session, holder, address)
    rewind(session, seconds=61)
    with pytest.raises(ResendError) as err:
        _resend(session, holder.id)
    assert err.value.message == "Please wait 55 minutes before asking for another email."  # 5 x 61 s ago
    assert _mails(session, address) == 5


# --- e-mail changes ---------------------------------------------------------------------------


def test_a_second_work_email_change_within_the_cooldown_saves_nothing(session):
    seed_reference(session)
    session.commit()
    account = make_participant(session)
    first, second = _work_address(), _work_address()

    def save(work_email):
        raw = {
            "firstName": "Avery",
            "lastName": "Tester",
            "email": account.email,
            "workEmail": work_email,
            "languages": ["english"],
        }
        try:
            return profile_service.save_profile(session=session, actor_id=account.id, raw=raw, today=TODAY)
        finally:
            session.commit()

    assert save(first).verification_sent_to == [first]
    with pytest.raises(ThrottledError) as err:
        save(second)
    assert err.value.message == _wait(60)
    session.expire_all()
    assert session.get(Account, account.id).work_email == first
    assert _mails(session, second) == 0

    rewind(session, seconds=61)
    assert save(second).verification_sent_to == [second]
    assert _mails(session, second) == 1


def test_finishing_the_sign_up_again_with_another_work_email_waits(session):
    account = make_participant(session, registration_complete=False, verified=False)
    fields = {
        "firstName": "Nia",
        "lastName": "Newman",
        "jobTitle": "Head of Finance",
        "email": account.email,
        "companyName": "Northwind",
        "employerHqCountry": "DE",
    }
    first, second = _work_address(), _work_address()

    def finish(work_email):
        try:
            return onboarding.finish_sign_up(
                session=session, account_id=account.id, raw={**fields, "workEmail": work_email}
            )
        finally:
            session.commit()

    assert finish(first).sent_to == (first,)
    with pytest.raises(ThrottledError) as err:
        finish(second)
    assert err.value.message == _wait(60)
    session.expire_all()
    assert session.get(Account, account.id).work_email == first and _mails(session, second) == 0
    # The last step's Resend waits too.
    with pytest.raises(ServiceError) as err:
        onboarding.resend_work_email(session=session, account_id=account.id)
    assert err.value.message == _wait(60)

    rewind(session, seconds=61)
    assert finish(second).sent_to == (second,)


# --- forgot password --------------------------------------------------------------------------


def _forgot(session, email, ip="198.51.100.9"):
    try:
        return request_reset(session=session, email=email, ip_address=ip)
    finally:
        session.commit()


def test_forgot_password_waits_alike_for_known_and_unknown_addresses(session):
    known = make_participant(session).email
    unknown = unique_email("ghost")
    answers = {}
    for email in (known, unknown):
        first = _forgot(session, email)
        rewind(session, seconds=20)
        with pytest.raises(ThrottledError) as err:
            _forgot(session, email, ip="198.51.100.10")  # another client: the address is what counts
        answers[email] = (first.minutes, first.email == email, err.value.field, err.value.message)
    assert answers[known] == answers[unknown] == (60, True, "email", _wait(40))
    assert _mails(session, known) == 1 and _mails(session, unknown) == 0

    rewind(session, seconds=41)
    assert _forgot(session, known).email == known
    assert _forgot(session, unknown).email == unknown
    assert _mails(session, known) == 2


def test_resets_asked_by_a_stranger_do_not_use_up_the_owners_verification_emails(session):
    account = make_participant(session, email_verified=False)
    for i in range(5):
        _forgot(session, account.email, ip=f"192.0.2.{i}")
        rewind(session, seconds=61)
    assert _resend(session, account.id, "personal") == SENT
