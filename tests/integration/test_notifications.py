"""Notifications through the outbox (issue 38, item 1) on SQLite and PostgreSQL: each hook queues its e-mail once
(an invite batch, the reminder job, verification, a review decided, a reward sent or failed); 50 identical sends at
once give one notification; a kind turned off queues nothing; the one-click unsubscribe works by token with no
session and a forged token changes nothing; the loopback SMTP server receives the List-Unsubscribe headers."""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlmodel import Session
from starlette.testclient import TestClient

from portal import db
from portal.domain import emails
from portal.domain.staff import roles
from portal.domain.table import format_money
from portal.http.app import build_api
from portal.models import Invite, Notification, NotificationOptOut, OutboxEmail
from portal.models._base import utcnow
from portal.services import invite_reminders, mail_sender, notification_settings, notifications, payouts
from portal.services import notification_tokens as tokens
from portal.services.admin import participants, reviews
from portal.services.errors import ServiceError
from tests.integration.test_admin_services import a_review, a_test, fresh, person
from tests.integration.test_invite_audience import send as send_batch
from tests.support.races import all_at_once
from tests.support.smtp_server import SmtpServer

TM = roles.TEAM_MANAGER


def outbox(session: Session, kind: str, to: str | None = None) -> list[OutboxEmail]:
    session.expire_all()
    query = select(OutboxEmail).where(OutboxEmail.kind == kind).order_by(OutboxEmail.id)
    if to is not None:
        query = query.where(OutboxEmail.to_address == to)
    return list(session.execute(query).scalars())


def notes(session: Session, kind: str) -> int:
    return session.execute(select(func.count()).select_from(Notification).where(Notification.kind == kind)).scalar_one()


def turn_off(session: Session, account_id: int, kind: str) -> None:
    notification_settings.set_on(session, account_id=account_id, kind=kind, on=False)
    session.commit()


def hello(n: int = 1) -> emails.Email:
    return emails.Email(subject=f"Hello {n}", body="Hello.")


# --- invites ---------------------------------------------------------------------------------------------


def test_a_batch_queues_one_invite_e_mail_per_invite_with_its_unsubscribe_link(session):
    manager = person(session, role=TM, country="US")
    test = a_test(session, product_type="landing-page", session_seconds=900)
    people = [person(session, country="US", levels=["middle"]) for _ in range(3)]
    turn_off(session, people[2].id, "invite")

    batch = send_batch(session, {"manager": manager, "test": test}, {"ids": [p.id for p in people]})
    assert batch["sent"] == 3  # the invite is made; only its e-mail is not sent to who turned invites off

    mails = outbox(session, "invite")
    assert sorted(m.to_address for m in mails) == sorted(p.email for p in people[:2])
    made = {i.account_id: i for i in session.execute(select(Invite).where(Invite.test_id == test.id)).scalars()}
    invite_of = {account_id: invite.id for account_id, invite in made.items()}
    by_email = {p.email: p for p in people}
    for mail in mails:
        who = by_email[mail.to_address]
        pays = format_money(made[who.id].amount_cents)
        assert f"a Landing page test that pays {pays} once your answers are approved" in mail.body_text
        assert "15 minutes" in mail.body_text and "24 hours" in mail.body_text
        assert f"/test/{test.id}/rate" in mail.body_text and "/notifications" in mail.body_text
        assert tokens.read(mail.unsubscribe_url.rsplit("/", 1)[1]) == (who.id, "invite")
    keys = set(session.execute(select(Notification.subject_key).where(Notification.kind == "invite")).scalars())
    assert keys == {f"invite:{invite_of[p.id]}" for p in people[:2]}

    # The same event told again queues nothing.
    again = [notifications.Pending(p.id, p.email, f"invite:{invite_of[p.id]}", hello()) for p in people]
    assert notifications.send(session, "invite", again) == 0
    session.commit()
    assert len(outbox(session, "invite")) == 2


