"""The three partner round trips (issue 39, item 5) in a real browser, each against its stand-in on loopback (the app
runs with no partner configured, so /local-respondent and /local-panel stand in): from the partner's link to the
partner seeing how it ended.

- the research-participant service: an invited respondent takes the test and the service records the completion;
  one it did not invite is blocked with the spec's message;
- crowd-work: the worker sees a completion code (label, copy button) and the API confirms it;
- the panel exchange: a signed entry completes and lands on the exchange's exit page showing 'complete', and the
  exchange records the callback; a tampered signature is refused.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import httpx
from playwright.sync_api import BrowserContext, Page, expect
from sqlmodel import func, select

from portal.domain import partners as rules
from portal.models import PartnerEntry, Review, ReviewSession
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_crowd_work_thank_you import crowd_work_test, take_it_to_the_thank_you
from tests.support.api import api_key
from tests.support.people import demo_test
from tests.support.polling import polled


def members_test(db, panel: str):
    """The developer survey without its public qualification: only a partner's checked link opens it."""
    return demo_test(db, "08-public-qualification.json", panel=panel, qualifications=[])


def answer_and_give_details(page: Page) -> None:
    """The survey's two questions and the personal info of a respondent without an account."""
    expect(page.locator("#survey-welcome")).to_be_visible()
    page.click("#start-survey")
    page.locator("label.survey-option", has_text="Python").first.click()
    page.click("#survey-continue")
    page.fill("#survey-text", "GitHub Actions")
    page.click("#survey-submit")
    expect(page.locator("#personal-info-title")).to_be_visible()
    page.fill("#detail-firstName", "Ada")
    page.fill("#detail-lastName", "Lovelace")
    page.select_option("#detail-country", "US")
    page.select_option("#detail-state", "US-NY")
    page.fill("#detail-email", f"ada.{uuid.uuid4().hex[:6]}@example.org")
    page.fill("#detail-linkedin", "linkedin.com/in/ada-lovelace")
    page.click("#details-submit")


def stand_in_page(context: BrowserContext) -> Page:
    """A tab for the partner's own pages (not the portal's: no hydration to wait for)."""
    return context.new_page()


