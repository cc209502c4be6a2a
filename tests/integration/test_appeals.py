"""One appeal against a rejection (issue 36, item 4), on SQLite and PostgreSQL: the participant appeals once
within 14 days with a message, sees the reason and the evidence; a staff member other than the one who rejected
overturns (the review is approved, its reward payable again) or upholds with a note; the participant is told by
e-mail; every step is audited; many identical requests at once have one effect."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlmodel import Session

from portal.domain.staff import appeals as rules
from portal.domain.staff import roles
from portal.models import OutboxEmail, Review, ReviewAppeal, Reward
from portal.models._base import utcnow
from portal.services import appeals
from portal.services.admin import appeals as staff_appeals
from portal.services.admin import audit, reviews
from portal.services.admin.guard import StaffRefused
from portal.services.errors import ServiceError
from tests.integration.test_admin_services import (
    a_review,
    a_test,
    audit_rows,
    count,
    fresh,
    participant_reward_row,
    person,
)
from tests.integration.test_exactly_once import outcome
from tests.support.races import all_at_once

TM, TO = roles.TEAM_MANAGER, roles.TEAM_OWNER


def rejected(session: Session, *, days_ago: float = 1, flags=None, evidence=None):
    """A participant's review rejected by a team manager `days_ago`; (participant, rejecter, review, reward)."""
    participant, rejecter = person(session), person(session, role=TM)
    review, reward = a_review(session, a_test(session), participant)
    reviews.decide(
        session=session,
        actor_id=rejecter.id,
        review_ids=[review.id],
        approve=False,
        reason="low-effort",
        flags=flags,
        evidence=evidence,
        now=utcnow() - timedelta(days=days_ago),
    )
    session.commit()
    return participant, rejecter, review, reward


def test_a_participant_reads_the_reason_and_evidence_and_appeals_once(session):
    participant, _, review, reward = rejected(session, flags=["speeder"], evidence="43 s for a 15-minute test.")
    row = participant_reward_row(session, participant.id, reward.id)
    assert (row["stage"], row["reason"], row["can_appeal"], row["appeal"]) == (
        "Rejected",
        "Low effort answers",
        "yes",
        "",
    )
    assert row["evidence"] == "Finished far faster than most participants. 43 s for a 15-minute test."
    assert row["appeal_until"] != ""

    for message, problem in (
        (None, rules.MESSAGE_REQUIRED),
        ("   ", rules.MESSAGE_REQUIRED),
        ("x" * 2001, rules.MESSAGE_TOO_LONG),
    ):
        with pytest.raises(ServiceError) as refused:
            appeals.appeal(session=session, account_id=participant.id, review_id=review.id, message=message)
        assert (refused.value.message, refused.value.field) == (problem, "message")
    someone_else = person(session)
    with pytest.raises(ServiceError) as not_theirs:
        appeals.appeal(session=session, account_id=someone_else.id, review_id=review.id, message="Mine?")
    assert not_theirs.value.message == rules.NOT_APPEALABLE

    appeal_id = appeals.appeal(
        session=session, account_id=participant.id, review_id=str(review.id), message="  I read every question.  "
    )
    session.commit()
    stored = fresh(session, ReviewAppeal, appeal_id)
    assert (stored.review_id, stored.account_id, stored.message, stored.status) == (
        review.id,
        participant.id,
        "I read every question.",
        "open",
    )
    [row_audit] = audit_rows(session, "appeal.create")
    assert (row_audit.actor_id, row_audit.actor_role, row_audit.target_id) == (
        participant.id,
        "participant",
        str(review.id),
    )
    assert "appeal.create" in audit.ACTIONS
    row = participant_reward_row(session, participant.id, reward.id)
    assert (row["can_appeal"], row["appeal"]) == ("", rules.decision_words("open"))

    with pytest.raises(ServiceError) as twice:
        appeals.appeal(session=session, account_id=participant.id, review_id=review.id, message="Again")
    assert twice.value.message == rules.ALREADY_APPEALED


