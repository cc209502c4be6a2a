"""The rating page's HTML carries a test's welcome only for a participant who may start it now (portal/
http/first_view.py: the page's own access decision, from the session cookie): raw HTTP requests from
everyone else, with forged or other people's cookies, get the frontend's page without anything of the
test; the welcome itself is escaped and never cached by anyone but its reader."""

from __future__ import annotations

import httpx
import pytest
from sqlmodel import select

from portal.http.client import SESSION_COOKIE
from portal.models import Test
from tests.security.test_take_a_test_raw import world
from tests.support.people import demo_test, person

WELCOME_TITLE = "How teams buy analytics software"  # 01-survey.json's welcome page
WELCOME_TEXT = "About 10 minutes. There are no right or wrong answers."

# Everyone the access decision refuses (tests/security/test_take_a_test_raw.py's cases that use the demo
# survey's welcome), and a forged cookie.
REFUSED = [
    "anonymous",
    "unverified",
    "registration-not-finished",
    "uninvited",
    "canceled-invite",
    "expired-invite",
    "filled-invite",
    "completed-test",
    "failed-screener",
]


def page_html(app_server, test_id: int, cookie: str = "", path: str = "", **params) -> httpx.Response:
    with httpx.Client(base_url=app_server.url, timeout=30) as http:
        headers = {"Cookie": cookie} if cookie else {}
        return http.get(f"/test/{test_id}/rate{path}", headers=headers, params=params or None)


def test_a_participant_who_may_start_the_survey_gets_its_welcome_in_the_html(app_server):
    with app_server.db() as db:
        test, who = demo_test(db, "01-survey.json"), person(db)
    answer = page_html(app_server, test.id, who.cookie)
    assert answer.status_code == 200 and 'id="first-view"' in answer.text
    assert WELCOME_TITLE in answer.text and WELCOME_TEXT in answer.text
    assert answer.headers["cache-control"] == "no-store" and "Cookie" in answer.headers["vary"]
    assert "content-security-policy" in answer.headers  # the page's security headers, as every page's


@pytest.mark.parametrize("case", REFUSED)
def test_nobody_the_page_refuses_gets_anything_of_the_test(app_server, case: str):
    with app_server.db() as db:
        test, who = world(db, case)
        title = (test.survey or {}).get("welcomePage", {}).get("title") or test.name
    answer = page_html(app_server, test.id, who.cookie)
    assert answer.status_code == 200
    assert 'id="first-view"' not in answer.text and title not in answer.text and WELCOME_TEXT not in answer.text


@pytest.mark.parametrize(
    "cookie",
    [
        f"{SESSION_COOKIE}=forged-token-forged-token-forged-token-00",
        f"{SESSION_COOKIE}=",
        "completedTests=%5B1%5D; portal_session=x",
    ],
)
def test_a_forged_or_empty_cookie_gets_the_page_alone(app_server, cookie: str):
    with app_server.db() as db:
        test = demo_test(db, "01-survey.json")
    answer = page_html(app_server, test.id, cookie)
    assert answer.status_code == 200 and 'id="first-view"' not in answer.text and WELCOME_TITLE not in answer.text


def test_other_paths_and_queries_of_the_page_are_served_as_before(app_server):
    """A step of the flow, a restart, a respondent id: the page decides (nothing is drawn ahead)."""
    with app_server.db() as db:
        test = demo_test(db, "01-survey.json")
        who = person(db)
    for path, params in (("/questions/0", {}), ("", {"restart": "1"}), ("", {"respondent_project_id": "p1"})):
        answer = page_html(app_server, test.id, who.cookie, path, **params)
        assert answer.status_code == 200 and 'id="first-view"' not in answer.text, (path, params)


def test_the_welcome_is_drawn_as_text_never_as_markup(app_server):
    with app_server.db() as db:
        test = demo_test(db, "01-survey.json")
        row = db.exec(select(Test).where(Test.id == test.id)).one()
        row.survey = {
            **row.survey,
            "welcomePage": {"title": "<img src=x onerror=alert(1)>", "description": "</p><script>alert(2)</script>"},
        }
        db.add(row)
        db.commit()
        who = person(db)
    answer = page_html(app_server, test.id, who.cookie)
    assert "&lt;img src=x onerror=alert(1)&gt;" in answer.text
    assert "<img src=x" not in answer.text and "<script>alert(2)" not in answer.text
