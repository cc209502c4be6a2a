"""Reviews for the REST API (issue 39): a keyset list with each review's answers, the version it was given on and its
quality signals; one review as staff read it; decisions through the staff service (admin/reviews.py `decide` and
`exclude`), answering what changed. An unknown review is NotFound (404), one decided already Conflict (409) with
the staff service's own message."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from portal.api.errors import Conflict, NotFound
from portal.domain.ids import MAX_VALUE
from portal.domain.staff import reviews as decisions
from portal.domain.staff import roles
from portal.domain.staff.answers import flatten
from portal.models import Account, Review, ReviewSession, Reward, Test, TestVersion
from portal.services import quality_flags
from portal.services.admin import reviews as staff_reviews
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import parse_ids
from portal.services.api import keyset
from portal.services.errors import ServiceError

APPROVE, EXCLUDE, REJECT = "approve", "exclude", "reject"
DECISIONS = (APPROVE, EXCLUDE, REJECT)
BAD_DECISION = "Choose approve, exclude or reject."
BAD_STATUS = f"The status is one of: {', '.join(decisions.STATUSES)}."
NO_REVIEW = staff_reviews.NO_REVIEW


def unknown_reviews(ids: list[int]) -> str:
    return NO_REVIEW if len(ids) == 1 else f"No review has the id {', '.join(str(i) for i in ids)}."


def _seconds(started: datetime | None, ended: datetime | None) -> int | None:
    seconds = quality_flags.seconds_between(started, ended)
    return None if seconds is None else int(seconds)


# The questions of sealed versions, kept in this process: a sealed version never changes (an edit makes the next
# one), so a page of reviews reads each version's definition once per process, not once per request.
_SEALED: staff_reviews.Questions = {}
SEALED_KEPT = 2048


_SEALED_LOCK = threading.Lock()


def _remember(key: tuple[int, int], questions: Any) -> None:
    with _SEALED_LOCK:
        if len(_SEALED) >= SEALED_KEPT:
            _SEALED.pop(next(iter(_SEALED)))
        _SEALED[key] = questions


def _items(session: Session, ids: list[int]) -> list[dict[str, Any]]:
    """The reviews of `ids`, in that order, as the API answers them."""
    if not ids:
        return []
    # The test's name only: its whole row (JSON definition columns) is read once per test below, not once per review.
    found = session.execute(
        select(
            Review, Test.name, Account.email, ReviewSession.started_at, TestVersion.number, TestVersion.sealed, Reward
        )
        .join(Test, Test.id == Review.test_id)
        .outerjoin(Account, Account.id == Review.account_id)
        .outerjoin(ReviewSession, ReviewSession.id == Review.session_id)
        .outerjoin(TestVersion, TestVersion.id == Review.version_id)
        .outerjoin(Reward, Reward.review_id == Review.id)
        .where(Review.id.in_(ids))
    ).all()
    by_id = {row[0].id: row for row in found}
    flags = quality_flags.flags_of(session, ids)
    checked = quality_flags.checked_of(session, [row[0].test_id for row in found])
    known: staff_reviews.Questions = {}
    tests: dict[int, Test] = {}
    items = []
    for i in ids:
        if i not in by_id:
            continue
        review, test_name, email, started, number, sealed, reward = by_id[i]
        key = (review.test_id, review.version_id or 0)
        if key not in known and sealed and key in _SEALED:
            known[key] = _SEALED[key]
        if key not in known:
            test = tests.get(review.test_id)
            if test is None:
                test = tests[review.test_id] = session.get_one(Test, review.test_id)
            staff_reviews._answers(session, review, test, known)  # reads the version's questions into `known`
            if sealed:
                _remember(key, known[key])
        questions, preference = known[key]
        answers = flatten(review.answers or {}, questions, preference, review.options_order or [])
        items.append(
            {
                "id": review.id,
                "test_id": review.test_id,
                "test_name": test_name,
                "version": number,
                "participant_id": review.account_id,
                "participant": email or review.respondent_key,
                "status": review.status,
                "submitted_at": review.created_at,
                "decided_at": review.decided_at,
                "reject_reason": review.reject_reason,
                "reject_note": review.reject_note,
                "time_taken_seconds": _seconds(started, review.created_at),
                "words": sum(a.words for a in answers),
                "pasted_answers": sum(1 for a in answers if a.pasted),
                "flags": [staff_reviews._flag(f) for f in flags.get(i, [])],
                "flags_checked": checked[review.test_id].covers(review.id),
                "reward": None
                if reward is None
                else {
                    "id": reward.id,
                    "amount_cents": reward.amount_cents,
                    "status": reward.status,
                    "payable": reward.status == "PENDING" and reward.approved_at is not None,
                },
                "answers": [
                    {"question": a.question, "text": a.text, "words": a.words, "pasted": a.pasted} for a in answers
                ],
            }
        )
    return items


def list_reviews(
    session: Session,
    *,
    actor_id: Caller,
    test_id: int | None = None,
    status: str | None = None,
    after: int | None = None,
    limit: int = 50,
) -> keyset.Listed[dict[str, Any]]:
    """Reviews newest first (by id), of one test and in one status when asked; `after` the previous page's last."""
    require_staff(session, actor_id, roles.VIEW)
    if status is not None and status not in decisions.STATUSES:
        raise ServiceError(BAD_STATUS, field="status")
    statement = select(Review.id)
    if test_id is not None:
        statement = statement.where(Review.test_id == test_id)
    if status is not None:
        statement = statement.where(Review.status == status)
    after = None if after is None else min(after, MAX_VALUE)
    ids = [row[0] for row in keyset.page(session, statement, Review.id, after=after, limit=limit)]
    chosen = keyset.listed(ids, ids, limit)
    return keyset.Listed(rows=_items(session, chosen.rows), next_after=chosen.next_after)