def test_an_appeal_closes_fourteen_days_after_the_rejection_and_only_rejections_are_appealed(session):
    participant, _, review, reward = rejected(session, days_ago=14.01)
    assert participant_reward_row(session, participant.id, reward.id)["can_appeal"] == ""
    with pytest.raises(ServiceError) as late:
        appeals.appeal(session=session, account_id=participant.id, review_id=review.id, message="Late")
    assert late.value.message == rules.TOO_LATE
    just_in_time, _, review2, _ = rejected(session, days_ago=13.9)
    assert appeals.appeal(session=session, account_id=just_in_time.id, review_id=review2.id, message="In time") > 0
    approved_one = person(session)
    review3, _ = a_review(session, a_test(session), approved_one, status="approved")
    with pytest.raises(ServiceError) as not_rejected:
        appeals.appeal(session=session, account_id=approved_one.id, review_id=review3.id, message="Why not")
    assert not_rejected.value.message == rules.NOT_APPEALABLE
    for bad in (None, "abc", -1, [review3.id]):
        with pytest.raises(ServiceError):
            appeals.appeal(session=session, account_id=approved_one.id, review_id=bad, message="x")


def test_a_second_staff_member_overturns_the_reward_becomes_payable_and_the_participant_is_told(session):
    participant, rejecter, review, reward = rejected(session)
    assert fresh(session, Reward, reward.id).status == "CANCELED"
    appeal_id = appeals.appeal(session=session, account_id=participant.id, review_id=review.id, message="Please")
    session.commit()
    # Both sides are told: the staff member who rejected learns of the appeal by e-mail.
    [received] = session.execute(select(OutboxEmail).where(OutboxEmail.kind == "appeal-received")).scalars().all()
    assert received.to_address == rejecter.email and f"review #{review.id}" in received.subject
    assert "A staff member other than you decides the appeal" in received.body_text

    # The staff member who rejected sees the appeal but may not decide it.
    [listed] = staff_appeals.list_appeals(session=session, actor_id=rejecter.id, query=staff_appeals.clean_query()).rows
    assert (listed["id"], listed["decidable"], listed["own"], listed["message"]) == (
        str(appeal_id),
        "",
        "yes",
        "Please",
    )
    assert listed["rejected_by"] == rejecter.email and listed["reason"] == "Low effort answers"
    with pytest.raises(ServiceError) as own:
        staff_appeals.decide_appeal(session=session, actor_id=rejecter.id, appeal_id=appeal_id, overturn=True)
    assert own.value.message == rules.OWN_REJECTION
    assert fresh(session, ReviewAppeal, appeal_id).status == "open"

    second = person(session, role=TO)
    assert staff_appeals.open_count(session=session, actor_id=second.id) == 1
    [listed] = staff_appeals.list_appeals(session=session, actor_id=second.id, query=staff_appeals.clean_query()).rows
    assert (listed["decidable"], listed["own"]) == ("yes", "")
    assert (
        staff_appeals.decide_appeal(
            session=session, actor_id=second.id, appeal_id=str(appeal_id), overturn=True, note=" Answers were fine. "
        )
        == "overturned"
    )
    session.commit()

    stored_review, paid = fresh(session, Review, review.id), fresh(session, Reward, reward.id)
    assert (stored_review.status, stored_review.decided_by_id) == ("approved", second.id)
    assert (paid.status, paid.approved_at is not None) == ("PENDING", True)
    appeal = fresh(session, ReviewAppeal, appeal_id)
    assert (appeal.status, appeal.decided_by_id, appeal.decision_note) == (
        "overturned",
        second.id,
        "Answers were fine.",
    )
    row = participant_reward_row(session, participant.id, reward.id)
    assert (row["stage"], row["appeal"], row["can_appeal"]) == ("Approved", rules.decision_words("overturned"), "")
    [mail] = session.execute(select(OutboxEmail).where(OutboxEmail.kind == "appeal-decided")).scalars().all()
    assert (
        mail.to_address == participant.email
        and "overturned" in mail.body_text
        and "Answers were fine." in mail.body_text
    )
    # ... and the outcome.
    [told] = session.execute(select(OutboxEmail).where(OutboxEmail.kind == "appeal-decided-staff")).scalars().all()
    assert told.to_address == rejecter.email and told.subject.startswith("Appeal overturned")
    assert "Answers were fine." in told.body_text
    [row_audit] = audit_rows(session, "appeal.overturn")
    assert (row_audit.actor_id, row_audit.before["reward"], row_audit.after["reward"]) == (
        second.id,
        "CANCELED",
        "PENDING",
    )
    assert row_audit.after["status"] == "approved"

    with pytest.raises(ServiceError) as again:
        staff_appeals.decide_appeal(session=session, actor_id=second.id, appeal_id=appeal_id, overturn=False, note="No")
    assert again.value.message == rules.ALREADY_DECIDED


