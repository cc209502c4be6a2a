"""Staff: submitted reviews (table, one review's answers), approve or reject, the automatic approval,
the reviews CSV, and clearing expired pending reviews."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, join, null, or_, select
from sqlmodel import Session

from portal.domain import inbox
from portal.domain import problem_reports as problem_rules
from portal.domain import table as rules
from portal.domain.quality import flags as quality
from portal.domain.staff import pending, roles
from portal.domain.staff import reviews as decisions
from portal.domain.staff.answers import Answer, flatten
from portal.domain.staff.csv_cells import to_csv
from portal.domain.taking import kinds
from portal.models import Account, Review, ReviewFlag, ReviewSession, Reward, Test, TestVersion
from portal.models._base import utcnow
from portal.services import notification_events, partners, quality_flags, transitions, webhooks
from portal.services.admin import audit
from portal.services.admin.guard import Caller, Staff, require_staff
from portal.services.admin.ids import one_id, parse_ids
from portal.services.errors import ServiceError
from portal.services.tables import Dates, Ids, Options, Own, TablePage, TableQuery, TableSpec, contains
from portal.services.taking import versions
from portal.services.taking.definitions import content_of
from portal.settings import settings

MAX_BULK = 500
ALREADY_DECIDED = "Only reviews waiting for a decision can be approved, excluded or rejected."
AUDIT_ACTIONS = {
    decisions.APPROVED: "review.approve",
    decisions.EXCLUDED: "review.exclude",
    decisions.REJECTED: "review.reject",
}
NO_REVIEW = "This review does not exist."

TABLE = TableSpec(
    key=Review.id,
    sortable={"createdOn": Review.created_at},
    filters=(
        Options("status", Review.status, decisions.STATUSES),
        Ids("test", Review.test_id),
        Dates("createdOn", Review.created_at),
        # The reviews raising any of the chosen quality flags (as last computed, portal/services/quality_flags.py).
        Own(
            "flag",
            quality.KEYS,
            lambda keys: Review.id.in_(select(ReviewFlag.review_id).where(ReviewFlag.key.in_(keys))),
        ),
    ),
    search=lambda _: or_(contains(Account.email), contains(Review.respondent_key), contains(Test.name)),
    # Only a search reads the test and the participant (every review has its test: NOT NULL, FK).
    search_source=join(Review, Test, Test.id == Review.test_id).outerjoin(Account, Account.id == Review.account_id),
)
clean_query = TABLE.clean


def auto_approve_days() -> int:
    return max(1, settings.auto_approve_days)


def _aware(value: datetime) -> datetime:
    from datetime import UTC

    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def _duration(started: datetime | None, ended: datetime | None) -> str:
    if started is None or ended is None:
        return ""
    seconds = max(0, int((_aware(ended) - _aware(started)).total_seconds()))
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


# The questions and concepts of each version met so far (by test and version id), kept while one table or
# export is built.
Questions = dict[tuple[int, int], tuple[list[dict[str, Any]], Any]]


def _answers(session: Session, review: Review, test: Test, known: Questions | None = None) -> list[Answer]:
    """The review's answers under the questions of the version it was given on."""
    known = {} if known is None else known
    key = (test.id, review.version_id or 0)
    if key not in known:
        # The questions as load_definition reads them (without its queries for the qualifications).
        content = content_of(versions.test_on(session, test, review.version_id))
        known[key] = (kinds.kind_of(test.product_type).questions(content), content.get("preferenceTest"))
    questions, preference = known[key]
    return flatten(review.answers or {}, questions, preference, review.options_order or [])


