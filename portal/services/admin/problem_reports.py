"""Staff: participants' problem reports (issue 38, item 4), behind require_staff.

The reports page lists reports newest first (new ones marked until a staff member has seen them), per test when
asked, with each paused test. Staff with MANAGE_TESTS resume a paused test (every open session's deadline moves on
by the time the test was paused, so the reporters finish where they were) or close it and pay the reporters pro
rata (portal/domain/problem_reports.py). Each is one write naming the state it expects (paused): two staff members
at once, or 50 clicks, do it once; the rewards of a close are made only by the write that closed it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlmodel import Session

from portal.domain import payouts as payout_rules
from portal.domain import problem_reports as rules
from portal.domain import table as table_rules
from portal.domain.ids import whole_number
from portal.domain.inbox import stamp
from portal.domain.staff import roles
from portal.models import Invite, ParticipantProfile, ProblemReport, ReviewSession, Reward, Test
from portal.models._base import utcnow
from portal.services import transitions
from portal.services.admin import audit
from portal.services.admin.guard import Caller, require_staff
from portal.services.errors import ServiceError

PAGE = 100


def _aware(moment: datetime | None) -> datetime | None:
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


def new_count(session: Session, *, actor_id: Caller) -> int:
    require_staff(session, actor_id, roles.VIEW)
    return int(
        session.execute(
            select(func.count()).select_from(ProblemReport).where(ProblemReport.seen_at.is_(None))
        ).scalar_one()
    )


def reports(session: Session, *, actor_id: Caller, test_id: Any = None, now: datetime | None = None) -> dict[str, Any]:
    """The newest reports (of one test when given) and the paused tests; the reports shown are marked seen."""
    require_staff(session, actor_id, roles.VIEW)
    now = now or utcnow()
    query = select(ProblemReport, Test.name).join(Test, Test.id == ProblemReport.test_id)
    if test_id not in (None, ""):
        query = query.where(ProblemReport.test_id == (whole_number(test_id) or -1))
    rows = session.execute(query.order_by(ProblemReport.id.desc()).limit(PAGE)).all()
    names = {
        account_id: f"{first or ''} {last or ''}".strip()
        for account_id, first, last in session.execute(
            select(ParticipantProfile.account_id, ParticipantProfile.first_name, ParticipantProfile.last_name).where(
                ParticipantProfile.account_id.in_({r.account_id for r, _ in rows if r.account_id})
            )
        )
    }
    listed = [
        {
            "id": str(r.id),
            "test_id": str(r.test_id),
            "test": name,
            "category": rules.LABELS.get(r.category, r.category),
            "text": r.text,
            "who": names.get(r.account_id or 0) or ("Participant" if r.account_id else "Public respondent"),
            "account_id": str(r.account_id or ""),
            "when": stamp(r.created_at),
            "new": "1" if r.seen_at is None else "",
            "handled": {"resumed": "Resumed", "closed": "Closed, paid pro rata"}.get(r.outcome or "", ""),
        }
        for r, name in rows
    ]
    session.execute(
        update(ProblemReport)
        .where(ProblemReport.id.in_([int(x["id"]) for x in listed if x["new"]]))
        .values(seen_at=now)
    )
    paused = [
        {
            "id": str(t.id),
            "name": t.name,
            "since": stamp(t.paused_at),
            "reporters": str(
                session.execute(
                    select(func.count(func.distinct(ProblemReport.respondent_key))).where(
                        ProblemReport.test_id == t.id, ProblemReport.handled_at.is_(None)
                    )
                ).scalar_one()
            ),
        }
        for t in session.execute(select(Test).where(Test.status == rules.PAUSED).order_by(Test.paused_at)).scalars()
    ]
    return {"reports": listed, "paused": paused}


def _paused(session: Session, test_id: Any) -> Test:
    number = whole_number(test_id)
    test = session.get(Test, number) if number else None
    if test is None:
        raise ServiceError(rules.NOT_FOUND)
    if test.status != rules.PAUSED:
        raise ServiceError(rules.NOT_PAUSED)
    return test


def resume(session: Session, *, actor_id: Caller, test_id: Any, now: datetime | None = None) -> int:
    """Running again; every open session's deadline moves on by the pause. How many sessions moved on."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    now = now or utcnow()
    test = _paused(session, test_id)
    paused_at = _aware(test.paused_at)
    if not transitions.move(
        session, Test, Test.id == test.id, Test.status == rules.PAUSED, values={"status": "running", "paused_at": None}
    ):
        raise ServiceError(rules.NOT_PAUSED)
    pause = timedelta(seconds=rules.pause_length_seconds(paused_at, now))
    sessions = list(
        session.execute(
            select(ReviewSession).where(ReviewSession.test_id == test.id, ReviewSession.status == "active")
        ).scalars()
    )
    for row in sessions:
        row.deadline_at = (_aware(row.deadline_at) or now) + pause
        row.updated_at = now
        session.add(row)
    _handle(session, test.id, "resumed", now)
    audit.record(
        session,
        staff,
        "test.resumed",
        "test",
        test.id,
        {"status": rules.PAUSED},
        {"status": "running", "paused_seconds": int(pause.total_seconds()), "sessions_moved_on": len(sessions)},
    )
    return len(sessions)