def test_the_reminder_goes_once_to_open_invites_about_to_expire(session):
    test = a_test(session)
    soon, later, done = (person(session) for _ in range(3))
    now = utcnow()
    for who, hours, status in ((soon, 3, "open"), (later, 10, "open"), (done, 2, "completed")):
        session.add(
            Invite(
                account_id=who.id,
                test_id=test.id,
                amount_cents=2000,
                status=status,
                expires_at=now + timedelta(hours=hours),
            )
        )
    session.commit()

    assert invite_reminders.remind(session, now=now, hours=4) == 1
    session.commit()
    [mail] = outbox(session, "invite-reminder")
    assert mail.to_address == soon.email and "ends in about 3 hours" in mail.body_text and mail.unsubscribe_url
    # Every worker runs the job: the next rounds queue nothing more.
    assert invite_reminders.remind(session, now=now + timedelta(minutes=5), hours=4) == 0
    results = all_at_once(
        session.get_bind().url.render_as_string(hide_password=False),
        [lambda s: invite_reminders.remind(s, now=now + timedelta(minutes=6), hours=4) for _ in range(5)],
    )
    assert results == [0] * 5
    assert len(outbox(session, "invite-reminder")) == 1


# --- exactly once, turned off ------------------------------------------------------------------------------


def test_fifty_identical_sends_at_once_give_one_notification(session, db_url):
    who = person(session)

    def call(s: Session) -> bool:
        return notifications.notify(s, kind="message", account_id=who.id, subject_key="message:7", message=hello())

    results = all_at_once(db_url, [call] * 50)
    assert sorted(results, key=str) == [False] * 49 + [True], [r for r in results if not isinstance(r, bool)][:3]
    assert notes(session, "message") == 1
    assert len(outbox(session, "message", who.email)) == 1


def test_a_kind_turned_off_queues_nothing_until_turned_on_again(session):
    who = person(session)
    turn_off(session, who.id, "review-approved")
    turn_off(session, who.id, "review-approved")  # twice: the same
    assert not notifications.notify(
        session, kind="review-approved", account_id=who.id, subject_key="review:1", message=hello()
    )
    session.commit()
    assert outbox(session, "review-approved") == [] and notes(session, "review-approved") == 0
    choices = {c["kind"]: c["on"] for c in notification_settings.choices(session, account_id=who.id)}
    assert choices["review-approved"] == "" and choices["invite"] == "1"

    notification_settings.set_on(session, account_id=who.id, kind="review-approved", on=True)
    assert notifications.notify(
        session, kind="review-approved", account_id=who.id, subject_key="review:2", message=hello()
    )
    session.commit()
    assert len(outbox(session, "review-approved")) == 1
    with pytest.raises(ServiceError):
        notification_settings.set_on(session, account_id=who.id, kind="reset-password", on=False)


# --- the other hooks ----------------------------------------------------------------------------------------


def test_verification_granted_is_told_once(session):
    manager = person(session, role=roles.TEAM_OWNER)
    who = person(session, verified=False)
    for verified in (True, False, True):
        participants.set_verified(session, actor_id=manager.id, account_ids=[who.id], verified=verified)
        session.commit()
    [mail] = outbox(session, "verified")
    assert mail.to_address == who.email and "verified" in mail.subject


def test_a_review_approved_or_rejected_is_told_once_with_the_reason(session):
    manager = person(session, role=TM)
    test = a_test(session)
    approved_one, rejected_one = person(session), person(session)
    first, _ = a_review(session, test, approved_one)
    second, _ = a_review(session, test, rejected_one)
    session.commit()
    reviews.decide(session=session, actor_id=manager.id, review_ids=[first.id], approve=True)
    reviews.decide(
        session=session,
        actor_id=manager.id,
        review_ids=[second.id],
        approve=False,
        reason="off-topic",
        note="Not about it.",
    )
    session.commit()
    with pytest.raises(ServiceError):  # decided already: nothing moves, nothing is told
        reviews.decide(session=session, actor_id=manager.id, review_ids=[second.id], approve=True)
    session.rollback()

    [approved] = outbox(session, "review-approved")
    assert approved.to_address == approved_one.email and "$20" in approved.body_text
    [rejected] = outbox(session, "review-rejected")
    assert rejected.to_address == rejected_one.email
    assert "The reason: Answers are off-topic." in rejected.body_text and "Not about it." in rejected.body_text


