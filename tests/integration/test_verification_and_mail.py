"""Verification links, resends and the outbox sender against a real SMTP server on loopback."""

from __future__ import annotations

import asyncio
import re
from contextlib import contextmanager
from datetime import timedelta

import pytest
from sqlmodel import select

from portal.models import Account, OneTimeToken, OutboxEmail
from portal.models._base import utcnow
from portal.services import mail_sender
from portal.services.verification import ResendError, resend, send_account_verification, send_verification, use_link
from tests.support.factories import make_participant
from tests.support.smtp_server import SmtpServer
from tests.support.throttle import rewind


def _token_from_outbox(session, to: str) -> str:
    row = session.exec(select(OutboxEmail).where(OutboxEmail.to_address == to).order_by(OutboxEmail.id.desc())).first()
    return re.search(r"token=([\w-]+)", row.link).group(1)


def test_work_email_link_verifies_once_and_is_stored_hashed(session):
    account = make_participant(session, work_email_verified=False)
    send_verification(session=session, account=account, kind="work")
    session.commit()
    token = _token_from_outbox(session, account.work_email)
    stored = session.exec(select(OneTimeToken).where(OneTimeToken.account_id == account.id)).one()
    assert token not in stored.token_hash and stored.email == account.work_email
    assert use_link(session=session, token=token).status == "verified"
    session.commit()
    session.expire_all()
    assert session.get(Account, account.id).work_email_verified_at is not None
    assert use_link(session=session, token=token).status == "already"


def test_link_is_bound_to_the_address_it_was_sent_to(session):
    account = make_participant(session, email_verified=False)
    send_verification(session=session, account=account, kind="personal")
    session.commit()
    token = _token_from_outbox(session, account.email)
    account.email = "changed-" + account.email
    session.add(account)
    session.commit()
    assert use_link(session=session, token=token).status == "invalid"
    session.expire_all()
    assert session.get(Account, account.id).email_verified_at is None


def test_expired_and_unknown_links_verify_nothing(session):
    account = make_participant(session, email_verified=False)
    send_verification(session=session, account=account, kind="personal")
    session.commit()
    token = _token_from_outbox(session, account.email)
    row = session.exec(select(OneTimeToken).where(OneTimeToken.account_id == account.id)).one()
    row.expires_at = utcnow() - timedelta(seconds=1)
    session.add(row)
    session.commit()
    assert use_link(session=session, token=token).status == "invalid"
    assert use_link(session=session, token="x" * 43).status == "invalid"
    assert use_link(session=session, token="").status == "invalid"
    session.expire_all()
    assert session.get(Account, account.id).email_verified_at is None


def test_resend_for_a_verified_email_signals_already_verified(session):
    account = make_participant(session)
    with pytest.raises(ResendError) as err:
        resend(session=session, account_id=account.id, kind="work")
    assert err.value.already_verified and len(err.value.messages) == 2
    with pytest.raises(ResendError):
        resend(session=session, account_id=account.id, kind="bogus")


def test_resend_is_limited(session):
    account = make_participant(session, work_email_verified=False)
    for sent in range(1, 6):
        assert resend(session=session, account_id=account.id, kind="work") == "New verification email was sent."
        with pytest.raises(ResendError) as err:
            resend(session=session, account_id=account.id, kind="work")
        if sent < 5:  # one a minute
            assert err.value.message == "Please wait 60 seconds before asking for another email."
        else:  # five an hour: until the first one is an hour old
            assert err.value.message == "Please wait 56 minutes before asking for another email."
        rewind(session, seconds=61)


def test_verify_account_send(session):
    unverified = make_participant(session, email_verified=False)
    verified = make_participant(session)
    assert send_account_verification(session=session, account_id=unverified.id) == {
        "alreadyVerified": False,
        "toastMessage": "Verification email sent! Please check your inbox.",
    }
    assert send_account_verification(session=session, account_id=verified.id)["alreadyVerified"] is True


@contextmanager
def _factory_for(session):
    yield session
    session.commit()


def test_sender_delivers_over_smtp_and_retries_with_backoff(session):
    account = make_participant(session, work_email_verified=False)
    send_verification(session=session, account=account, kind="work")
    session.commit()
    factory = lambda: _factory_for(session)  # noqa: E731

    # SMTP down: the message stays, with an attempt counted and a later retry time.
    dead = mail_sender.SmtpTarget("127.0.0.1", 1, security="none")
    assert asyncio.run(mail_sender.send_due(factory, dead)) == 0
    session.expire_all()
    row = session.exec(select(OutboxEmail).where(OutboxEmail.to_address == account.work_email)).one()
    assert row.attempts == 1 and row.sent_at is None and row.last_error
    assert row.next_attempt_at > utcnow() + timedelta(seconds=20)

    # Not due yet: nothing is sent even with SMTP up.
    server = SmtpServer().start()
    try:
        target = mail_sender.SmtpTarget("127.0.0.1", server.port, security="none")
        assert asyncio.run(mail_sender.send_due(factory, target)) == 0
        row.next_attempt_at = utcnow() - timedelta(seconds=1)
        session.add(row)
        session.commit()
        assert asyncio.run(mail_sender.send_due(factory, target)) == 1
        received = server.wait_for(account.work_email, subject_contains="Verify your work email")
        assert row.link in received.links()
        # Sent once: another round sends nothing.
        assert asyncio.run(mail_sender.send_due(factory, target)) == 0
        assert server.count_to(account.work_email) == 1
    finally:
        server.stop()
    session.expire_all()
    assert session.get(OutboxEmail, row.id).sent_at is not None


def test_two_senders_never_claim_the_same_message(session):
    account = make_participant(session, work_email_verified=False)
    send_verification(session=session, account=account, kind="work")
    session.commit()
    first = mail_sender.claim_due(session=session)
    session.commit()
    second = mail_sender.claim_due(session=session)
    assert [r.to_address for r in first] == [account.work_email]
    assert second == []
