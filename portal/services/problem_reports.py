"""'Report a problem' while taking a test (issue 38, item 4): the participant's side.

The reporter is who the server says they are (the session cookie, or the public respondent key the rating page
holds), and they must have a started, unsubmitted session of that test: nobody reports on a test they are not
taking. Each report is e-mailed to staff at once (REPORTS_EMAIL, else every super-admin and team owner). When enough
different people report (portal/domain/problem_reports.py) the test pauses: one write naming the state it expects
(running), so 50 reports at once pause it once, audited as the system's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain import problem_reports as rules
from portal.domain.ids import whole_number
from portal.domain.staff import roles
from portal.domain.taking.access import respondent_key
from portal.models import Account, ProblemReport, ReviewSession, Test
from portal.models._base import utcnow
from portal.services import row_locks, transitions, webhooks
from portal.services.admin import audit
from portal.services.errors import ServiceError
from portal.services.outbox import enqueue_email
from portal.services.sessions import resolve_user
from portal.services.taking.review_sessions import PUBLIC_KEY
from portal.settings import settings

REPORTS_PATH = "/admin/reports"


def _reporter(session: Session, token: str | None, respondent: Any) -> tuple[int | None, str]:
    user = resolve_user(session=session, token=token)
    if user is not None:
        return user.account_id, respondent_key(user.account_id)
    if isinstance(respondent, str) and PUBLIC_KEY.match(respondent):
        return None, respondent
    raise ServiceError(rules.NOT_TAKING)


def taking_count(session: Session, test: Test) -> int:
    """Who takes part: the participant limit, or how many have started the test."""
    if test.participant_limit:
        return int(test.participant_limit)
    return int(
        session.execute(
            select(func.count(func.distinct(ReviewSession.respondent_key))).where(ReviewSession.test_id == test.id)
        ).scalar_one()
    )


def open_reporters(session: Session, test_id: int) -> int:
    """Different people whose reports staff have not handled yet."""
    return int(
        session.execute(
            select(func.count(func.distinct(ProblemReport.respondent_key))).where(
                ProblemReport.test_id == test_id, ProblemReport.handled_at.is_(None)
            )
        ).scalar_one()
    )


def staff_addresses(session: Session) -> list[str]:
    if settings.reports_email:
        return [settings.reports_email]
    return list(
        session.execute(
            select(Account.email)
            .where(
                Account.staff_role.in_([roles.SUPER_ADMIN, roles.TEAM_OWNER]),
                Account.removed_at.is_(None),
                Account.email.is_not(None),
            )
            .order_by(Account.id)
        ).scalars()
    )


def _tell_staff(session: Session, test: Test, subject: str, body: str) -> None:
    link = f"{settings.base_url}{REPORTS_PATH}?test={test.id}"
    for address in staff_addresses(session):
        enqueue_email(
            session=session, to=address, subject=subject, body=f"{body}\n\n{link}\n", kind="problem-report", link=link
        )


def report(
    session: Session,
    *,
    token: str | None,
    respondent: Any = None,
    test_id: Any,
    category: Any,
    text: Any,
    now: datetime | None = None,
) -> bool:
    """Record the report; whether the test paused because of it. ServiceError (nothing stored) for bad input or a
    caller not taking the test."""
    now = now or utcnow()
    chosen, words, problems = rules.clean(category, text)
    if problems:
        raise ServiceError(next(iter(problems.values())), field=next(iter(problems)), errors=problems)
    account_id, key = _reporter(session, token, respondent)
    number = whole_number(test_id) if isinstance(test_id, int) else None
    test = row_locks.locked(session, Test, number) if number else None  # reports of one test one at a time
    if test is None:
        raise ServiceError(rules.NOT_TAKING)
    taking = session.execute(
        select(ReviewSession)
        .where(ReviewSession.test_id == test.id, ReviewSession.respondent_key == key, ReviewSession.status == "active")
        .order_by(ReviewSession.id.desc())
        .limit(1)
    ).scalar_one_or_none()
    if taking is None or test.status not in ("running", rules.PAUSED):
        raise ServiceError(rules.NOT_TAKING)
    problem = ProblemReport(
        test_id=test.id,
        session_id=taking.id,
        account_id=account_id,
        respondent_key=key,
        category=chosen,
        text=words,
        created_at=now,
    )
    session.add(problem)
    session.flush()
    webhooks.problem_reported(session, problem)
    label = rules.LABELS[chosen]
    _tell_staff(
        session,
        test,
        f"Problem reported on {test.name}: {label}",
        f"A participant taking '{test.name}' reported: {label}.\n\n{words}",
    )
    reporters, taking_part = open_reporters(session, test.id), taking_count(session, test)
    if test.status != "running" or not rules.should_pause(reporters, taking_part):
        return False
    if not transitions.move(
        session, Test, Test.id == test.id, Test.status == "running", values={"status": rules.PAUSED, "paused_at": now}
    ):
        return False
    audit.record(
        session,
        audit.SYSTEM,
        "test.paused",
        "test",
        test.id,
        {"status": "running"},
        {"status": rules.PAUSED, "reporters": reporters, "taking_part": taking_part},
    )
    _tell_staff(
        session,
        test,
        f"{test.name} is paused: {reporters} participants reported a problem",
        f"'{test.name}' paused itself after {reporters} of about {taking_part} participants reported a problem. "
        "Nobody can submit until you resume it; open sessions keep their answers and their time stops. Resume it, "
        "or close it and pay the reporters pro rata, on the reports page.",
    )
    return True
