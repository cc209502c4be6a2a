"""A highlight test taken by raw websocket events, as a script would: people who may not take it,
and steps sent out of order, store no review, no reward and no session; the control (the same
events in order from an invited participant) stores exactly one review."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from portal.models import Review
from portal.states.taking.highlight import HighlightState
from tests.security.test_take_a_test_raw import stored
from tests.support.people import ANONYMOUS, demo_test, invite, person
from tests.support.raw_tab import RawTab, run

HIGHLIGHT = HighlightState.get_full_name()
LONG = (
    "The headline promises quick answers from real buyers, which is exactly what our marketing team keeps asking for."
)


def _text(value: str) -> dict:
    return {"type": "long-text", "value": value}


# Every answer of the demo landing-page test, by question key.
ANSWERS = (
    ("lp-first-impression", _text(LONG)),
    ("lp-hero", _text(LONG)),
    ("lp-features", {"type": "multi-choice", "value": ["speed"]}),
    ("lp-cta", _text(LONG)),
    ("lp-clarity", {"type": "rating", "value": 4}),
    ("lp-next-step", {"type": "single-choice", "value": "demo"}),
)

# The same answers as the browser's pending ones (each with its sequence number).
PENDING = {key: {"answer": answer, "seq": n + 1} for n, (key, answer) in enumerate(ANSWERS)}


async def take(base: str, cookie: str, test_id: int, *, in_order: bool) -> RawTab:
    tab = RawTab(base, cookie=cookie)
    await tab.open(f"/test/{test_id}/rate", {"rate_test_id": str(test_id)})
    await tab.send(f"{HIGHLIGHT}.enter", {"test_id": test_id})
    if not in_order:  # answers and moves before the session, then a proceed without the page read
        await tab.send(f"{HIGHLIGHT}.set_answer", {"key": "lp-first-impression", "answer": _text(LONG)})
        await tab.send(f"{HIGHLIGHT}.go_next")
        await tab.send(f"{HIGHLIGHT}.start_test")
        await tab.send(f"{HIGHLIGHT}.proceed")
        await tab.send(f"{HIGHLIGHT}.set_answer", {"key": "lp-first-impression", "answer": _text(LONG)})
        # Continue with 'pending' answers the server never saw, all of them at once
        await tab.send(f"{HIGHLIGHT}.go_next_with", {"pending": json.dumps(PENDING)})
        for _ in ANSWERS:
            await tab.send(f"{HIGHLIGHT}.go_next")
        await tab.close()
        return tab
    await tab.send(f"{HIGHLIGHT}.start_test")
    await tab.send(f"{HIGHLIGHT}.confirm_frame")
    await tab.send(f"{HIGHLIGHT}.confirm_read", {"checked": True})
    await tab.send(f"{HIGHLIGHT}.proceed")
    # Continue with every answer as the browser's pending ones: applied, and the first question left
    await tab.send(f"{HIGHLIGHT}.go_next_with", {"pending": json.dumps(PENDING)}, settle=0.6)
    for key, answer in ANSWERS:
        await tab.send(f"{HIGHLIGHT}.set_answer", {"key": key, "answer": answer})
        await tab.send(f"{HIGHLIGHT}.go_next", settle=0.6)
    await tab.close()
    return tab


def world(db, case: str):
    if case == "anonymous":
        return demo_test(db, "02-landing-page.json"), ANONYMOUS
    if case == "unverified":
        return demo_test(db, "02-landing-page.json"), person(db, verified=False, work_email_verified=False)
    if case == "uninvited":
        return demo_test(db, "02-landing-page.json", panel="external"), person(db)
    if case == "completed-test":
        return demo_test(db, "02-landing-page.json", status="completed"), person(db)
    if case == "survey-test":  # the highlight screen's events on a survey
        return demo_test(db, "01-survey.json"), person(db)
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["anonymous", "unverified", "uninvited", "completed-test", "survey-test"])
def test_raw_highlight_events_store_nothing_for_someone_who_may_not_take_the_test(app_server, case):
    with app_server.db() as db:
        test, who = world(db, case)
        test_id = test.id
    tab = run(take(app_server.url, who.cookie, test_id, in_order=True))
    with app_server.db() as db:
        assert stored(db, who, test_id) == (0, 0, 0)
    assert tab.var(HIGHLIGHT, "phase") in (None, "loading", "intro", "reviewed")


def test_steps_out_of_order_store_no_review_and_in_order_store_one(app_server):
    with app_server.db() as db:
        test = demo_test(db, "02-landing-page.json", panel="external")
        who = person(db)
        invite(db, who, test)
        test_id = test.id
    tab = run(take(app_server.url, who.cookie, test_id, in_order=False))
    with app_server.db() as db:
        assert stored(db, who, test_id) == (0, 0, 1)  # the session started; nothing was answered or stored
    assert tab.var(HIGHLIGHT, "phase") == "precheck"  # proceed without the page read does nothing

    tab = run(take(app_server.url, who.cookie, test_id, in_order=True))
    with app_server.db() as db:
        assert stored(db, who, test_id) == (1, 1, 1)
        review = db.exec(select(Review).where(Review.test_id == test_id)).one()
        assert review.answers["highlight-2"][0]["value"] == ["speed"]
    assert tab.var(HIGHLIGHT, "phase") == "thank-you"


def test_a_reported_render_crash_is_logged_and_shows_the_forms_message(app_server):
    """The error boundary's report: one log line, the form replaced by 'Something went wrong with the form.'"""
    with app_server.db() as db:
        test = demo_test(db, "02-landing-page.json")
        who = person(db)
        test_id = test.id

    async def crash() -> RawTab:
        tab = RawTab(app_server.url, cookie=who.cookie)
        await tab.open(f"/test/{test_id}/rate", {"rate_test_id": str(test_id)})
        await tab.send(f"{HIGHLIGHT}.enter", {"test_id": test_id})
        await tab.send(f"{HIGHLIGHT}.form_crashed", {"error": "TypeError: boom\n    at render", "info": "in div"})
        await tab.close()
        return tab

    tab = run(crash())
    assert tab.var(HIGHLIGHT, "crashed") is True
    assert "Something went wrong with the form." in tab.text()
    assert (
        f"the browser failed to render highlight form of test {test_id}: TypeError: boom (in div)"
        in app_server.log_path.read_text()
    )