def list_reviews(session: Session, *, actor_id: Caller, query: TableQuery) -> TablePage:
    require_staff(session, actor_id, roles.VIEW)
    values, chosen = TABLE.values(query), TABLE.select(query)
    total = session.execute(chosen.total(), values).scalar_one()
    ids = [r[0] for r in session.execute(chosen.page(), values)]
    if not ids:
        return TablePage(rows=[], total=int(total))
    found = session.execute(
        select(Review, Test, Account.email, ReviewSession.started_at, Reward.amount_cents, Reward.status)
        .join(Test, Test.id == Review.test_id)
        .outerjoin(Account, Account.id == Review.account_id)
        .outerjoin(ReviewSession, ReviewSession.id == Review.session_id)
        .outerjoin(Reward, Reward.review_id == Review.id)
        .where(Review.id.in_(ids))
    ).all()
    by_id = {row[0].id: row for row in found}
    days = auto_approve_days()
    known: Questions = {}
    flags = quality_flags.flags_of(session, ids)
    checked = quality_flags.checked_of(session, [row[0].test_id for row in found])
    rows = []
    for i in ids:
        review, test, email, started, amount, reward_status = by_id[i]
        row = _row(session, review, test, email, started, amount, reward_status, days, known)
        row["flags"] = [_flag(f) for f in flags.get(i, [])]
        row["flags_pending"] = "" if checked[test.id].covers(review.id) else FLAGS_PENDING
        rows.append(row)
    return TablePage(rows=rows, total=int(total))


FLAGS_PENDING = "Flags not checked yet"


def _flag(flag: ReviewFlag) -> dict[str, str]:
    return {"key": flag.key, "title": quality.TITLES.get(flag.key, flag.key), "label": flag.label}


def checked_text(at: datetime | None) -> str:
    """When the flags were last computed, as staff read it."""
    if at is None:
        return "Quality flags have not been checked for this test yet."
    return f"Quality flags checked {at.strftime('%Y-%m-%d %H:%M')} UTC; they are checked again every minute."


def flags_checked(session: Session, *, actor_id: Caller, test_id: Any) -> str:
    """When the test's flags were last checked, as staff read it."""
    require_staff(session, actor_id, roles.VIEW)
    tid = one_id(test_id, "Choose a test to check its flags.")
    return checked_text(quality_flags.checked(session, tid).at)


def check_flags(session: Session, *, actor_id: Caller, test_id: Any) -> str:
    """'Check flags now' for one test: computes its flags when due (new reviews, or a participant's decision on
    another test since); the text of when they were checked."""
    require_staff(session, actor_id, roles.VIEW)
    tid = one_id(test_id, "Choose a test to check its flags.")
    if session.get(Test, tid) is None:
        raise ServiceError("This test does not exist.")
    quality_flags.refresh_test(session, test_id=tid)
    return checked_text(quality_flags.checked(session, tid).at)


def _row(
    session: Session,
    review: Review,
    test: Test,
    email: str | None,
    started: datetime | None,
    amount: int | None,
    reward_status: str | None,
    days: int,
    known: Questions,
) -> dict[str, Any]:
    answers = _answers(session, review, test, known)
    due = decisions.auto_approve_at(_aware(review.created_at), days) if review.status == decisions.SUBMITTED else None
    return {
        "id": str(review.id),
        "test": test.name,
        "test_id": str(test.id),
        "participant": email or review.respondent_key,
        "submitted": review.created_at.strftime("%Y-%m-%d %H:%M") if review.created_at else "",
        "time_taken": _duration(started, review.created_at),
        "words": str(sum(a.words for a in answers)),
        "pasted": str(sum(1 for a in answers if a.pasted)),
        "status": review.status,
        "status_label": decisions.STATUS_LABELS.get(review.status, review.status),
        "reason": decisions.REJECTION_REASONS.get(review.reject_reason or "", ""),
        "auto_approve": f"Auto-approves {rules.format_date(due)}" if due else "",
        "reward": rules.format_money(amount) if amount is not None else "",
        "undecided": "yes" if review.status == decisions.SUBMITTED else "",
        # A message to the participant about this review (issue 38), when it has one.
        "message_url": f"{inbox.STAFF_PATH}?to={review.account_id}&review={review.id}" if review.account_id else "",
    }


