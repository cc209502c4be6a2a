"""The tax threshold page (issue 37, item 7) against the real app, as raw websocket events: every public handler of
AdminTaxState sent by anonymous visitors, participants and each staff role, with good and bad arguments. Only staff
who may pay (roles.PAY) see who is near the threshold and hold or release payouts; the server logs no traceback. A
check that the scenario sends every handler."""

from __future__ import annotations

import inspect
from datetime import timedelta

import pytest
from sqlmodel import Session

from portal.domain.staff import roles
from portal.models import Account, Review, Reward
from portal.models._base import utcnow
from portal.states.admin.tax import AdminTaxState
from tests.support.people import Person, caller, demo_test, person
from tests.support.raw_tab import RawTab, run, tracebacks

X = AdminTaxState.get_full_name()
CALLERS = ("anonymous", "participant", *roles.ROLES)


def _near(db: Session) -> Person:
    """A participant paid $1,900 this year (95% of the default threshold)."""
    who = person(db)
    test = demo_test(db, "01-survey.json")
    review = Review(
        test_id=test.id, account_id=who.account_id, respondent_key=f"account:{who.account_id}", kind="survey"
    )
    db.add(review)
    db.flush()
    now = utcnow()
    db.add(
        Reward(
            review_id=review.id,
            account_id=who.account_id,
            amount_cents=190_000,
            status="EXECUTED",
            approved_at=now - timedelta(days=1),
            paid_on=now,
        )
    )
    db.commit()
    return who


async def act(base: str, cookie: str | None, account_id: int) -> dict[str, str]:
    seen: dict[str, str] = {}
    tab = RawTab(base, cookie=cookie)
    await tab.open("/admin/tax", settle=0.3)

    async def send(name: str, payload: dict | None = None, settle: float = 0.2) -> None:
        await tab.answer(name, payload or {}, settle=settle)

    await send(f"{X}.load_page")
    seen["list"] = tab.text()
    for bad in (None, 1.5, [], {"a": 1}, "x" * 5000, "-1", "999999999"):
        await send(f"{X}.hold", {"account_id": bad}, settle=0.05)
        await send(f"{X}.details_on_file", {"account_id": bad}, settle=0.05)
    await send(f"{X}.hold", {"account_id": str(account_id)}, settle=0.3)
    await send(f"{X}.details_on_file", {"account_id": str(account_id)}, settle=0.3)
    await tab.close()
    return seen


@pytest.mark.parametrize("kind", CALLERS)
def test_only_staff_who_pay_see_the_threshold_and_hold_payouts(app_server, kind):
    with app_server.db() as db:
        near = _near(db)
        who = caller(db, kind)
    log_start = app_server.log_path.stat().st_size
    seen = run(act(app_server.url, who.cookie, near.account_id))
    role = kind if kind in roles.ROLES else None
    may = roles.may(role, roles.PAY)
    assert (near.email in seen["list"]) == may, kind
    with app_server.db() as db:
        account = db.get(Account, near.account_id)
        assert (account.tax_hold_at is not None, account.tax_details_at is not None) == (may, may), kind
    log = app_server.log_path.read_bytes()[log_start:].decode(errors="replace")
    assert tracebacks(log) == [], kind


def test_the_scenario_sends_every_public_handler():
    source = inspect.getsource(act)
    missing = [h for h in AdminTaxState.event_handlers if h != "setvar" and f'{{X}}.{h}"' not in source]
    assert not missing, missing
