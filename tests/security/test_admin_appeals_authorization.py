"""Appeals against the real app (issue 36, item 4), as raw websocket events. Staff: every public handler of the
appeals page's state sent by anonymous visitors, participants, each staff role and the staff member who rejected
the review: only staff who decide reviews see the appeal, only those who did not reject it decide it (the one who
rejected gets the service's message, also when the event is sent by hand), and the server logs no traceback.
Participants: the rewards tab's appeal handlers appeal only the caller's own rejected review, once. A check that
the scenarios send every handler of both states."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from sqlmodel import Session, select

from portal.domain.staff import appeals as rules
from portal.domain.staff import roles
from portal.models import Account, ReviewAppeal
from portal.services import appeals
from portal.services.admin import reviews
from portal.states.admin.appeals import AdminAppealsState
from portal.states.table import RewardsTableState
from tests.security.test_admin_authorization import TABLE_READS, TABLE_VIEW_ONLY, _review
from tests.support.people import Person, caller, demo_test, person
from tests.support.raw_tab import RawTab, run, tracebacks

A = AdminAppealsState.get_full_name()
W = RewardsTableState.get_full_name()
CALLERS = ("anonymous", "participant", *roles.ROLES, "rejecter")


def _rejected(db: Session, rejecter_id: int | None) -> tuple[Person, int]:
    """A participant (signed in) whose review `rejecter_id` rejected: (the participant, the review id)."""
    who = person(db)
    account = db.get(Account, who.account_id)
    review, _ = _review(db, demo_test(db, "01-survey.json").id, account)
    db.commit()
    reviews.decide(
        session=db, actor_id=rejecter_id, review_ids=[review.id], approve=False, reason="low-effort", flags=["pasted"]
    )
    db.commit()
    return who, review.id


def _world(db: Session, kind: str) -> tuple[Person, int, str]:
    """The caller, an open appeal and the appellant's e-mail (only staff who decide reviews may read it)."""
    rejecter = caller(db, roles.TEAM_MANAGER)
    appellant, review_id = _rejected(db, rejecter.account_id)
    appeal_id = appeals.appeal(
        session=db, account_id=appellant.account_id, review_id=review_id, message="I read them all."
    )
    db.commit()
    who = rejecter if kind == "rejecter" else caller(db, kind)
    return who, appeal_id, appellant.email


async def act(base: str, cookie: str | None, appeal_id: int) -> dict[str, str]:
    seen: dict[str, str] = {}
    tab = RawTab(base, cookie=cookie)
    await tab.open("/admin/appeals", settle=0.3)

    async def send(name: str, payload: dict[str, Any] | None = None, settle: float = 0.2) -> None:
        await tab.answer(name, payload or {}, settle=settle)

    await send(f"{A}.load_page")
    for name in (*TABLE_READS, *TABLE_VIEW_ONLY):
        payload = {
            "set_page": {"page": 1},
            "set_page_size": {"size": 50},
            "sort": {"column": "createdOn"},
            "search": {"text": ""},
            "toggle_filter_value": {"name": "status", "value": "open"},
            "set_filter_mode": {"name": "status", "mode": "list"},
            "set_range_from": {"value": "2020-01-01"},
            "set_range_to": {"value": "2020-01-02"},
            "toggle_selected": {"row_id": str(appeal_id)},
            "log_render_failure": {"error": "x", "component_stack": "y"},
        }.get(name, {})
        await send(f"{A}.{name}", payload)
    await send(f"{A}.load_page")
    seen["list"] = tab.text()
    tab.received.clear()
    for bad in (None, 1, [], {"a": 1}, "x" * 5000):
        await send(f"{A}.ask_uphold", {"appeal_id": bad}, settle=0.05)
        await send(f"{A}.set_decide_note", {"note": bad}, settle=0.05)
    await send(f"{A}.cancel_decide")
    await send(f"{A}.ask_uphold", {"appeal_id": str(appeal_id)})
    await send(f"{A}.confirm_decide")  # no note: refused by the dialog
    await send(f"{A}.cancel_decide")
    await send(f"{A}.ask_overturn", {"appeal_id": str(appeal_id)})
    await send(f"{A}.set_decide_note", {"note": "The answers were fine."})
    await send(f"{A}.confirm_decide", settle=0.4)
    seen["decide"] = tab.text()
    await tab.close()
    return seen