def looked_at(page: Page, name: str) -> None:
    """axe finds nothing at 1280 and 375 px; a screenshot at each width (SCREENSHOT_DIR) to look at."""
    shots = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/partner-shots"))
    shots.mkdir(parents=True, exist_ok=True)
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        assert_accessible(page, f"{name} at {width} px")
        page.screenshot(path=str(shots / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def count(db, model, *where) -> int:
    db.expire_all()
    return db.exec(select(func.count()).select_from(model).where(*where)).one()


def test_an_invited_respondent_takes_the_test_and_the_research_service_hears_it(page: Page, app_server, db):
    test = members_test(db, "external")
    page.goto(
        f"{app_server.url}/test/{test.id}/rate?respondent_project_id=demo-project"
        "&respondent_screener_response_id=invited-1"
    )
    answer_and_give_details(page)
    expect(page.locator("#thank-you-title")).to_be_visible()
    review = db.exec(select(Review).where(Review.test_id == test.id)).one()
    assert review.account_id is None and review.respondent_key.startswith("respondent:demo-project:")

    # The research service's own page lists the completion once the portal's job reported it.
    service = stand_in_page(page.context)
    row = service.locator("#completions tbody tr", has_text="partner-callback-").filter(has_text=str(test.id))

    def reported() -> int:
        service.goto(f"{app_server.url}/local-respondent/completions")
        return row.count()

    assert polled(reported, lambda n: n == 1, timeout=30, every=0.5) == 1
    expect(row).to_contain_text("invited-1")
    expect(row).to_contain_text("complete")


def test_a_respondent_the_service_did_not_invite_is_blocked(page: Page, app_server, db):
    test = members_test(db, "external")
    page.goto(
        f"{app_server.url}/test/{test.id}/rate?respondent_project_id=demo-project"
        "&respondent_screener_response_id=not-invited-1"
    )
    expect(page.get_by_text(rules.MSG_NOT_INVITED, exact=True)).to_be_visible()
    expect(page.locator("#survey-welcome")).to_have_count(0)
    assert count(db, PartnerEntry, PartnerEntry.test_id == test.id) == 0
    assert count(db, ReviewSession, ReviewSession.test_id == test.id) == 0


def test_a_crowd_work_worker_sees_a_completion_code_the_api_confirms(page: Page, app_server, db):
    test = crowd_work_test(db)
    assignment = f"ASSIGN-{uuid.uuid4().hex[:8]}"
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_server.url)
    page.goto(
        f"{app_server.url}/test/{test.id}/rate?assignmentId={assignment}&workerId=W1CROWD&hitId=HIT-1"
        "&turkSubmitTo=https://workersandbox.mturk.com"
    )
    take_it_to_the_thank_you(page, "W1CROWD")
    code_box = page.locator("#completion-code")
    expect(code_box).to_have_text(re.compile(rf"^[{rules.CODE_ALPHABET}]{{{rules.CODE_LENGTH}}}$"))
    expect(page.locator("#completion-code-label")).to_have_text(rules.CODE_LABEL)
    code = code_box.inner_text()
    looked_at(page, "crowd-work-completion-code")
    page.get_by_role("button", name=rules.CODE_COPY).click()
    assert polled(lambda: page.evaluate("navigator.clipboard.readText()"), lambda t: t == code, timeout=5) == code
    # Opening the test again (a reload, the link once more): the completed page shows the same code.
    page.goto(f"{app_server.url}/test/{test.id}/rate")
    expect(page.locator("#completed-text")).to_be_visible()
    expect(page.locator("#completion-code")).to_have_text(code)

    key = api_key(db, "reviews:read")
    answer = httpx.get(
        f"{app_server.url}/api/v1/completion-codes/{code}", headers={"Authorization": f"Bearer {key}"}, timeout=10
    )
    assert answer.status_code == 200, answer.text
    found = answer.json()
    review = db.exec(select(Review).where(Review.test_id == test.id)).one()
    assert found == {
        "code": code,
        "valid": True,
        "test_id": test.id,
        "review_id": review.id,
        "worker_id": "W1CROWD",
        "assignment_id": assignment,
        "status": "submitted",
    }
    unknown = httpx.get(
        f"{app_server.url}/api/v1/completion-codes/AAAAAAAAAA", headers={"Authorization": f"Bearer {key}"}, timeout=10
    )
    assert unknown.status_code == 404


def test_a_panel_entrant_completes_and_lands_back_on_the_exchange(page: Page, app_server, db):
    test = members_test(db, "b2b")
    rid = f"R-{uuid.uuid4().hex[:10]}"
    # The exchange sends the participant with a signed entry link.
    page.goto(f"{app_server.url}/local-panel/entry/{test.id}?rid={rid}")
    answer_and_give_details(page)
    # Back at the exchange, with the outcome and a signature that holds.
    expect(page.locator("#panel-outcome")).to_have_text("complete")
    expect(page.locator("#panel-rid")).to_have_text(rid)
    expect(page.locator("#panel-signature")).to_have_text("valid")
    assert page.url.startswith(f"{app_server.url}/local-panel/exit?")
    # The server-to-server callback reached the exchange, once.
    callbacks = polled(
        lambda: httpx.get(f"{app_server.url}/local-panel/api/callbacks", params={"rid": rid}, timeout=10).json(),
        lambda rows: len(rows) >= 1,
        timeout=30,
        every=0.5,
    )
    assert [(c["outcome"], c["testId"]) for c in callbacks] == [("complete", test.id)]
    assert count(db, Review, Review.test_id == test.id) == 1
    # The entry link opened again: straight back to the exchange as it ended, no second visit or report.
    again = stand_in_page(page.context)
    again.goto(f"{app_server.url}/local-panel/entry/{test.id}?rid={rid}")
    expect(again.locator("#panel-outcome")).to_have_text("complete", timeout=30000)
    assert count(db, PartnerEntry, PartnerEntry.test_id == test.id) == 1
    assert len(httpx.get(f"{app_server.url}/local-panel/api/callbacks", params={"rid": rid}, timeout=10).json()) == 1


def test_a_tampered_panel_link_is_refused(page: Page, app_server, db):
    test = members_test(db, "b2b")
    page.goto(f"{app_server.url}/local-panel/entry/{test.id}?rid=R-TAMPER&tamper=1")
    expect(page.get_by_text(rules.MSG_BAD_SIGNATURE)).to_be_visible()
    expect(page.get_by_text(rules.MSG_BAD_LINK_TITLE)).to_be_visible()
    looked_at(page, "panel-link-not-valid")
    expect(page.locator("#survey-welcome")).to_have_count(0)
    assert count(db, PartnerEntry, PartnerEntry.test_id == test.id) == 0
    assert count(db, ReviewSession, ReviewSession.test_id == test.id) == 0


def test_a_panel_entrant_of_a_full_test_goes_back_over_quota(page: Page, app_server, db):
    test = members_test(db, "b2b")
    test.participant_limit = 0  # full already (the import asks for 1 or more; a full test reads the same)
    db.add(test)
    db.commit()
    rid = f"R-{uuid.uuid4().hex[:10]}"
    # The portal's page sends them on at once: a tab that does not wait for it to hydrate.
    tab = stand_in_page(page.context)
    tab.goto(f"{app_server.url}/local-panel/entry/{test.id}?rid={rid}")
    expect(tab.locator("#panel-outcome")).to_have_text("overquota", timeout=30000)
    expect(tab.locator("#panel-signature")).to_have_text("valid")
    callbacks = polled(
        lambda: httpx.get(f"{app_server.url}/local-panel/api/callbacks", params={"rid": rid}, timeout=10).json(),
        lambda rows: len(rows) >= 1,
        timeout=30,
        every=0.5,
    )
    assert [c["outcome"] for c in callbacks] == ["overquota"]
    assert count(db, ReviewSession, ReviewSession.test_id == test.id) == 0
