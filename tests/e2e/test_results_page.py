"""A test's results page in Chromium (issue 35), as staff read it: the funnel, each question's chart with its text
alternative (the counts, shares and 95% intervals a screen reader reads), the filters changing the numbers and a bad
pair of dates getting its message, the typed answers' search, both downloads holding the page's numbers; a
preference test's shares, intervals and order table; a landing-page test's numbered areas drawn over its
screenshot; the page reading new reviews while it is open. axe at 1280 and 375 px, and screenshots of each.
"""

from __future__ import annotations

import csv
import io

import pytest
from openpyxl import load_workbook
from playwright.sync_api import Page, expect

from portal.domain.staff import roles
from tests.e2e.building import sign_in_staff
from tests.e2e.test_accessibility import assert_accessible
from tests.e2e.test_admin import open_admin
from tests.e2e.test_survey import shot
from tests.support import results as seeds

INVOLVEMENT = "How involved are you in choosing analytics software for your team?"
DECIDER, INFLUENCER, NONE = (
    "I make or approve the decision",
    "I recommend tools to the decision maker",
    "I am not involved",
)


def results_of(page: Page, base: str, test_id: int) -> None:
    open_admin(page, base, f"/admin/tests/{test_id}/results")
    expect(page.locator("#results-test-name")).to_be_visible()
    expect(page.locator("#results-updated")).to_contain_text("Updated ")


def figure(page: Page, name: str):
    return page.locator(f"#{name} dd")


def phone_and_desktop(page: Page, name: str, where: str) -> None:
    """axe and a screenshot at 1280 px, then at 375 px (nothing wider than the screen)."""
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        if width < 600:  # as a phone opens it (the charts lay out their axes for the width they are drawn at)
            page.reload()
            expect(page.locator("#results-updated")).to_contain_text("Updated ")
        expect(page.locator("#results .recharts-surface").first).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), width
        assert_accessible(page, f"{where} at {width} px")
        page.evaluate("window.scrollTo(0, 0)")  # (the sticky header is drawn where the page is scrolled to)
        shot(page, f"results-{name}-{width}")


