"""'Delete my account' (issue 40, item 2) on SQLite and PostgreSQL: the e-mailed link deletes once; afterwards the
password and the sessions open nothing, the personal data is gone, the rewards ledger sums the same, the audit rows
remain with the person replaced by an id, and staff see 'Deleted' and cannot reactivate it."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain import account_deletion as rules
from portal.domain.staff import roles
from portal.models import (
    Account,
    AuditEntry,
    LoginIdentity,
    Message,
    MessageThread,
    OutboxEmail,
    ParticipantProfile,
    PhoneContact,
    Review,
    Reward,
)
from portal.services import account_deletion as service
from portal.services.admin import participants
from portal.services.errors import ServiceError, SignInError, ThrottledError
from portal.services.sessions import create_session, resolve_user
from portal.services.sign_in import sign_in_with_password
from tests.integration.test_admin_services import a_review, a_test, person
from tests.support.factories import make_participant
from tests.support.races import all_at_once

PASSWORD = "Correct-Horse-42!"


def _link_token(session: Session, to: str) -> str:
    session.expire_all()
    mail = (
        session.execute(select(OutboxEmail).where(OutboxEmail.kind == "delete-account", OutboxEmail.to_address == to))
        .scalars()
        .all()[-1]
    )
    return mail.link.split("token=", 1)[1]


def _ledger(session: Session, account_id: int) -> tuple:
    session.expire_all()
    return session.execute(
        select(func.count(), func.sum(Reward.amount_cents)).where(Reward.account_id == account_id)
    ).one()


def _someone(session: Session) -> tuple[Account, str]:
    account = make_participant(session, password=PASSWORD, first_name="Delia", last_name="Deleter")
    test = a_test(session)
    a_review(session, test, account, answers={"q1": "An answer"}, cents=2000)
    a_review(session, a_test(session), account, cents=3000, approved=True)
    session.add(LoginIdentity(account_id=account.id, provider="google", subject="g-123", email=account.email))
    session.add(PhoneContact(account_id=account.id, phone="+14155550199"))
    thread = MessageThread(account_id=account.id, subject="Hello")
    session.add(thread)
    session.flush()
    session.add(Message(thread_id=thread.id, body="A private message", author_id=account.id))
    session.add(
        AuditEntry(
            actor_id=account.id,
            actor_email=account.email,
            action="appeal.create",
            target_type="review",
            target_id="1",
            after={"by": account.email, "note": f"asked by {account.email}"},
        )
    )
    token = create_session(session, account_id=account.id)
    session.commit()
    return account, token


def test_the_link_deletes_the_account_and_keeps_the_ledger_and_the_audit(session):
    account, token = _someone(session)
    account_id, email = account.id, account.email
    ledger = _ledger(session, account_id)
    answers = session.execute(select(Review.answers).where(Review.account_id == account_id)).scalars().all()

    assert service.request_deletion(session, token=token) == email
    session.commit()
    link = _link_token(session, email)
    assert resolve_user(session, token=token) is not None  # nothing happens before the link is opened
    assert service.link_usable(session, token=link)
    service.delete_account(session, token=link)
    session.commit()

    assert resolve_user(session, token=token) is None
    with pytest.raises(SignInError):
        sign_in_with_password(session, email=email, password=PASSWORD)
    session.rollback()
    session.expire_all()
    gone = session.get(Account, account_id)
    assert gone.deleted_at is not None and gone.removed_at is not None
    assert (gone.email, gone.work_email, gone.password_hash) == (None, None, None)
    profile = session.get(ParticipantProfile, account_id)
    assert (profile.first_name, profile.last_name, profile.job_title) == (None, None, None)
    assert session.get(PhoneContact, account_id) is None
    assert session.execute(select(LoginIdentity).where(LoginIdentity.account_id == account_id)).first() is None
    assert session.execute(select(Message).where(Message.body == "A private message")).first() is None
    assert _ledger(session, account_id) == ledger
    assert session.execute(select(Review.answers).where(Review.account_id == account_id)).scalars().all() == answers
    entries = session.execute(select(AuditEntry).where(AuditEntry.actor_id == account_id)).scalars().all()
    assert {e.action for e in entries} == {"appeal.create", "account.deleted"}
    everything = " ".join(f"{e.actor_email} {e.before} {e.after}" for e in entries)
    assert email not in everything and rules.placeholder(account_id) in everything
    mails = session.execute(select(OutboxEmail.to_address)).scalars().all()
    assert email not in mails

    with pytest.raises(service.LinkDead):  # once
        service.delete_account(session, token=link)


def test_staff_see_deleted_and_cannot_reactivate(session):
    account, token = _someone(session)
    service.request_deletion(session, token=token)
    session.commit()
    service.delete_account(session, token=_link_token(session, account.email))
    session.commit()
    admin = person(session, role=roles.SUPER_ADMIN)
    with pytest.raises(ServiceError) as refused:
        participants.set_active(session, actor_id=admin.id, account_id=account.id, active=True)
    assert refused.value.message == participants.DELETED


def test_staff_cannot_and_links_are_limited(session):
    staff = person(session, role=roles.TEAM_MANAGER)
    staff_token = create_session(session, account_id=staff.id)
    session.commit()
    with pytest.raises(ServiceError) as refused:
        service.request_deletion(session, token=staff_token)
    assert refused.value.message == rules.STAFF

    account, token = _someone(session)
    for _ in range(rules.MAX_LINKS_PER_HOUR):
        service.request_deletion(session, token=token)
        session.commit()
    with pytest.raises(ThrottledError):
        service.request_deletion(session, token=token)
    for dead in (None, "", "x" * 43):
        assert service.link_usable(session, token=dead) is False
        with pytest.raises(service.LinkDead):
            service.delete_account(session, token=dead)


def test_fifty_identical_confirmations_delete_once(session, db_url):
    account, token = _someone(session)
    service.request_deletion(session, token=token)
    session.commit()
    link = _link_token(session, account.email)
    results = all_at_once(db_url, [lambda s: service.delete_account(s, token=link)] * 50)
    assert results.count(account.id) == 1, [r for r in results if r != account.id][:3]
    assert all(isinstance(r, ServiceError) for r in results if r != account.id)
    session.expire_all()
    deleted = session.execute(
        select(func.count()).select_from(AuditEntry).where(AuditEntry.action == "account.deleted")
    ).scalar_one()
    assert deleted == 1
