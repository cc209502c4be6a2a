"""Staff: participants' appeals against rejections (issue 36, item 4; domain/staff/appeals.py): the list, and
overturning or upholding an appeal, decided by a staff member other than the one who rejected."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, join, or_, select
from sqlmodel import Session

from portal.domain import emails
from portal.domain.staff import appeals as appeal_rules
from portal.domain.staff import reviews as decisions
from portal.domain.staff import roles
from portal.models import Account, Review, ReviewAppeal, Reward, Test
from portal.models._base import utcnow
from portal.services import transitions, webhooks
from portal.services.admin import audit
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import one_id
from portal.services.errors import ServiceError
from portal.services.outbox import enqueue_email
from portal.services.tables import Dates, Options, TablePage, TableQuery, TableSpec, contains
from portal.settings import settings

TABLE = TableSpec(
    key=ReviewAppeal.id,
    sortable={"createdOn": ReviewAppeal.created_at},
    filters=(
        Options("status", ReviewAppeal.status, appeal_rules.STATUSES),
        Dates("createdOn", ReviewAppeal.created_at),
    ),
    search=lambda _: or_(contains(Account.email), contains(Test.name)),
    search_source=join(ReviewAppeal, Review, Review.id == ReviewAppeal.review_id)
    .join(Test, Test.id == Review.test_id)
    .join(Account, Account.id == ReviewAppeal.account_id),
)
clean_query = TABLE.clean


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else ""


def list_appeals(session: Session, *, actor_id: Caller, query: TableQuery) -> TablePage:
    """One page of appeals (open ones first by default: the page filters them), each with the rejection it
    contests, and whether the caller may decide it (not the staff member who rejected)."""
    staff = require_staff(session, actor_id, roles.DECIDE_REVIEWS)
    values, chosen = TABLE.values(query), TABLE.select(query)
    total = session.execute(chosen.total(), values).scalar_one()
    ids = [r[0] for r in session.execute(chosen.page(), values)]
    if not ids:
        return TablePage(rows=[], total=int(total))
    # Staff named on the row: who rejected (the review's decider while its appeal is open), who decided the appeal.
    rejecter = Account.__table__.alias("rejecter")  # type: ignore[attr-defined]
    decider = Account.__table__.alias("decider")  # type: ignore[attr-defined]
    found = session.execute(
        select(ReviewAppeal, Review, Test.name, Account.email, rejecter.c.email, decider.c.email)
        .join(Review, Review.id == ReviewAppeal.review_id)
        .join(Test, Test.id == Review.test_id)
        .join(Account, Account.id == ReviewAppeal.account_id)
        .outerjoin(rejecter, rejecter.c.id == Review.decided_by_id)
        .outerjoin(decider, decider.c.id == ReviewAppeal.decided_by_id)
        .where(ReviewAppeal.id.in_(ids))
    ).all()
    by_id = {row[0].id: row for row in found}
    rows = []
    for i in ids:
        appeal, review, test_name, email, rejected_by, decided_by = by_id[i]
        is_open = appeal.status == appeal_rules.OPEN
        own = is_open and bool(staff.account_id) and review.decided_by_id == staff.account_id
        rows.append(
            {
                "id": str(appeal.id),
                "review_id": str(review.id),
                "test": test_name,
                "participant": email or "",
                "appealed": _when(appeal.created_at),
                "reason": decisions.REJECTION_REASONS.get(review.reject_reason or "", ""),
                "evidence": decisions.evidence_text(review.reject_flags, review.reject_evidence),
                "rejected_by": (rejected_by or "") if is_open else "",
                "decided_by": decided_by or "",
                "message": appeal.message,
                "status": appeal.status,
                "status_label": appeal_rules.STATUS_LABELS.get(appeal.status, appeal.status),
                "note": appeal.decision_note or "",
                "decidable": "yes" if is_open and not own else "",
                "own": "yes" if own else "",
            }
        )
    return TablePage(rows=rows, total=int(total))


def decide_appeal(
    session: Session,
    *,
    actor_id: Caller,
    appeal_id: Any,
    overturn: Any,
    note: Any = None,
    now: datetime | None = None,
) -> str:
    """Overturn (the review becomes approved, its canceled reward payable again: PENDING with approved_at) or
    uphold (a note is required) an open appeal; the appeal's new status. Refused to the staff member who rejected
    the review. Exactly once: the appeal moves from 'open' in one write naming it, and only the winner changes
    the review and the reward (each from the state it expects). The participant is told by e-mail (the outbox,
    in the same transaction); one audit row."""
    staff = require_staff(session, actor_id, roles.DECIDE_REVIEWS)
    if not isinstance(overturn, bool):
        raise ServiceError(appeal_rules.CHOOSE)
    if problem := appeal_rules.note_problem(note, overturn=overturn):
        raise ServiceError(problem, field="note")
    text = (note or "").strip() or None
    aid = one_id(appeal_id, appeal_rules.NO_APPEAL)
    appeal = session.get(ReviewAppeal, aid)
    if appeal is None:
        raise ServiceError(appeal_rules.NO_APPEAL)
    review = session.get(Review, appeal.review_id)
    if review is None:  # the appeal goes with its review (ON DELETE CASCADE)
        raise ServiceError(appeal_rules.NO_APPEAL)
    if appeal.status != appeal_rules.OPEN:
        raise ServiceError(appeal_rules.ALREADY_DECIDED)
    # While its appeal is open the review stays rejected (nothing else decides a rejected review), so its
    # decided_by_id is the staff member who rejected it. A review read after another request overturned the
    # appeal is approved (decided by that request's staff member): the write below then answers ALREADY_DECIDED.
    rejected_by = review.decided_by_id if review.status == decisions.REJECTED else None
    if rejected_by is not None and rejected_by == staff.account_id:
        raise ServiceError(appeal_rules.OWN_REJECTION)
    now = now or utcnow()
    status = appeal_rules.OVERTURNED if overturn else appeal_rules.UPHELD
    moved = transitions.move(
        session,
        ReviewAppeal,
        ReviewAppeal.id == aid,
        ReviewAppeal.status == appeal_rules.OPEN,
        values={"status": status, "decided_by_id": staff.account_id or None, "decided_at": now, "decision_note": text},
    )
    if not moved:
        raise ServiceError(appeal_rules.ALREADY_DECIDED)
    reward_before = reward_after = None
    if overturn:
        approved = transitions.move(
            session,
            Review,
            Review.id == review.id,
            Review.status == decisions.REJECTED,
            values={"status": decisions.APPROVED, "decided_at": now, "decided_by_id": staff.account_id or None},
        )
        reward = session.execute(select(Reward.id, Reward.status).where(Reward.review_id == review.id)).first()
        if reward is not None:
            reward_before = reward[1]
            back = transitions.move(
                session,
                Reward,
                Reward.id == reward[0],
                Reward.status == "CANCELED",
                values={"status": "PENDING", "approved_at": now},
            )
            reward_after = "PENDING" if back else reward_before
        webhooks.reviews_decided(session, approved)  # review.decided: the rejection overturned
    audit.record(
        session,
        staff,
        "appeal.overturn" if overturn else "appeal.uphold",
        "review",
        review.id,
        {"appeal": aid, "appeal_status": appeal_rules.OPEN, "status": decisions.REJECTED, "reward": reward_before},
        {
            "appeal": aid,
            "appeal_status": status,
            "status": decisions.APPROVED if overturn else decisions.REJECTED,
            "reward": reward_after,
            "note": text,
        },
    )
    account = session.get(Account, appeal.account_id)
    test = session.get(Test, review.test_id)
    if account is not None and account.email:
        mail = emails.appeal_decided(
            brand=settings.brand_name,
            test_label=test.name if test else "a test",
            overturned=overturn,
            note=text or "",
            link=f"{settings.base_url}/",
        )
        enqueue_email(session, to=account.email, subject=mail.subject, body=mail.body, kind="appeal-decided")
    # Both sides are told: the staff member who rejected learns the outcome too.
    rejecter = session.get(Account, rejected_by) if rejected_by else None
    if rejecter is not None and rejecter.email and rejecter.removed_at is None:
        note_mail = emails.appeal_outcome_for_staff(
            brand=settings.brand_name,
            test_label=test.name if test else "a test",
            review_id=review.id,
            overturned=overturn,
            note=text or "",
        )
        enqueue_email(
            session, to=rejecter.email, subject=note_mail.subject, body=note_mail.body, kind="appeal-decided-staff"
        )
    return status


def open_count(session: Session, *, actor_id: Caller) -> int:
    """How many appeals wait for a decision (the staff page's heading)."""
    require_staff(session, actor_id, roles.DECIDE_REVIEWS)
    return int(
        session.execute(
            select(func.count()).select_from(ReviewAppeal).where(ReviewAppeal.status == appeal_rules.OPEN)
        ).scalar_one()
    )