def test_a_reward_sent_and_then_failed_is_told_once_each(session):
    who = person(session)
    _, reward = a_review(session, a_test(session), who, status="approved", approved=True, cents=2500)
    session.commit()
    assert payouts.claim(session, reward_id=reward.id, provider="tremendous") is not None
    assert payouts.ordered(
        session, reward_id=reward.id, order_id="O1", provider_reward_id="R1", state="sent", provider_status="PENDING"
    )
    session.commit()
    for _ in range(2):  # the webhook and the poll report the same failure
        payouts.delivered(session, reward_id=reward.id, state="failed", provider_status="FAILED", reason="bad address")
        session.commit()
    [sent] = outbox(session, "reward-sent")
    assert sent.to_address == who.email and "$25" in sent.subject
    [failed] = outbox(session, "reward-failed")
    assert "bad address" in failed.body_text
    assert fresh(session, type(reward), reward.id).payout == "failed"


# --- one-click unsubscribe ------------------------------------------------------------------------------------


@pytest.fixture
def client(session, monkeypatch):
    monkeypatch.setattr(db, "engine", lambda: session.get_bind())
    return TestClient(build_api())


def test_unsubscribe_by_token_without_a_session_turns_that_kind_off_once(session, client):
    who, other = person(session), person(session)
    url = tokens.url(who.id, "invite")
    path = url[url.index("/unsubscribe/") :]

    page = client.get(path)
    assert page.status_code == 200 and "<form" in page.text and "Unsubscribe" in page.text
    assert session.execute(select(NotificationOptOut)).all() == []  # opening the link changes nothing

    for _ in range(2):  # RFC 8058's POST, twice: the same answer
        done = client.post(path, data={"List-Unsubscribe": "One-Click"})
        assert done.status_code == 200 and "no longer e-mail you" in done.text
    session.expire_all()
    rows = session.execute(select(NotificationOptOut.account_id, NotificationOptOut.kind)).all()
    assert [tuple(r) for r in rows] == [(who.id, "invite")]
    assert not notifications.notify(session, kind="invite", account_id=who.id, subject_key="invite:1", message=hello())
    assert notifications.notify(session, kind="invite", account_id=other.id, subject_key="invite:1", message=hello())


def test_a_forged_or_foreign_token_changes_nothing(session, client):
    who = person(session)
    good = tokens.make(who.id, "invite")
    forged = [
        good[:-3] + ("abc" if not good.endswith("abc") else "xyz"),
        tokens.make(who.id, "invite", secret="another-secret-key-entirely-000000"),
        "not-a-token",
    ]
    for token in forged:
        assert client.get(f"/unsubscribe/{token}").status_code == 400
        refused = client.post(f"/unsubscribe/{token}")
        assert refused.status_code == 400 and "not valid" in refused.text
    session.expire_all()
    assert session.execute(select(NotificationOptOut)).all() == []


def test_the_smtp_server_receives_the_one_click_headers(session):
    who = person(session)
    assert notifications.notify(session, kind="verified", account_id=who.id, subject_key="account:1", message=hello())
    session.commit()

    @contextmanager
    def factory():
        yield session
        session.commit()

    server = SmtpServer().start()
    try:
        target = mail_sender.SmtpTarget("127.0.0.1", server.port, security="none")
        assert asyncio.run(mail_sender.send_due(factory, target)) == 1
        received = server.wait_for(who.email, subject_contains="Hello 1")
    finally:
        server.stop()
    header = str(received.message["List-Unsubscribe"])
    assert header.startswith("<") and header.endswith(">") and "/unsubscribe/" in header
    assert tokens.read(header[1:-1].rsplit("/", 1)[1]) == (who.id, "verified")
    assert str(received.message["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"


def test_verification_by_submit_and_verify_on_the_profile_is_told_once(session):
    from portal.services.admin import profiles as admin_profiles
    from portal.services.seeding import seed_reference
    from tests.integration.test_profile_service import TODAY, _form

    seed_reference(session)
    session.commit()
    staff = person(session, role=roles.TEAM_OWNER)
    who = person(session, verified=False)
    for _ in range(2):  # the second 'Submit & Verify' finds the account verified: nothing more is told
        admin_profiles.save_participant_profile(
            session=session, actor_id=staff.id, participant_id=who.id, raw=_form(who), verify=True, today=TODAY
        )
        session.commit()
    [mail] = outbox(session, "verified")
    assert mail.to_address == who.email and "/profile" in mail.body_text and mail.unsubscribe_url