def review_detail(session: Session, *, actor_id: Caller, review_id: Any) -> dict[str, Any]:
    require_staff(session, actor_id, roles.VIEW)
    rid = one_id(review_id, NO_REVIEW)
    review = session.get(Review, rid)
    if review is None:
        raise ServiceError(NO_REVIEW)
    test = session.get(Test, review.test_id)
    if test is None:  # a review's test is never deleted before the review (foreign key)
        raise ServiceError(NO_REVIEW)
    account = session.get(Account, review.account_id) if review.account_id else None
    run = session.get(ReviewSession, review.session_id) if review.session_id else None
    started = run.started_at if run else None
    answers = _answers(session, review, test)
    version = session.get(TestVersion, review.version_id) if review.version_id else None
    checked = quality_flags.checked(session, test.id)
    return {
        "id": str(review.id),
        "test": test.name,
        "version": str(version.number) if version else "",
        "participant": (account.email if account else review.respondent_key) or "",
        "submitted": review.created_at.strftime("%Y-%m-%d %H:%M") if review.created_at else "",
        "time_taken": _duration(started, review.created_at),
        "status": review.status,
        "status_label": decisions.STATUS_LABELS.get(review.status, review.status),
        "reason": decisions.REJECTION_REASONS.get(review.reject_reason or "", ""),
        "note": review.reject_note or "",
        "evidence": decisions.evidence_text(review.reject_flags, review.reject_evidence),
        "answers": [
            {
                "question": a.question,
                "text": a.text or "—",
                "words": str(a.words) if a.words else "",
                "pasted": "Pasted" if a.pasted else "",
            }
            for a in answers
        ],
        "flags": [_flag(f) for f in quality_flags.flags_of(session, [review.id]).get(review.id, [])],
        "flags_checked": checked_text(checked.at) if checked.covers(review.id) else FLAGS_PENDING + ".",
        "card": [
            {"label": line.label, "value": line.value, "median": line.median}
            for line in quality_flags.card_of(session, review, test, started)
        ],
    }


def decide(
    session: Session,
    *,
    actor_id: Caller,
    review_ids: Any,
    approve: Any,
    reason: Any = None,
    note: Any = None,
    flags: Any = None,
    evidence: Any = None,
    now: datetime | None = None,
) -> int:
    """Approve (the reward becomes payable) or reject with a reason (the reward is canceled) each
    undecided review; returns how many were decided. A rejection may attach the evidence it rests on: `flags`
    (a list of flag keys, decisions.EVIDENCE_FLAGS) and `evidence` (a short text); the participant reads both."""
    staff = require_staff(session, actor_id, roles.DECIDE_REVIEWS)
    if not isinstance(approve, bool):
        raise ServiceError("Choose approve or reject.")
    note = note.strip() if isinstance(note, str) else None
    evidence = evidence.strip() if isinstance(evidence, str) else evidence
    if not approve and (problem := decisions.reason_problem(reason, note)):
        raise ServiceError(problem, field="reason")
    if not approve and (problem := decisions.evidence_problem(flags, evidence)):
        raise ServiceError(problem, field="evidence")
    ids = parse_ids(review_ids, MAX_BULK, noun="review")
    chosen = list(dict.fromkeys(flags)) if flags and not approve else None
    return _decide(
        session,
        staff,
        ids,
        decisions.APPROVED if approve else decisions.REJECTED,
        reason if not approve else None,
        note or None if not approve else None,
        now or utcnow(),
        strict=len(ids) == 1,
        flags=chosen,
        evidence=(evidence or None) if not approve else None,
    )


def exclude(session: Session, *, actor_id: Caller, review_ids: Any, now: datetime | None = None) -> int:
    """Exclude each undecided review: its reward becomes payable exactly as on approval (the participant is
    paid), but the review is left out of results and exports by default (domain/results/filters.EXCLUDED).
    Returns how many were excluded; one review asked for and already decided answers ALREADY_DECIDED."""
    staff = require_staff(session, actor_id, roles.DECIDE_REVIEWS)
    ids = parse_ids(review_ids, MAX_BULK, noun="review")
    return _decide(session, staff, ids, decisions.EXCLUDED, None, None, now or utcnow(), strict=len(ids) == 1)


