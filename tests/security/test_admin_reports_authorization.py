"""The problem reports page (issue 38, item 4) against the real app, as raw websocket events: every public handler
of AdminReportsState sent by anonymous visitors, participants and each staff role, with good and bad arguments.
Staff read the reports; only staff who manage tests resume a paused test or close one and pay its reporters;
nobody else changes either test; the server logs no traceback. A check that the scenario sends every handler."""

from __future__ import annotations

import inspect
import uuid
from datetime import timedelta

import pytest
from sqlmodel import Session

from portal.domain import problem_reports as rules
from portal.domain.staff import roles
from portal.models import ProblemReport, ReviewSession, Test
from portal.models._base import utcnow
from portal.states.admin.problem_reports import AdminReportsState
from tests.support.people import caller, demo_test, person
from tests.support.raw_tab import RawTab, run, tracebacks

R = AdminReportsState.get_full_name()
CALLERS = ("anonymous", "participant", *roles.ROLES)


def paused_test(db: Session, text: str) -> int:
    """A paused test with one reporter (an account with an open session) and their report."""
    test = demo_test(db, "01-survey.json")
    test.status, test.paused_at = rules.PAUSED, utcnow()
    db.add(test)
    who = person(db)
    started = utcnow() - timedelta(minutes=5)
    run_row = ReviewSession(
        test_id=test.id,
        account_id=who.account_id,
        respondent_key=f"account:{who.account_id}",
        started_at=started,
        deadline_at=started + timedelta(seconds=test.session_seconds),
    )
    db.add(run_row)
    db.flush()
    db.add(
        ProblemReport(
            test_id=test.id,
            session_id=run_row.id,
            account_id=who.account_id,
            respondent_key=f"account:{who.account_id}",
            category="timer",
            text=text,
        )
    )
    db.commit()
    return test.id


async def act(base: str, cookie: str | None, resume_id: int, close_id: int) -> dict[str, str]:
    seen: dict[str, str] = {}
    tab = RawTab(base, cookie=cookie)
    await tab.open("/admin/reports", settle=0.3)

    async def send(name: str, payload: dict | None = None, settle: float = 0.2) -> None:
        await tab.answer(name, payload or {}, settle=settle)

    await send(f"{R}.load_page")
    await send(f"{R}.refresh", settle=0.3)
    seen["list"] = tab.text()
    for bad in (None, 1.5, [], {"a": 1}, "x" * 5000, "-1", "999999999"):
        await send(f"{R}.resume", {"test_id": bad}, settle=0.05)
        await send(f"{R}.ask_close", {"test_id": bad}, settle=0.05)
    await send(f"{R}.confirm_close", settle=0.05)  # nothing asked: nothing closed
    await send(f"{R}.ask_close", {"test_id": str(close_id)})
    await send(f"{R}.cancel_close")
    await send(f"{R}.resume", {"test_id": str(resume_id)}, settle=0.3)
    await send(f"{R}.ask_close", {"test_id": str(close_id)})
    await send(f"{R}.confirm_close", settle=0.3)
    await tab.close()
    return seen


@pytest.mark.parametrize("kind", CALLERS)
def test_staff_read_reports_and_only_those_who_manage_tests_resume_or_close(app_server, kind):
    marker = uuid.uuid4().hex
    with app_server.db() as db:
        resume_id = paused_test(db, f"resume me {marker}")
        close_id = paused_test(db, f"close me {marker}")
        me = caller(db, kind)
    log_start = app_server.log_path.stat().st_size
    seen = run(act(app_server.url, me.cookie, resume_id, close_id))
    role = kind if kind in roles.ROLES else None
    assert (f"resume me {marker}" in seen["list"]) == roles.may(role, roles.VIEW), kind
    may = roles.may(role, roles.MANAGE_TESTS)
    with app_server.db() as db:
        assert db.get(Test, resume_id).status == ("running" if may else rules.PAUSED), kind
        assert db.get(Test, close_id).status == (rules.CLOSED if may else rules.PAUSED), kind
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == [], kind


def test_the_scenario_sends_every_public_handler():
    source = inspect.getsource(act)
    missing = [h for h in AdminReportsState.event_handlers if h != "setvar" and f'{{R}}.{h}"' not in source]
    assert not missing, missing