def close_and_pay(session: Session, *, actor_id: Caller, test_id: Any, now: datetime | None = None) -> int:
    """Closed; each reporter with an open session gets a reward for the share of the time they had used when the
    test paused. How many were paid."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    now = now or utcnow()
    test = _paused(session, test_id)
    paused_at = _aware(test.paused_at) or now
    if not transitions.move(
        session, Test, Test.id == test.id, Test.status == rules.PAUSED, values={"status": rules.CLOSED}
    ):
        raise ServiceError(rules.NOT_PAUSED)
    reporters = sorted(
        set(
            session.execute(
                select(ProblemReport.session_id).where(
                    ProblemReport.test_id == test.id,
                    ProblemReport.handled_at.is_(None),
                    ProblemReport.account_id.is_not(None),
                    ProblemReport.session_id.is_not(None),
                )
            ).scalars()
        )
    )
    paid: list[dict[str, Any]] = []
    for row in session.execute(
        select(ReviewSession).where(ReviewSession.id.in_(reporters), ReviewSession.status == "active")
    ).scalars():
        invite = session.execute(
            select(Invite.amount_cents)
            .where(Invite.account_id == row.account_id, Invite.test_id == test.id)
            .order_by(Invite.id.desc())
            .limit(1)
        ).scalar_one_or_none()
        pays = invite if invite is not None else test.payout_cents
        cents = rules.pro_rata_cents(pays, _aware(row.started_at) or paused_at, paused_at, test.session_seconds)
        if cents <= 0 or row.account_id is None:
            continue
        if not transitions.move(
            session,
            ReviewSession,
            ReviewSession.id == row.id,
            ReviewSession.status == "active",
            values={"status": "closed", "updated_at": now},
        ):
            continue
        reward = Reward(
            account_id=row.account_id,
            amount_cents=cents,
            status="PENDING",
            created_at=now,
            approved_at=now,
            test_id=test.id,
            product_type=test.product_type,
            kind=payout_rules.PRO_RATA,
        )
        session.add(reward)
        session.flush()
        paid.append({"account": row.account_id, "reward": reward.id, "cents": cents, "of_cents": pays})
    _handle(session, test.id, "closed", now)
    audit.record(
        session,
        staff,
        "test.closed-after-reports",
        "test",
        test.id,
        {"status": rules.PAUSED},
        {"status": rules.CLOSED, "paid": paid, "total": table_rules.format_money(sum(p["cents"] for p in paid))},
    )
    return len(paid)


def _handle(session: Session, test_id: int, outcome: str, now: datetime) -> None:
    session.execute(
        update(ProblemReport)
        .where(ProblemReport.test_id == test_id, ProblemReport.handled_at.is_(None))
        .values(handled_at=now, outcome=outcome, seen_at=func.coalesce(ProblemReport.seen_at, now))
    )