def _decide(
    session: Session,
    staff: Staff,
    ids: list[int],
    status: str,
    reason: str | None,
    note: str | None,
    now: datetime,
    *,
    strict: bool = False,
    action: str | None = None,
    flags: list[str] | None = None,
    evidence: str | None = None,
) -> int:
    """Decide each review of `ids` still undecided, exactly once (a write that expects 'submitted'): a
    review another tab or round decided first is left alone and not counted; with `strict` (one review
    asked for) that answers ALREADY_DECIDED. The reward of each review decided here follows it if still
    pending: payable when approved or excluded, canceled when rejected. One audit row per review decided."""
    paid = status in decisions.PAID_DECISIONS
    moved = transitions.move(
        session,
        Review,
        Review.id.in_(ids),
        Review.status == decisions.SUBMITTED,
        values={
            "status": status,
            "decided_at": now,
            "decided_by_id": staff.account_id or None,
            "reject_reason": reason,
            "reject_note": note,
            "reject_flags": flags if flags else null(),  # SQL NULL, not JSON 'null'
            "reject_evidence": evidence,
        },
    )
    if strict and not moved:
        raise ServiceError(ALREADY_DECIDED)
    if not moved:
        return 0
    followed = set(
        transitions.move(
            session,
            Reward,
            Reward.review_id.in_(moved),
            Reward.status == "PENDING",
            values={"approved_at": now} if paid else {"status": "CANCELED"},
        )
    )
    rewards_now = {
        review_id: (reward_id, reward_status)
        for review_id, reward_id, reward_status in session.execute(
            select(Reward.review_id, Reward.id, Reward.status).where(Reward.review_id.in_(moved))
        )
    }
    for review_id in moved:
        reward_id, reward_status = rewards_now.get(review_id, (None, None))
        audit.record(
            session,
            staff,
            action or AUDIT_ACTIONS[status],
            "review",
            review_id,
            {"status": decisions.SUBMITTED, "reward": "PENDING" if reward_id in followed else reward_status},
            {
                "status": status,
                "reward": reward_status,
                **({"reason": reason, "note": note, "flags": flags, "evidence": evidence} if not paid else {}),
            },
        )
    notification_events.reviews_decided(session, moved, status, reason, note)
    webhooks.reviews_decided(session, moved)  # review.decided, one event per review decided here
    if status == decisions.REJECTED:  # a panel exchange's participant: the exchange hears 'quality' (issue 39)
        partners.reviews_rejected(session, moved, now)
    return len(moved)


def due_for_approval(session: Session, now: datetime, days: int, *, after: int = 0) -> list[int]:
    """Ids of undecided reviews older than `days`, above `after`, in order (1,000 at most)."""
    cutoff = now - timedelta(days=days)
    return list(
        session.execute(
            select(Review.id)
            .where(Review.status == decisions.SUBMITTED, Review.created_at <= cutoff, Review.id > after)
            .order_by(Review.id)
            .limit(1000)
        ).scalars()
    )


def auto_approve(session: Session, *, now: datetime | None = None, days: int | None = None) -> int:
    """The scheduled job: approve every review left undecided for `days` (settings.auto_approve_days).
    Safe with several workers or machines at once: each review is approved by whichever round writes
    first, once; the others skip it (and do not count it)."""
    now = now or utcnow()
    total, last = 0, 0
    while ids := due_for_approval(session, now, days or auto_approve_days(), after=last):
        total += _decide(session, audit.SYSTEM, ids, decisions.APPROVED, None, None, now, action="review.auto-approve")
        last = ids[-1]
    return total


