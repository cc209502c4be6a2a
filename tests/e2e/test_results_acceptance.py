"""Issue 35's acceptance: the demo participant and three more take the demo survey and the image preference
test in Chromium; staff open both results pages, which show each answer in its chart's text, the preference
shares with their 95% intervals and the order table; the CSV and the Excel file hold the same numbers."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

import pytest
from openpyxl import load_workbook
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import text
from sqlmodel import select

from portal.domain.results.shares import order_table, wilson
from portal.models import Account, Invite, Review, Test
from portal.models._base import utcnow
from portal.services.definition_import import import_test
from portal.services.seeding import DEMO_PARTICIPANT
from tests.e2e.building import sign_in_staff
from tests.e2e.conftest import wait_for_hydration
from tests.e2e.helpers import sign_in
from tests.e2e.taking import invited
from tests.e2e.test_preference import start as start_preference
from tests.e2e.test_survey import DEMO_TESTS, FIFTEEN_WORDS, PASSWORD, continue_to, option, shot
from tests.e2e.test_survey import start as start_survey


@dataclass(frozen=True)
class Person:
    account: Account
    password: str
    decider: bool  # the survey's first answer: the decider route or the influencer route
    rating: str  # 1-5
    pick: int  # the preference concept chosen, by its shown position (0-based)


def copy_of(db, file_name: str) -> Test:
    """A new test with the demo test's definition (its own name, so other tests' reviews stay out of it)."""
    data = json.loads((DEMO_TESTS / file_name).read_text())
    data["name"] = f"{data['name']} {uuid.uuid4().hex[:6]}"
    test = import_test(db, data)
    db.commit()
    return test


def profile(db, account_id: int, country: str, seniority: str, size: str) -> None:
    db.execute(
        text(
            "UPDATE participant_profile SET country = :c, experience_levels = :s, company_size_id = :z "
            "WHERE account_id = :id"
        ),
        {"c": country, "s": json.dumps([seniority]), "z": size, "id": account_id},
    )
    db.commit()


@contextmanager
def signed_in(browser: Browser, base: str, email: str, password: str) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20000)
    try:
        page = wait_for_hydration(context.new_page())
        page.on("dialog", lambda dialog: dialog.accept())
        sign_in(page, base, email, password)
        yield page
    finally:
        context.close()


def take_survey(page: Page, base: str, test: Test, person: Person) -> None:
    start_survey(page, base, test)
    if person.decider:
        option(page, "I make or approve the decision")
        continue_to(page, "Question 2/13")
        option(page, "Spreadsheets")
        option(page, "A BI suite")
        continue_to(page, "Question 3/13")
        page.fill("#survey-number", "25000")
        continue_to(page, "Question 4/13")
        continue_to(page, "Question 5/13")  # optional
    else:
        option(page, "I recommend tools to the decision maker")
        continue_to(page, "Question 5/13")
    page.click("#rank-keep")
    continue_to(page, "Question 6/13")
    option(page, person.rating)
    continue_to(page, "Question 7/13")
    page.click("#cell-0-2")
    page.click("#cell-1-0")
    continue_to(page, "Question 8/13")
    continue_to(page, "Question 9/13")  # a description
    option(page, "Ask peers")
    continue_to(page, "Question 10/13")
    continue_to(page, "Question 11/13")  # optional
    page.fill("#survey-text", "Head of data")
    continue_to(page, "Question 12/13")
    page.fill("#survey-text", FIFTEEN_WORDS)
    continue_to(page, "Question 13/13")
    page.click("#survey-submit")
    expect(page.locator("#thank-you-title")).to_have_text("Thank you!")


def take_preference(page: Page, base: str, test: Test, person: Person) -> None:
    start_preference(page, base, test)
    expect(page.locator("[data-concept]")).to_have_count(3)
    page.locator(f"label[for=concept-{person.pick}]").click()
    expect(page.locator(f"#concept-{person.pick}")).to_be_checked()
    page.click("#preference-continue")
    page.fill("#preference-answer", FIFTEEN_WORDS)
    page.click("#preference-next")
    expect(page.locator("#confirm-choice")).to_be_visible()
    page.locator("#details-submit").click()
    expect(page.locator("#thank-you-title")).to_have_text("Thank you!")


def invite(db, test: Test, account_id: int) -> None:
    db.add(Invite(account_id=account_id, test_id=test.id, amount_cents=900, expires_at=utcnow() + timedelta(hours=24)))
    db.commit()


@pytest.fixture
def people(db) -> tuple[Test, Test, list[Person]]:
    survey, image = copy_of(db, "01-survey.json"), copy_of(db, "04-preference-image.json")
    demo = db.exec(select(Account).where(Account.email == DEMO_PARTICIPANT.email)).one()
    for test in (survey, image):
        invite(db, test, demo.id)
    found = [Person(demo, DEMO_PARTICIPANT.password, True, "5", 0)]
    attributes = [("US", "senior", "small"), ("GB", "middle", "enterprise"), ("US", "specialist", "micro")]
    for (country, seniority, size), (decider, rating, pick) in zip(
        attributes, [(True, "4", 0), (False, "4", 1), (False, "2", 2)], strict=True
    ):
        account = invited(db, survey, cents=2500)
        invite(db, image, account.id)
        profile(db, account.id, country, seniority, size)
        found.append(Person(account, PASSWORD, decider, rating, pick))
    return survey, image, found


def pct(share: float) -> str:
    text = f"{share * 100:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def ci(count: int, total: int) -> str:
    interval = wilson(count, total)
    assert interval is not None
    return f"95% CI {interval.low * 100:.1f}–{interval.high * 100:.1f}%"


def of(count: int, total: int) -> str:
    """A chart's text alternative for one answer: '2 of 4 (50%, 95% CI 15.0–85.0%)'."""
    return f"{count} of {total} ({pct(count / total)}, {ci(count, total)})"


