"""Two-factor sign-in (issue 40, item 1) on SQLite and PostgreSQL: turned on by a code from the app with ten recovery
codes kept hashed; a password sign-in of such an account opens no session until the code; a step's code and a
recovery code work once; wrong codes end the challenge after five; 50 identical completions open one session; staff
act from a tab only with it on, and cannot turn it off."""

from __future__ import annotations

import time
from datetime import timedelta

import pyotp
import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain import two_factor as rules
from portal.domain.staff import roles
from portal.models import AuthSession, RecoveryCode, TwoFactor
from portal.models._base import utcnow
from portal.services import two_factor as service
from portal.services.admin.guard import SessionCaller, StaffRefused, require_staff
from portal.services.errors import ServiceError
from portal.services.sessions import create_session, resolve_user
from portal.services.sign_in import sign_in_with_password
from tests.support.factories import make_participant
from tests.support.races import all_at_once

PASSWORD = "Correct-Horse-42!"


def _code(secret: str, steps_ahead: int = 0) -> str:
    return pyotp.TOTP(secret).generate_otp(int(time.time()) // 30 + steps_ahead)


def _turned_on(session: Session) -> tuple[int, str, str, list[str]]:
    """A participant with two-factor sign-in on: (account id, session token, secret, recovery codes)."""
    account = make_participant(session, password=PASSWORD)
    token = create_session(session, account_id=account.id)
    session.commit()
    setup = service.start_setup(session, token=token)
    session.commit()
    codes = service.confirm_setup(session, token=token, code=_code(setup.secret))
    session.commit()
    return account.id, token, setup.secret, codes


def _sessions(session: Session, account_id: int) -> int:
    session.expire_all()
    return session.execute(
        select(func.count()).select_from(AuthSession).where(AuthSession.account_id == account_id)
    ).scalar_one()


def test_turning_it_on_needs_a_right_code_and_gives_ten_hashed_codes(session):
    account = make_participant(session)
    token = create_session(session, account_id=account.id)
    session.commit()
    assert service.status(session, token=token).enabled is False
    setup = service.start_setup(session, token=token)
    assert setup.uri.startswith("otpauth://totp/")
    stored = session.get(TwoFactor, account.id)
    assert setup.secret not in stored.secret  # kept encrypted
    with pytest.raises(ServiceError) as wrong:
        service.confirm_setup(session, token=token, code="000000" if _code(setup.secret) != "000000" else "111111")
    assert wrong.value.errors["code"] == rules.CODE_WRONG
    codes = service.confirm_setup(session, token=token, code=_code(setup.secret))
    session.commit()
    assert len(set(codes)) == 10
    hashes = session.execute(select(RecoveryCode.code_hash).where(RecoveryCode.account_id == account.id)).scalars()
    assert sorted(hashes) == sorted(rules.recovery_hash(c) for c in codes)
    assert service.status(session, token=token) == service.Status(enabled=True, codes_left=10, required=False)
    with pytest.raises(ServiceError):  # on already: no new secret
        service.start_setup(session, token=token)


def test_a_password_sign_in_waits_for_the_code_and_each_code_works_once(session):
    account_id, _token, secret, codes = _turned_on(session)
    email = resolve_user(session, token=_token).email
    before = _sessions(session, account_id)
    first = sign_in_with_password(session, email=email, password=PASSWORD)
    session.commit()
    assert first.token == "" and first.challenge
    assert _sessions(session, account_id) == before  # no session yet

    # The step's code was used to turn it on: the next step's code (one ahead is accepted) works, once.
    ahead = _code(secret, 1)  # one code, reused below whatever the clock does meanwhile
    passed = service.complete_challenge(session, challenge=first.challenge, code=ahead)
    session.commit()
    assert resolve_user(session, token=passed.token).account_id == account_id
    with pytest.raises(service.ChallengeExpired):  # the challenge is spent
        service.complete_challenge(session, challenge=first.challenge, code=ahead)

    second = sign_in_with_password(session, email=email, password=PASSWORD)
    session.commit()
    with pytest.raises(ServiceError) as replay:
        service.complete_challenge(session, challenge=second.challenge, code=ahead)
    assert replay.value.errors["code"] == rules.CODE_WRONG
    session.commit()
    passed = service.complete_challenge(session, challenge=second.challenge, code=codes[0].upper())
    session.commit()
    assert resolve_user(session, token=passed.token) is not None

    third = sign_in_with_password(session, email=email, password=PASSWORD)
    session.commit()
    with pytest.raises(ServiceError):  # a recovery code works once
        service.complete_challenge(session, challenge=third.challenge, code=codes[0])
    session.commit()
    assert service.status(session, token=passed.token).codes_left == 9


def test_five_wrong_codes_end_the_challenge(session):
    account_id, token, secret, _codes = _turned_on(session)
    email = resolve_user(session, token=token).email
    started = sign_in_with_password(session, email=email, password=PASSWORD)
    session.commit()
    wrong = "123456" if _code(secret, 1) != "123456" else "654321"
    for _ in range(rules.MAX_TRIES - 1):
        with pytest.raises(ServiceError) as refused:
            service.complete_challenge(session, challenge=started.challenge, code=wrong)
        assert not isinstance(refused.value, service.ChallengeExpired)
        session.commit()
    with pytest.raises(service.ChallengeExpired):
        service.complete_challenge(session, challenge=started.challenge, code=wrong)
    session.commit()
    with pytest.raises(service.ChallengeExpired):  # even the right code now
        service.complete_challenge(session, challenge=started.challenge, code=_code(secret, 1))
    assert service.challenge_open(session, challenge=started.challenge) is False


def test_an_old_or_made_up_challenge_opens_nothing(session):
    account_id, token, secret, _codes = _turned_on(session)
    challenge = service.begin_challenge(session, account_id=account_id)
    session.commit()
    from portal.models import OneTimeToken

    row = session.execute(select(OneTimeToken).where(OneTimeToken.purpose == "two-factor")).scalars().first()
    row.expires_at = utcnow() - timedelta(seconds=1)
    session.add(row)
    session.commit()
    for stale in (challenge, "x" * 43, "", None):
        with pytest.raises(service.ChallengeExpired):
            service.complete_challenge(session, challenge=stale, code=_code(secret, 1))


def test_fifty_identical_completions_open_one_session(session, db_url):
    account_id, token, secret, _codes = _turned_on(session)
    challenge = service.begin_challenge(session, account_id=account_id)
    session.commit()
    before = _sessions(session, account_id)
    code = _code(secret, 1)
    results = all_at_once(db_url, [lambda s: service.complete_challenge(s, challenge=challenge, code=code)] * 50)
    assert sum(1 for r in results if isinstance(r, service.Passed)) == 1, [r for r in results][:3]
    assert all(isinstance(r, ServiceError) for r in results if not isinstance(r, service.Passed))
    assert _sessions(session, account_id) == before + 1


def test_turning_it_off_needs_a_code_and_staff_keep_it(session):
    account_id, token, secret, codes = _turned_on(session)
    with pytest.raises(ServiceError):
        service.turn_off(session, token=token, code="")
    service.turn_off(session, token=token, code=codes[3])
    session.commit()
    assert service.status(session, token=token) == service.Status(enabled=False, codes_left=0, required=False)

    staff_id, staff_token, staff_secret, _ = _turned_on(session)
    from portal.models import Account

    staff = session.get(Account, staff_id)
    staff.staff_role = roles.SUPER_ADMIN
    session.add(staff)
    session.commit()
    with pytest.raises(ServiceError) as refused:
        service.turn_off(session, token=staff_token, code=_code(staff_secret, 1))
    assert refused.value.errors["_global"] == rules.STAFF_KEEP


def test_staff_act_from_a_tab_only_with_it_on(session):
    staff = make_participant(session)
    staff.staff_role = roles.SUPER_ADMIN
    session.add(staff)
    token = create_session(session, account_id=staff.id)
    session.commit()
    with pytest.raises(StaffRefused):
        require_staff(session, SessionCaller(token))
    assert require_staff(session, staff.id).account_id == staff.id  # a job or the command line names the account
    setup = service.start_setup(session, token=token)
    service.confirm_setup(session, token=token, code=_code(setup.secret))
    session.commit()
    assert require_staff(session, SessionCaller(token)).account_id == staff.id
