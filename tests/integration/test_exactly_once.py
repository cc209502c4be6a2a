"""Money and decisions change exactly once, on SQLite and PostgreSQL: many staff tabs, the CLI and several
workers acting on the same rows at the same instant (tests/support/races.py releases them together).
The winner changes the rows and writes one audit row per change; every loser gets a clear message and
changes nothing."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlmodel import Session

from portal.domain.staff import pending, roles
from portal.models import (
    Invite,
    OutboxEmail,
    ProfileChangeRequest,
    ReferralMember,
    ReferralProgram,
    Review,
    ReviewSession,
    Reward,
)
from portal.models._base import utcnow
from portal.services import mail_sender
from portal.services.admin import change_requests, reviews, rewards
from portal.services.definition_import import import_test
from portal.services.errors import ServiceError
from portal.services.outbox import enqueue_email
from portal.services.referrals import create_member, ensure_referral_code
from portal.services.seeding import seed_reference
from portal.services.taking import review_sessions
from tests.integration.test_admin_services import a_review, a_test, audit_rows, fresh, person
from tests.support.demo_survey import good_answers
from tests.support.races import all_at_once

TM, TO = roles.TEAM_MANAGER, roles.TEAM_OWNER


def outcome(results: list[Any], won: Any) -> tuple[int, Counter]:
    """(how many calls returned `won`, the losers' messages); any other exception fails the test."""
    unexpected = [r for r in results if r != won and not isinstance(r, ServiceError)]
    assert not unexpected, unexpected
    return sum(1 for r in results if r == won), Counter(r.message for r in results if isinstance(r, ServiceError))


def rows_for(session: Session, action: str, target_id: int) -> list:
    session.expire_all()
    return [r for r in audit_rows(session, action) if r.target_id == str(target_id)]


# --- rewards -----------------------------------------------------------------------------------------


@pytest.fixture
def referred(session: Session, db_url: str):
    """A team owner, and a referee's payable reward whose payment earns their referrer the bonus."""
    seed_reference(session)
    session.commit()
    program = session.execute(select(ReferralProgram)).scalar_one()
    owner = person(session, role=TO)
    referrer, referee = person(session), person(session)
    ensure_referral_code(session=session, account_id=referrer.id)
    create_member(session=session, program=program, referrer=referrer, referee=referee)
    session.commit()
    _, reward = a_review(session, a_test(session), referee, status="approved", approved=True)
    return owner, referrer, referee, program, reward


def assert_paid_once(session: Session, reward: Reward, referrer: Any, referee: Any, program: ReferralProgram) -> None:
    paid = fresh(session, Reward, reward.id)
    assert paid.status == "EXECUTED" and paid.paid_on is not None
    [row] = rows_for(session, "reward.pay", reward.id)
    assert row.before == {"status": "PENDING", "paid_on": None}
    assert row.after["status"] == "EXECUTED" and row.after["paid_on"] == paid.paid_on.isoformat()
    member = session.execute(select(ReferralMember).where(ReferralMember.referee_account_id == referee.id)).scalar_one()
    assert member.reward_cents == program.bonus_cents and member.reward_paid_at is not None
    # One bonus, a reward of its own (issue 37), recorded once.
    bonuses = session.execute(select(Reward).where(Reward.referral_member_id == member.id)).scalars().all()
    assert [(b.account_id, b.amount_cents, b.kind) for b in bonuses] == [
        (referrer.id, program.bonus_cents, "referral-bonus")
    ]
    assert [r.action for r in audit_rows(session) if r.action != "reward.pay"] == ["reward.referral-bonus"]


def test_fifty_identical_mark_paid_give_one_payment_one_audit_row_one_bonus(session, db_url, referred):
    owner, referrer, referee, program, reward = referred
    owner_id, reward_id = owner.id, reward.id

    def pay(s: Session) -> int:
        return rewards.mark(session=s, actor_id=owner_id, reward_ids=[reward_id], status=rewards.PAID)

    won, lost = outcome(all_at_once(db_url, [pay] * 50), 1)

    assert won == 1
    assert lost == Counter({rewards.NOT_PAYABLE: 49})
    assert_paid_once(session, reward, referrer, referee, program)
    [row] = rows_for(session, "reward.pay", reward.id)
    assert row.after["referral_bonus_to"] == referrer.id


def test_staff_and_the_cli_paying_one_reward_at_once_pay_it_once(session, db_url, referred):
    owner, referrer, referee, program, reward = referred
    owner_id, reward_id = owner.id, reward.id

    def staff(s: Session) -> int:
        return rewards.mark(session=s, actor_id=owner_id, reward_ids=[reward_id], status=rewards.PAID)

    def cli(s: Session) -> str:
        rewards.mark_paid_by_system(session=s, reward_id=reward_id)
        return "cli"  # the CLI answers with the reward, paid already or now

    results = all_at_once(db_url, [staff, cli] * 10)

    assert not [r for r in results if isinstance(r, BaseException) and not isinstance(r, ServiceError)], results
    assert sum(1 for r in results if r == 1) <= 1 and results.count("cli") == 10
    assert_paid_once(session, reward, referrer, referee, program)


def test_mark_failed_against_cancel_changes_the_reward_once(session, db_url):
    owner_id = person(session, role=TO).id
    for _ in range(5):
        _, reward = a_review(session, a_test(session), person(session), status="approved", approved=True)
        reward_id = reward.id

        def mark(status: str) -> Callable[[Session], int]:
            return lambda s: rewards.mark(session=s, actor_id=owner_id, reward_ids=[reward_id], status=status)

        results = all_at_once(db_url, [mark(rewards.FAILED), mark(rewards.CANCELED), mark(rewards.FAILED)])

        assert not [r for r in results if not isinstance(r, (int, ServiceError))], results
        changes = [r for r in audit_rows(session) if r.target_id == str(reward_id)]
        # Failed once or canceled once, or failed and then canceled (a failed payment may be canceled); never
        # failed twice. A tab that read the reward pending after it moved is told it cannot be changed now.
        assert [(c.action, c.before["status"]) for c in changes] in (
            [("reward.cancel", "PENDING")],
            [("reward.fail", "PENDING")],
            [("reward.fail", "PENDING"), ("reward.cancel", "FAILED")],
        )
        assert (
            fresh(session, Reward, reward_id).status
            == {"reward.cancel": "CANCELED", "reward.fail": "FAILED"}[changes[-1].action]
        )
        assert sum(r for r in results if isinstance(r, int)) == len(changes)
        assert outcome(results, 1)[1] == Counter({rewards.CANNOT_CHANGE: 3 - len(changes)})


# --- reviews -----------------------------------------------------------------------------------------


def test_approve_against_reject_at_the_same_instant_gives_one_decision(session, db_url):
    manager, owner = person(session, role=TM), person(session, role=TO)
    manager_id, owner_id = manager.id, owner.id
    test = a_test(session)
    decided = Counter()
    for _ in range(8):
        review, reward = a_review(session, test, person(session))
        review_id = review.id

        def approve(s: Session) -> int:
            return reviews.decide(session=s, actor_id=manager_id, review_ids=[review_id], approve=True)

        def reject(s: Session) -> int:
            return reviews.decide(
                session=s, actor_id=owner_id, review_ids=[review_id], approve=False, reason="low-effort"
            )

        won, lost = outcome(all_at_once(db_url, [approve, reject]), 1)

        assert (won, lost) == (1, Counter({reviews.ALREADY_DECIDED: 1}))
        stored, paid = fresh(session, Review, review.id), fresh(session, Reward, reward.id)
        [row] = rows_for(session, "review.approve", review.id) + rows_for(session, "review.reject", review.id)
        assert row.before == {"status": "submitted", "reward": "PENDING"}
        if stored.status == "approved":
            assert (row.action, row.actor_id) == ("review.approve", manager_id)
            assert (paid.status, stored.reject_reason) == ("PENDING", None) and paid.approved_at is not None
        else:
            assert (stored.status, row.action, row.actor_id) == ("rejected", "review.reject", owner_id)
            assert (paid.status, paid.approved_at, stored.reject_reason) == ("CANCELED", None, "low-effort")
        assert row.after["status"] == stored.status and row.after["reward"] == paid.status
        decided[stored.status] += 1
    assert sum(decided.values()) == 8


def test_fifty_identical_exclude_requests_give_one_decision_and_one_audit_row(session, db_url):
    manager_id = person(session, role=TM).id
    review, reward = a_review(session, a_test(session), person(session))
    review_id = review.id

    def exclude(s: Session) -> int:
        return reviews.exclude(session=s, actor_id=manager_id, review_ids=[review_id])

    won, lost = outcome(all_at_once(db_url, [exclude] * 50), 1)

    assert (won, lost) == (1, Counter({reviews.ALREADY_DECIDED: 49}))
    stored, paid = fresh(session, Review, review.id), fresh(session, Reward, reward.id)
    assert (stored.status, paid.status) == ("excluded", "PENDING") and paid.approved_at is not None
    [row] = rows_for(session, "review.exclude", review.id)
    assert (row.actor_id, row.before, row.after) == (
        manager_id,
        {"status": "submitted", "reward": "PENDING"},
        {"status": "excluded", "reward": "PENDING"},
    )
    assert rows_for(session, "review.approve", review.id) == rows_for(session, "review.reject", review.id) == []


def test_bulk_approve_against_bulk_reject_decides_each_review_once_and_counts_what_it_moved(session, db_url):
    manager_id, owner_id = person(session, role=TM).id, person(session, role=TO).id
    test = a_test(session)
    ids = [a_review(session, test, person(session))[0].id for _ in range(30)]

    def approve(s: Session) -> int:
        return reviews.decide(session=s, actor_id=manager_id, review_ids=ids, approve=True)

    def reject(s: Session) -> int:
        return reviews.decide(
            session=s, actor_id=owner_id, review_ids=list(reversed(ids)), approve=False, reason="off-topic"
        )

    approved, rejected = all_at_once(db_url, [approve, reject])

    assert isinstance(approved, int) and isinstance(rejected, int) and approved + rejected == 30
    session.expire_all()
    statuses = Counter(session.execute(select(Review.status).where(Review.id.in_(ids))).scalars())
    assert statuses == Counter({"approved": approved, "rejected": rejected}) - Counter()
    actions = Counter(r.target_id for r in audit_rows(session) if r.action in ("review.approve", "review.reject"))
    assert sorted(actions) == sorted(map(str, ids)) and set(actions.values()) == {1}
    canceled = (
        session.execute(
            select(Reward.review_id)
            .join(Review, Review.id == Reward.review_id)
            .where(Review.id.in_(ids), Reward.status == "CANCELED")
        )
        .scalars()
        .all()
    )
    assert len(canceled) == rejected


@pytest.mark.parametrize("with_staff", [False, True], ids=["three rounds", "three rounds and a staff member"])
def test_three_auto_approve_rounds_at_once_approve_each_review_once(session, db_url, with_staff):
    manager_id = person(session, role=TM).id
    test = a_test(session)
    pairs = [a_review(session, test, person(session), age_days=15) for _ in range(150)]
    ids = [review.id for review, _ in pairs]

    def auto(s: Session) -> int:
        return reviews.auto_approve(session=s, days=14)

    def staff_rejects(s: Session) -> int:  # a staff member rejects a third of them meanwhile
        return reviews.decide(session=s, actor_id=manager_id, review_ids=ids[::3], approve=False, reason="off-topic")

    results = all_at_once(db_url, [auto, auto, auto] + ([staff_rejects] if with_staff else []))

    assert all(isinstance(r, int) for r in results), results
    session.expire_all()
    approvals = [r for r in audit_rows(session, "review.auto-approve")]
    rejections = [r for r in audit_rows(session, "review.reject")]
    assert sum(results[:3]) == len(approvals) and len(rejections) == (results[3] if with_staff else 0)
    assert len(approvals) + len(rejections) == 150
    assert sorted(int(r.target_id) for r in approvals + rejections) == sorted(ids)  # each review once
    by_status = dict(session.execute(select(Review.id, Review.status).where(Review.id.in_(ids))).all())
    rewards_by_review = {
        r.review_id: r for r in session.execute(select(Reward).where(Reward.review_id.in_(ids))).scalars()
    }
    for row in approvals:
        review_id = int(row.target_id)
        assert by_status[review_id] == "approved" and rewards_by_review[review_id].approved_at is not None
        assert rewards_by_review[review_id].status == "PENDING"
    for row in rejections:
        assert (
            by_status[int(row.target_id)] == "rejected" and rewards_by_review[int(row.target_id)].status == "CANCELED"
        )


def test_clearing_expired_pending_reviews_at_once_clears_each_session_once(session, db_url):
    manager_id, owner_id = person(session, role=TM).id, person(session, role=TO).id
    test = a_test(session)
    for _ in range(20):
        account = person(session)
        session.add(
            ReviewSession(
                test_id=test.id,
                account_id=account.id,
                respondent_key=f"account:{account.id}",
                deadline_at=utcnow() - timedelta(minutes=5),
                status="active",
            )
        )
    session.commit()

    def clear(actor: int) -> Callable[[Session], str]:
        return lambda s: reviews.clear_expired_pending(session=s, actor_id=actor)

    results = all_at_once(db_url, [clear(manager_id), clear(owner_id)] * 3)

    assert Counter(results)[pending.CLEARED] >= 1 and set(results) <= {pending.CLEARED, pending.NONE_TO_CLEAR}
    rows = audit_rows(session, "pending-reviews.clear")
    assert len(rows) == Counter(results)[pending.CLEARED] and sum(r.after["count"] for r in rows) == 20


# --- a submission and its invite ------------------------------------------------------------------------


def test_a_submission_against_staff_clearing_its_session_is_stored_whole_or_refused_whole(session, db_url, monkeypatch):
    """In its grace second a participant submits; staff clear expired sessions just after the submission
    read its session and before it writes. Either the review, its reward and the completed invite are
    stored and nothing is cleared, or the session is cleared and the participant is told, with nothing
    stored. (On PostgreSQL the clearing waits for the submission's row lock; on SQLite it commits first.)"""
    demo = json.loads((Path(__file__).resolve().parents[2] / "portal/data/demo_tests/01-survey.json").read_text())
    test_id = import_test(session, demo).id
    manager_id, account_id = person(session, role=TM).id, person(session).id
    start = utcnow()
    invite = Invite(
        account_id=account_id,
        test_id=test_id,
        amount_cents=2500,
        created_at=start,
        expires_at=start + timedelta(hours=24),
    )
    session.add(invite)
    row = review_sessions.start_session(session=session, test_id=test_id, account_id=account_id, now=start)
    session.commit()
    invite_id, session_id = invite.id, row.id
    at = row.deadline_at.replace(tzinfo=row.deadline_at.tzinfo or UTC) + timedelta(seconds=1)
    engine = session.get_bind()
    cleared: list[Any] = []

    def clear() -> None:
        with Session(engine, expire_on_commit=False) as s:
            cleared.append(reviews.clear_expired_pending(session=s, actor_id=manager_id, now=at))
            s.commit()

    clearing = threading.Thread(target=clear)
    original = review_sessions.take_access.require_place

    def clear_meanwhile(**kwargs: Any) -> Any:  # after the submission's reads, before its writes
        clearing.start()
        clearing.join(2)  # PostgreSQL: it waits for the submission's lock
        return original(**kwargs)

    monkeypatch.setattr(review_sessions.take_access, "require_place", clear_meanwhile)
    with Session(engine, expire_on_commit=False) as s:
        try:
            submitted: Any = review_sessions.submit_review(
                session=s,
                test_id=test_id,
                account_id=account_id,
                answers=good_answers(),
                worker_data={},
                submission_id="sub-1",
                now=at,
            )
            s.commit()
        except ServiceError as err:
            s.rollback()
            submitted = err
    clearing.join(20)

    session.expire_all()
    stored = session.execute(select(Review).where(Review.account_id == account_id)).scalars().all()
    if isinstance(submitted, review_sessions.SubmitResult):
        assert submitted.created and cleared == [pending.NONE_TO_CLEAR]
        assert len(stored) == 1 and fresh(session, Reward, submitted.reward_id).amount_cents == 2500
        assert (session.get(Invite, invite_id).status, session.get(ReviewSession, session_id).status) == (
            "completed",
            "submitted",
        )
        assert audit_rows(session, "pending-reviews.clear") == []
    else:
        assert (type(submitted), submitted.message) == (
            review_sessions.SessionExpiredError,
            review_sessions.MSG_EXPIRED,
        )
        assert cleared == [pending.CLEARED]
        assert stored == [] and session.get(Invite, invite_id).status == "open"
        assert session.get(ReviewSession, session_id).status == "cleared"
        [row] = audit_rows(session, "pending-reviews.clear")
        assert row.after["count"] == 1


# --- profile change requests ---------------------------------------------------------------------------


def test_a_change_request_is_decided_once(session, db_url):
    seed_reference(session)
    session.commit()
    manager_id = person(session, role=TM).id
    for _ in range(3):
        account = person(session)
        request = ProfileChangeRequest(
            account_id=account.id, payload={"firstName": "New"}, previous={"firstName": "Old"}, status="pending"
        )
        session.add(request)
        session.commit()
        request_id = request.id

        def decide(approve: bool) -> Callable[[Session], str]:
            return lambda s: change_requests.decide(
                session=s, actor_id=manager_id, request_id=request_id, approve=approve
            )

        results = all_at_once(db_url, [decide(True), decide(False)] * 5)

        won = [r for r in results if r in ("approved", "declined")]
        assert len(won) == 1 and outcome(results, won[0])[1] == Counter({change_requests.ALREADY_DECIDED: 9})
        assert fresh(session, ProfileChangeRequest, request_id).status == won[0]
        changes = [r for r in audit_rows(session) if r.target_id == str(request_id)]
        assert [r.action for r in changes] == [f"change-request.{'approve' if won[0] == 'approved' else 'decline'}"]


# --- the mail sender -----------------------------------------------------------------------------------


def test_two_mail_senders_send_each_message_once_even_when_delivery_is_slow(session, db_url, monkeypatch):
    """Worker A delivers slowly (each message takes a fifth of a lease of the clock); while it is on its
    sixth message, worker B runs a round: B must not take a message A has claimed and not sent yet."""
    for n in range(8):
        enqueue_email(session=session, to=f"slow{n}@example.com", subject="Hello", body="Hi", kind="test")
    session.commit()
    clock = [utcnow() + timedelta(seconds=1)]
    monkeypatch.setattr(mail_sender, "utcnow", lambda: clock[0])
    engine = session.get_bind()

    @contextmanager
    def factory() -> Iterator[Session]:
        with Session(engine, expire_on_commit=False) as s:
            yield s
            s.commit()

    delivered: list[tuple[str, str]] = []
    worker = ["A"]

    async def deliver(message: Any, target: Any) -> None:
        who = worker[0]
        delivered.append((who, message["To"]))
        clock[0] += mail_sender.LEASE / 5
        if who == "A" and len(delivered) == 6:
            worker[0] = "B"
            await mail_sender.send_due(factory, mail_sender.SmtpTarget("127.0.0.1", 1))
            worker[0] = "A"

    monkeypatch.setattr(mail_sender, "deliver", deliver)
    sent_by_a = asyncio.run(mail_sender.send_due(factory, mail_sender.SmtpTarget("127.0.0.1", 1)))

    addresses = Counter(to for _, to in delivered)
    assert addresses == Counter({f"slow{n}@example.com": 1 for n in range(8)}), delivered
    assert sent_by_a == sum(1 for who, _ in delivered if who == "A")
    session.expire_all()
    assert all(r.sent_at is not None for r in session.execute(select(OutboxEmail)).scalars())