def download(page: Page, button: str) -> bytes:
    with page.expect_download() as started:
        page.click(button)
    return started.value.path().read_bytes()


def exported(page: Page) -> tuple[list[dict[str, str]], list[dict[str, object]]]:
    """The CSV's rows and the workbook's 'Reviews' rows, each as {header: cell}."""
    rows = list(csv.DictReader(io.StringIO(download(page, "#results-export-csv").decode("utf-8-sig"))))
    sheet = list(
        load_workbook(io.BytesIO(download(page, "#results-export-xlsx")), read_only=True)["Reviews"].iter_rows(
            values_only=True
        )
    )
    header = [str(h) for h in sheet[0]]
    return rows, [dict(zip(header, r, strict=True)) for r in sheet[1:]]


INVOLVEMENT = "How involved are you in choosing analytics software for your team?"
DECIDER, INFLUENCER, NONE = (
    "I make or approve the decision",
    "I recommend tools to the decision maker",
    "I am not involved",
)
SATISFACTION = "How satisfied are you with your current tools?"
PROMPT = "Which one do you like better?"
CONCEPTS = {"concept-a": "Know your buyers", "concept-b": "Stop guessing", "concept-c": "Real answers"}


def test_four_people_take_the_demo_tests_and_the_results_and_exports_agree(browser: Browser, app_server, db, people):
    survey, image, found = people
    for person in found:
        with signed_in(browser, app_server.url, person.account.email, person.password) as page:
            take_survey(page, app_server.url, survey, person)
            take_preference(page, app_server.url, image, person)
    db.expire_all()
    stored = db.exec(select(Review).where(Review.test_id == image.id)).all()
    assert len(stored) == 4
    orders = {r.account_id: list(r.options_order) for r in stored}
    chosen = [(orders[p.account.id], orders[p.account.id][p.pick]) for p in found]
    keys = list(CONCEPTS)
    votes = {k: sum(1 for _, c in chosen if c == k) for k in keys}
    table = order_table(chosen, keys)

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20000)
    page = wait_for_hydration(context.new_page())
    try:
        sign_in_staff(page, app_server.url, db)
        # The survey: each answer in its chart's text alternative.
        page.goto(f"{app_server.url}/admin/tests/{survey.id}/results")
        expect(page.locator("#results-reviews")).to_have_text("4 reviews in these results")
        expect(page.locator("#results-funnel-submitted dd")).to_have_text("4")
        expect(page.locator("#results-q-involvement-summary")).to_have_text(
            f"{DECIDER}: {of(2, 4)}; {INFLUENCER}: {of(2, 4)}; {NONE}: {of(0, 4)}."
        )
        expect(page.locator("#results-q-tools-used-summary")).to_contain_text(
            f"Spreadsheets: {of(2, 2)}; A BI suite: {of(2, 2)}; Product analytics: {of(0, 2)}"
        )
        expect(page.locator("#results-q-annual-budget-figures-mean dd")).to_have_text("25,000")
        expect(page.locator("#results-q-satisfaction-summary")).to_contain_text(
            f"Mean 3.75 from 4 answers. 1: {of(0, 4)}; 2: {of(1, 4)}; 3: {of(0, 4)}; 4: {of(2, 4)}; 5: {of(1, 4)}"
        )
        expect(page.locator("#results-q-priorities-summary")).to_contain_text("from 4 answers")
        matrix = page.locator("#results-q-statements-table tbody tr")
        expect(matrix.nth(0)).to_contain_text("4 (100%)")
        expect(page.locator("#results-q-discovery-channel-summary")).to_contain_text(f"Ask peers: {of(4, 4)}")
        expect(page.locator("#results-q-job-title-answers li")).to_have_count(4)
        expect(page.locator("#results-q-last-purchase-answers li").first).to_contain_text("16 words")
        shot(page, "results-acceptance-survey-1280")
        rows, sheet = exported(page)
        assert len(rows) == len(sheet) == 4
        for label, count in ((DECIDER, 2), (INFLUENCER, 2), (NONE, 0)):
            assert [r[INVOLVEMENT] for r in rows].count(label) == count
            assert [r[INVOLVEMENT] for r in sheet].count(label) == count
        ratings = sorted(int(r[SATISFACTION]) for r in rows)
        assert ratings == sorted(int(str(r[SATISFACTION])) for r in sheet) == [2, 4, 4, 5]
        assert sum(ratings) / 4 == 3.75
        assert {r["Participant"] for r in rows} == {str(p.account.id) for p in found}

        # The image preference test: shares with their intervals, and the order table from the stored orders.
        page.goto(f"{app_server.url}/admin/tests/{image.id}/results")
        expect(page.locator("#results-preference-title")).to_have_text(PROMPT)
        expect(page.locator("#results-preference-summary")).to_have_text(
            "; ".join(f"{CONCEPTS[k]}: {of(votes[k], 4)}" for k in keys) + "."
        )
        for i, k in enumerate(keys):
            expect(page.locator(f"#results-concept-{i}")).to_have_text(
                f"{CONCEPTS[k]}{votes[k]} vote{'' if votes[k] == 1 else 's'}{pct(votes[k] / 4)}{ci(votes[k], 4)}"
            )
        # Each bar's interval line spans its interval on the chart's axis (drawn at once, not growing).
        spans = page.locator("#results-preference .recharts-errorBar").evaluate_all(
            """bars => { const axis = document.querySelector('#results-preference .recharts-xAxis line');
                const width = axis.x2.baseVal.value - axis.x1.baseVal.value;
                return bars.map(b => { const xs = [...b.querySelectorAll('line')].flatMap(
                    l => [l.x1.baseVal.value, l.x2.baseVal.value]);
                    return [Math.min(...xs) - axis.x1.baseVal.value, Math.max(...xs) - axis.x1.baseVal.value]
                        .map(x => 100 * x / width); }); }"""
        )
        for (low, high), k in zip(spans, keys, strict=True):
            interval = wilson(votes[k], 4)
            assert interval is not None
            assert (low, high) == pytest.approx((interval.low * 100, interval.high * 100), abs=1.5), k
        order = page.locator("#results-order tbody tr")
        expect(order).to_have_count(3)
        for position, row in enumerate(table):
            cells = "".join(
                f"{row[k].chosen} of {row[k].shown} chosen ({pct(row[k].share)})" if row[k].shown else "Not shown"
                for k in keys
            )
            at = sum(cell.chosen for cell in row.values())
            expect(order.nth(position)).to_have_text(
                f"{['1st', '2nd', '3rd'][position]}{cells}{at} of 4 ({pct(at / 4)})"
            )
        expect(page.locator("#results-q-answer-answers li")).to_have_count(4)
        shot(page, "results-acceptance-preference-1280")
        rows, sheet = exported(page)
        for k in keys:
            assert [r[PROMPT] for r in rows].count(CONCEPTS[k]) == votes[k]
            assert [r[PROMPT] for r in sheet].count(CONCEPTS[k]) == votes[k]
        shown = {r["Participant"]: r["Shown order"] for r in rows}
        assert shown == {str(a): " | ".join(CONCEPTS[k] for k in o) for a, o in orders.items()}
        assert {str(r["Participant"]): r["Shown order"] for r in sheet} == shown
    finally:
        context.close()