def read_review(session: Session, *, actor_id: Caller, review_id: int) -> dict[str, Any]:
    """One review with its answers, flags and evidence card, as the staff page shows it."""
    require_staff(session, actor_id, roles.VIEW)
    items = _items(session, [review_id])
    if not items:
        raise NotFound(NO_REVIEW)
    shown = staff_reviews.review_detail(session, actor_id=actor_id, review_id=review_id)
    return {
        **items[0],
        "status_label": shown["status_label"],
        "reject_reason_label": shown["reason"] or None,
        "evidence": shown["evidence"] or None,
        "flags_checked_text": shown["flags_checked"],
        "signals": shown["card"],
    }


def _statuses(session: Session, ids: list[int]) -> list[dict[str, Any]]:
    found = {
        review_id: (status, reward_id, reward_status)
        for review_id, status, reward_id, reward_status in session.execute(
            select(Review.id, Review.status, Reward.id, Reward.status)
            .outerjoin(Reward, Reward.review_id == Review.id)
            .where(Review.id.in_(ids))
        )
    }
    return [
        {"id": i, "status": found[i][0], "reward_id": found[i][1], "reward_status": found[i][2]}
        for i in ids
        if i in found
    ]


def decide(
    session: Session,
    *,
    actor_id: Caller,
    review_ids: Any,
    decision: Any,
    reason: Any = None,
    note: Any = None,
    flags: Any = None,
    evidence: Any = None,
) -> dict[str, Any]:
    """Approve, exclude or reject (with a reason) each undecided review of `review_ids` through the staff service:
    `{"decided": n, "reviews": [{"id", "status", "reward_id", "reward_status"}]}` as they are now. An id that names
    no review refuses the whole request (NotFound); one review asked for and decided already is a Conflict."""
    require_staff(session, actor_id, roles.DECIDE_REVIEWS)
    if decision not in DECISIONS:
        raise ServiceError(BAD_DECISION, field="decision")
    ids = parse_ids(review_ids, staff_reviews.MAX_BULK, noun="review")
    found = set(session.execute(select(Review.id).where(Review.id.in_(ids))).scalars())
    if missing := [i for i in ids if i not in found]:
        raise NotFound(unknown_reviews(missing), field="review_ids" if len(ids) > 1 else "_global")
    try:
        if decision == EXCLUDE:
            count = staff_reviews.exclude(session, actor_id=actor_id, review_ids=ids)
        else:
            count = staff_reviews.decide(
                session,
                actor_id=actor_id,
                review_ids=ids,
                approve=decision == APPROVE,
                reason=reason,
                note=note,
                flags=flags,
                evidence=evidence,
            )
    except ServiceError as err:
        if err.message == staff_reviews.ALREADY_DECIDED:
            raise Conflict(err.message) from None
        raise
    return {"decided": count, "reviews": _statuses(session, ids)}