def test_upholding_needs_a_note_and_keeps_the_rejection(session):
    participant, _, review, reward = rejected(session)
    appeal_id = appeals.appeal(session=session, account_id=participant.id, review_id=review.id, message="Please")
    second = person(session, role=TM)
    for note in (None, "  ", "x" * 1001, 5):
        with pytest.raises(ServiceError):
            staff_appeals.decide_appeal(
                session=session, actor_id=second.id, appeal_id=appeal_id, overturn=False, note=note
            )
    with pytest.raises(ServiceError) as choose:
        staff_appeals.decide_appeal(session=session, actor_id=second.id, appeal_id=appeal_id, overturn="yes")
    assert choose.value.message == rules.CHOOSE
    assert (
        staff_appeals.decide_appeal(
            session=session, actor_id=second.id, appeal_id=appeal_id, overturn=False, note="Two-word answers."
        )
        == "upheld"
    )
    session.commit()
    assert (fresh(session, Review, review.id).status, fresh(session, Reward, reward.id).status) == (
        "rejected",
        "CANCELED",
    )
    row = participant_reward_row(session, participant.id, reward.id)
    assert (row["stage"], row["appeal"], row["can_appeal"]) == ("Rejected", rules.decision_words("upheld"), "")
    [mail] = session.execute(select(OutboxEmail).where(OutboxEmail.kind == "appeal-decided")).scalars().all()
    assert "The rejection stands" in mail.body_text and "Two-word answers." in mail.body_text
    assert len(audit_rows(session, "appeal.uphold")) == 1


def test_only_staff_who_decide_reviews_see_and_decide_appeals(session):
    participant, _, review, _ = rejected(session)
    appeal_id = appeals.appeal(session=session, account_id=participant.id, review_id=review.id, message="Please")
    for who in (participant, person(session)):
        with pytest.raises(StaffRefused):
            staff_appeals.list_appeals(session=session, actor_id=who.id, query=staff_appeals.clean_query())
        with pytest.raises(StaffRefused):
            staff_appeals.decide_appeal(session=session, actor_id=who.id, appeal_id=appeal_id, overturn=True)
    for bad in (None, "x", 10**9):
        with pytest.raises(ServiceError) as missing:
            staff_appeals.decide_appeal(
                session=session, actor_id=person(session, role=TM).id, appeal_id=bad, overturn=True
            )
        assert missing.value.message == rules.NO_APPEAL


def test_fifty_identical_appeals_at_once_make_one_appeal(session, db_url):
    participant, _, review, _ = rejected(session)
    participant_id, review_id = participant.id, review.id

    def appeal(s: Session) -> int:
        return appeals.appeal(session=s, account_id=participant_id, review_id=review_id, message="Please")

    results = all_at_once(db_url, [appeal] * 50)
    won = [r for r in results if isinstance(r, int)]
    lost = Counter(r.message for r in results if isinstance(r, ServiceError))
    assert len(won) == 1 and lost == Counter({rules.ALREADY_APPEALED: 49}), results
    assert count(session, ReviewAppeal, ReviewAppeal.review_id == review_id) == 1
    assert count(session, OutboxEmail, OutboxEmail.kind == "appeal-received") == 1
    session.expire_all()
    assert len(audit_rows(session, "appeal.create")) == 1


def test_fifty_identical_overturns_at_once_have_one_effect(session, db_url):
    participant, _, review, reward = rejected(session)
    appeal_id = appeals.appeal(session=session, account_id=participant.id, review_id=review.id, message="Please")
    session.commit()
    second_id = person(session, role=TO).id

    def overturn(s: Session) -> str:
        return staff_appeals.decide_appeal(session=s, actor_id=second_id, appeal_id=appeal_id, overturn=True)

    won, lost = outcome(all_at_once(db_url, [overturn] * 50), "overturned")
    assert (won, lost) == (1, Counter({rules.ALREADY_DECIDED: 49}))
    assert (fresh(session, Review, review.id).status, fresh(session, Reward, reward.id).status) == (
        "approved",
        "PENDING",
    )
    session.expire_all()
    assert len(audit_rows(session, "appeal.overturn")) == 1
    assert count(session, OutboxEmail, OutboxEmail.kind == "appeal-decided") == 1
    assert count(session, OutboxEmail, OutboxEmail.kind == "appeal-decided-staff") == 1