def test_survey_results_filters_search_and_downloads(page: Page, app_server, db):
    seeded = seeds.survey(db)
    sign_in_staff(page, app_server.url, db, roles.TEAM_MANAGER)
    results_of(page, app_server.url, seeded.test.id)
    for name, value in (("invited", "5"), ("started", "4"), ("submitted", "4"), ("approved", "1")):
        expect(figure(page, f"results-funnel-{name}")).to_have_text(value)
    expect(page.locator("#results-reviews")).to_have_text("3 reviews in these results")
    expect(page.locator("#results-left-out")).to_have_text("1 excluded or rejected review left out")
    expect(figure(page, "results-timing-median")).to_have_text("6 min 00 s")
    expect(figure(page, "results-timing-fastest")).to_have_text("4 min 00 s")
    expect(figure(page, "results-timing-slowest")).to_have_text("8 min 00 s")

    # Each chart is hidden from screen readers; its text alternative says every number it draws.
    card = page.locator("#results-q-involvement")
    expect(card.get_by_role("heading", name=INVOLVEMENT)).to_be_visible()
    expect(card.locator(".results-chart")).to_have_attribute("aria-hidden", "true")
    expect(card.locator(".recharts-yAxis .recharts-cartesian-axis-tick")).to_have_count(3)  # one bar per answer
    expect(page.locator("#results-q-involvement-summary")).to_have_text(
        f"{DECIDER}: 2 of 3 (66.7%, 95% CI 20.8–93.9%); {INFLUENCER}: 1 of 3 (33.3%, 95% CI 6.1–79.2%); "
        f"{NONE}: 0 of 3 (0%, 95% CI 0.0–56.1%)."
    )
    expect(page.locator("#results-q-tools-used-summary")).to_contain_text(
        "Several choices each, shares of the 3 people who answered. Spreadsheets: 2 of 3 (66.7%, 95% CI 20.8–93.9%); "
        "A BI suite: 2 of 3 (66.7%, 95% CI 20.8–93.9%); Product analytics: 0 of 3 (0%, 95% CI 0.0–56.1%)"
    )
    expect(figure(page, "results-q-satisfaction-figures-mean")).to_have_text("3.67")
    expect(page.locator("#results-q-satisfaction-summary")).to_contain_text(
        "Mean 3.67 from 3 answers. 1: 0 of 3 (0%, 95% CI 0.0–56.1%); 2: 1 of 3 (33.3%, 95% CI 6.1–79.2%)"
    )
    for name, value in (("mean", "2,000"), ("median", "2,000"), ("lowest", "1,000"), ("highest", "3,000")):
        expect(figure(page, f"results-q-annual-budget-figures-{name}")).to_have_text(value)
    expect(page.locator("#results-q-priorities-summary")).to_have_text(
        "Mean position (1 = ranked first) from 3 answers: Ease of use 1; Price 2; Integrations 3; Support 4."
    )
    matrix = page.locator("#results-q-statements-table")
    expect(matrix.locator("tbody tr").first).to_have_text("I trust the numbers in our dashboards0 (0%)0 (0%)3 (100%)")
    expect(page.locator("#results-q-budget-share-summary")).to_have_text("No answers yet.")

    # The typed answers with their word counts, and their search.
    answers = page.locator("#results-q-last-purchase-answers li")
    expect(answers).to_have_count(3)
    expect(answers.first).to_contain_text(seeded.texts[0])
    expect(answers.first).to_contain_text("15 words")
    page.fill("#results-q-last-purchase-search", "PRICE talks")
    expect(page.locator("#results-q-last-purchase-note")).to_have_text("1 of 3 answers match “PRICE talks”.")
    expect(answers).to_have_count(1)
    expect(answers.first).to_contain_text(seeded.texts[1])
    page.fill("#results-q-last-purchase-search", "")
    expect(answers).to_have_count(3)

    # Accessible, at both widths, before the filters change anything.
    phone_and_desktop(page, "survey", "the survey's results")
    page.set_viewport_size({"width": 1280, "height": 900})

    # A filter changes the numbers (the funnel is the whole test's, whatever the filters).
    page.select_option("#results-filter-country", "US")
    expect(page.locator("#results-reviews")).to_have_text("2 reviews in these results")
    expect(page.locator("#results-applied")).to_have_text(
        "Showing: Country United States, excluded and rejected ones left out."
    )
    expect(page.locator("#results-q-involvement-summary")).to_have_text(
        f"{DECIDER}: 1 of 2 (50%, 95% CI 9.5–90.5%); {INFLUENCER}: 1 of 2 (50%, 95% CI 9.5–90.5%); "
        f"{NONE}: 0 of 2 (0%, 95% CI 0.0–65.8%)."
    )
    expect(figure(page, "results-funnel-submitted")).to_have_text("4")

    # Both downloads hold the numbers the page shows, with its filters.
    with page.expect_download() as download:
        page.click("#results-export-csv")
    assert download.value.suggested_filename == f"results-test-{seeded.test.id}.csv"
    rows = list(csv.DictReader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig"))))
    assert len(rows) == 2
    assert sorted(r[INVOLVEMENT] for r in rows) == [DECIDER, INFLUENCER]
    assert {r["Country"] for r in rows} == {"US"}
    with page.expect_download() as download:
        page.click("#results-export-xlsx")
    assert download.value.suggested_filename == f"results-test-{seeded.test.id}.xlsx"
    sheet = list(
        load_workbook(io.BytesIO(download.value.path().read_bytes()), read_only=True)["Reviews"].iter_rows(
            values_only=True
        )
    )
    assert len(sheet) - 1 == 2
    column = list(sheet[0]).index(INVOLVEMENT)
    assert sorted(r[column] for r in sheet[1:]) == [DECIDER, INFLUENCER]

    # Rejected reviews only when asked for; a bad pair of dates gets its message by its field.
    page.click("#results-clear-filters")
    expect(page.locator("#results-reviews")).to_have_text("3 reviews in these results")
    page.click("#results-filter-excluded")
    expect(page.locator("#results-reviews")).to_have_text("4 reviews in these results")
    expect(page.locator("#results-left-out")).to_have_text("Excluded and rejected reviews included")
    expect(page.locator("#results-q-involvement-summary")).to_contain_text(f"{NONE}: 1 of 4 (25%, 95% CI 4.6–69.9%)")
    page.fill("#results-filter-since", seeds.day(2))
    expect(page.locator("#results-reviews")).to_have_text("2 reviews in these results")
    page.fill("#results-filter-until", seeds.day(0))
    expect(page.locator("#results-filter-until-error")).to_have_text("The 'From' date is after the 'To' date.")
    expect(page.locator("#results-filter-until")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#results-reviews")).to_have_text("2 reviews in these results")  # the last numbers stay
    expect(page.locator("#results-applied")).to_contain_text(
        f"From {seeds.day(2)}, excluded and rejected ones included."
    )
    page.fill("#results-filter-until", seeds.day(2))
    expect(page.locator("#results-filter-until-error")).to_have_count(0)
    expect(page.locator("#results-applied")).to_contain_text(f"From {seeds.day(2)} · To {seeds.day(2)}")

    # 'Refresh' reads reviews that arrived since.
    page.click("#results-clear-filters")
    expect(page.locator("#results-reviews")).to_have_text("3 reviews in these results")
    late = seeds.participant(db, country="FR")
    seeds.review(
        db, seeded.test, late, seeds.survey_answers("influencer", [], 3, 500, "Late"), kind="survey", minutes=4
    )
    page.click("#results-refresh")
    expect(page.locator("#results-reviews")).to_have_text("4 reviews in these results")
    expect(figure(page, "results-funnel-submitted")).to_have_text("5")


def test_an_unknown_test_gets_its_message(page: Page, app_server, db):
    sign_in_staff(page, app_server.url, db, roles.TEAM_MANAGER)
    open_admin(page, app_server.url, "/admin/tests/999999999/results")
    expect(page.locator("#results-missing")).to_have_text("This test does not exist.")


def test_preference_results_with_intervals_and_the_order_table(page: Page, app_server, db):
    seeded = seeds.preference(db)
    sign_in_staff(page, app_server.url, db, roles.TEAM_OWNER)
    results_of(page, app_server.url, seeded.test.id)
    expect(page.locator("#results-preference-title")).to_have_text("Which one do you like better?")
    table = page.locator("#results-preference-table")
    expect(table.locator("tbody tr")).to_have_count(3)
    expect(page.locator("#results-concept-0")).to_have_text("Know your buyers2 votes50%95% CI 15.0–85.0%")
    expect(page.locator("#results-concept-1")).to_have_text("Stop guessing2 votes50%95% CI 15.0–85.0%")
    expect(page.locator("#results-concept-2")).to_have_text("Real answers0 votes0%95% CI 0.0–49.0%")
    expect(page.locator("#results-concept-0 img")).to_have_attribute("src", "/demo/concept-a.png")
    expect(page.locator("#results-preference-summary")).to_have_text(
        "Know your buyers: 2 of 4 (50%, 95% CI 15.0–85.0%); Stop guessing: 2 of 4 (50%, 95% CI 15.0–85.0%); "
        "Real answers: 0 of 4 (0%, 95% CI 0.0–49.0%)."
    )
    expect(page.locator("#results-preference .recharts-errorBar").first).to_be_attached()
    order = page.locator("#results-order")
    expect(order.locator("thead th")).to_have_text(
        ["Shown", "Know your buyers", "Stop guessing", "Real answers", "Choices by position"]
    )
    expect(order.locator("tbody tr").nth(0)).to_have_text(
        "1st2 of 2 chosen (100%)1 of 1 chosen (100%)0 of 1 chosen (0%)3 of 4 (75%)"
    )
    expect(order.locator("tbody tr").nth(1)).to_have_text(
        "2nd0 of 1 chosen (0%)1 of 2 chosen (50%)0 of 1 chosen (0%)1 of 4 (25%)"
    )
    expect(order.locator("tbody tr").nth(2)).to_have_text(
        "3rd0 of 1 chosen (0%)0 of 1 chosen (0%)0 of 2 chosen (0%)0 of 4 (0%)"
    )
    expect(page.locator("#results-q-answer-answers li")).to_have_count(4)
    expect(page.locator("#results-q-selectedConcept")).to_have_count(0)  # the choice is the preference above
    phone_and_desktop(page, "preference", "the preference test's results")


def test_highlight_results_over_the_screenshot_updated_while_open(page: Page, app_server, db):
    seeded = seeds.landing(db)
    sign_in_staff(page, app_server.url, db, roles.SUPER_ADMIN)
    results_of(page, app_server.url, seeded.test.id)
    expect(page.locator("#results-areas img")).to_have_attribute("src", "/demo/landing.png")
    expect(page.locator("#results-areas img")).to_have_js_property("complete", True)
    # Each area drawn where it is on the screenshot: left, top, width and height in percent of the picture.
    boxes = [("1", (5, 4, 90, 27), "3 of 3"), ("2", (4, 38, 92, 23), "2 of 3"), ("3", (0, 76, 100, 14), "3 of 3")]
    for number, where, answered in boxes:
        box = page.locator(f"#results-area-{number}")
        expect(box).to_have_text(f"{number} · {answered} answered")
        drawn = box.evaluate(
            """e => { const shot = e.closest('.results-shot').getBoundingClientRect(), r = e.getBoundingClientRect();
                return [(r.left - shot.left) / shot.width, (r.top - shot.top) / shot.height,
                        r.width / shot.width, r.height / shot.height].map(v => v * 100); }"""
        )
        assert drawn == pytest.approx(where, abs=0.5), number
        expect(page.locator(f"#results-area-{number}-line")).to_have_text(f"Area {number}: {answered} answered")
    area2 = page.locator("#results-area-2-questions")
    expect(area2.get_by_role("heading", name="Area 2")).to_be_visible()
    expect(area2.locator("#results-q-lp-features-summary")).to_contain_text(
        "Fast results: 2 of 2 (100%, 95% CI 34.2–100.0%)"
    )
    expect(page.locator("#results-area-1-questions #results-q-lp-hero-answers li")).to_have_count(3)
    phone_and_desktop(page, "highlight", "the landing page's results")

    # A review that arrives while the page is open shows without a click (the page reads again every 20 s).
    page.set_viewport_size({"width": 1280, "height": 900})
    expect(page.locator("#results-reviews")).to_have_text("3 reviews in these results")
    late = seeds.participant(db)
    seeds.review(
        db,
        seeded.test,
        late,
        {"post-test": [{"type": "rating", "value": 1, "questionKey": "lp-clarity"}]},
        kind="highlight",
        minutes=9,
    )
    expect(page.locator("#results-reviews")).to_have_text("4 reviews in these results", timeout=45_000)
    expect(page.locator("#results-area-1")).to_have_text("1 · 3 of 4 answered")