@pytest.mark.parametrize("kind", CALLERS)
def test_only_staff_who_did_not_reject_decide_an_appeal(app_server, kind):
    with app_server.db() as db:
        who, appeal_id, email = _world(db, kind)
    log_start = app_server.log_path.stat().st_size
    seen = run(act(app_server.url, who.cookie, appeal_id))
    role = roles.TEAM_MANAGER if kind == "rejecter" else kind if kind in roles.ROLES else None
    may_see = roles.may(role, roles.DECIDE_REVIEWS)
    may_decide = may_see and kind != "rejecter"
    assert (email in seen["list"]) == may_see, kind
    assert ("I read them all." in seen["list"]) == may_see, kind
    with app_server.db() as db:
        stored = db.exec(select(ReviewAppeal).where(ReviewAppeal.id == appeal_id)).one()
    assert stored.status == ("overturned" if may_decide else "open"), kind
    if kind == "rejecter":
        assert rules.OWN_REJECTION in seen["decide"]
    if not may_see:
        assert email not in "".join(seen.values()), kind
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == [], kind


async def appeal_as(base: str, cookie: str | None, review_id: int, message: str) -> str:
    tab = RawTab(base, cookie=cookie)
    await tab.open("/", settle=0.5)
    await tab.answer(f"{W}.ask_appeal", {"review_id": str(review_id)}, settle=0.2)
    await tab.answer(f"{W}.set_appeal_message", {"text": ""}, settle=0.1)
    await tab.answer(f"{W}.send_appeal", {}, settle=0.2)  # no message: refused
    await tab.answer(f"{W}.cancel_appeal", {}, settle=0.1)
    await tab.answer(f"{W}.ask_appeal", {"review_id": str(review_id)}, settle=0.2)
    await tab.answer(f"{W}.set_appeal_message", {"text": message}, settle=0.1)
    await tab.answer(f"{W}.send_appeal", {}, settle=0.4)
    await tab.answer(f"{W}.send_appeal", {}, settle=0.4)  # again: nothing more
    text = tab.text()
    await tab.close()
    return text


def test_a_participant_appeals_only_their_own_rejected_review_once(app_server):
    with app_server.db() as db:
        rejecter = caller(db, roles.TEAM_MANAGER)
        owner, review_id = _rejected(db, rejecter.account_id)
        other = person(db)
    log_start = app_server.log_path.stat().st_size
    run(appeal_as(app_server.url, other.cookie, review_id, "Not mine"))
    run(appeal_as(app_server.url, None, review_id, "Nobody"))
    with app_server.db() as db:
        assert db.exec(select(ReviewAppeal).where(ReviewAppeal.review_id == review_id)).all() == []
    seen = run(appeal_as(app_server.url, owner.cookie, review_id, "Mine, and I read every question."))
    assert rules.MESSAGE_REQUIRED in seen and rules.decision_words(rules.OPEN) in seen
    with app_server.db() as db:
        [stored] = db.exec(select(ReviewAppeal).where(ReviewAppeal.review_id == review_id)).all()
        assert (stored.account_id, stored.message) == (owner.account_id, "Mine, and I read every question.")
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == []


def test_the_scenarios_send_every_public_handler_of_both_states():
    staff = inspect.getsource(act)
    missing = [
        h
        for h in AdminAppealsState.event_handlers
        if h != "setvar" and h not in TABLE_READS and h not in TABLE_VIEW_ONLY and f'{{A}}.{h}"' not in staff
    ]
    participant = inspect.getsource(appeal_as)
    own = ("ask_appeal", "set_appeal_message", "cancel_appeal", "send_appeal")
    missing += [h for h in own if f'{{W}}.{h}"' not in participant]
    assert set(own) <= set(RewardsTableState.event_handlers)
    assert not missing, missing