def export_csv(session: Session, *, actor_id: Caller, test_id: Any) -> tuple[str, str]:
    """(file name, CSV text) of a test's reviews: one row per review, one column per question."""
    staff = require_staff(session, actor_id, roles.EXPORT)
    tid = one_id(test_id, "Choose a test to export its reviews.")
    test = session.get(Test, tid)
    if test is None:
        raise ServiceError("This test does not exist.")
    found = session.execute(
        select(Review, Account.email, ReviewSession.started_at, TestVersion.number)
        .outerjoin(Account, Account.id == Review.account_id)
        .outerjoin(ReviewSession, ReviewSession.id == Review.session_id)
        .outerjoin(TestVersion, TestVersion.id == Review.version_id)
        .where(Review.test_id == tid)
        .order_by(Review.created_at, Review.id)
    ).all()
    known: Questions = {}
    flat = [
        (review, email, started, number, _answers(session, review, test, known))
        for review, email, started, number in found
    ]
    columns: dict[str, str] = {}
    for *_rest, answers in flat:
        for a in answers:
            columns.setdefault(a.column, a.question)
    header = [
        "review_id",
        "test_version",
        "participant",
        "submitted_at",
        "status",
        "rejection_reason",
        "time_taken",
        "words",
        "pasted_answers",
        *columns.values(),
    ]
    rows = []
    for review, email, started, number, answers in flat:
        by_column = {a.column: a.text for a in answers}
        rows.append(
            [
                review.id,
                number or "",
                email or review.respondent_key,
                review.created_at.isoformat() if review.created_at else "",
                review.status,
                decisions.REJECTION_REASONS.get(review.reject_reason or "", ""),
                _duration(started, review.created_at),
                sum(a.words for a in answers),
                sum(1 for a in answers if a.pasted),
                *(by_column.get(c, "") for c in columns),
            ]
        )
    audit.record(session, staff, "reviews.export", "test", tid, {}, {"rows": len(rows)})
    return f"reviews-test-{tid}.csv", to_csv(header, rows)


def clear_expired_pending(session: Session, *, actor_id: Caller, now: datetime | None = None) -> str:
    """'Clear expired pending reviews': the spec's message for what happened."""
    staff = require_staff(session, actor_id, roles.CLEAR_PENDING)
    now = now or utcnow()
    # Only sessions still active move (one write naming that state): clearing at once from two tabs, or
    # against a submission, counts and records each session once.
    count = len(
        transitions.move(
            session,
            ReviewSession,
            ReviewSession.status == "active",
            ReviewSession.deadline_at < now,
            # A paused test's sessions keep their time: resuming moves their deadlines on (issue 38).
            ReviewSession.test_id.not_in(select(Test.id).where(Test.status == problem_rules.PAUSED)),
            values={"status": "cleared", "updated_at": now},
        )
    )
    if not count:
        return pending.NONE_TO_CLEAR
    audit.record(
        session,
        staff,
        "pending-reviews.clear",
        "review-session",
        "",
        {"status": "active"},
        {"status": "cleared", "count": count},
    )
    return pending.CLEARED


def approval_preview(session: Session, *, actor_id: Caller, review_ids: Any) -> tuple[int, int]:
    """What approving (or excluding: the same payment) these reviews would do, for the confirmation: how many
    are waiting for a decision (the ones `decide`/`exclude` decide), and the sum in cents of their rewards that
    would become payable (PENDING ones)."""
    require_staff(session, actor_id, roles.DECIDE_REVIEWS)
    ids = parse_ids(review_ids, MAX_BULK, noun="review")
    count, cents = session.execute(
        select(func.count(Review.id), func.coalesce(func.sum(Reward.amount_cents), 0))
        .select_from(Review)
        .outerjoin(Reward, and_(Reward.review_id == Review.id, Reward.status == "PENDING"))
        .where(Review.id.in_(ids), Review.status == decisions.SUBMITTED)
    ).one()
    return int(count), int(cents)
