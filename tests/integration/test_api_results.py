"""/api/v1/tests/{id}/results as a caller sees it (issue 39): the results page's aggregates (funnel, timing, each
question's summary, a preference test's choices, a highlight test's areas) for the filters given, with the page's
own messages for filters it does not take. On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from portal.domain.results import filters as rules
from portal.services.seeding import seed_reference
from tests.support import results as seeded
from tests.support.api import api_client, api_key, errors_of


@pytest.fixture(autouse=True)
def reference(session: Session) -> None:
    seed_reference(session)
    session.commit()


@pytest.fixture
def reader(session: Session, monkeypatch: pytest.MonkeyPatch):
    with api_client(session, monkeypatch, api_key(session, "results:read")) as client:
        yield client


def by_key(body: dict) -> dict[str, dict]:
    return {q["key"]: q for q in body["questions"]}


def test_a_survey_s_results_are_the_page_s_numbers(session, reader):
    survey = seeded.survey(session)
    answer = reader.get(f"/tests/{survey.test.id}/results")

    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["test_id"], body["name"], body["product_type"]) == (survey.test.id, survey.test.name, "survey")
    assert (body["reviews"], body["excluded_left_out"], body["versions"]) == (3, 1, [1])
    assert body["funnel"] == {"invited": 5, "started": 4, "submitted": 4, "approved": 1}
    assert body["timing"]["median_seconds"] == 6 * 60 and body["timing"]["timed"] == 3
    questions = by_key(body)
    involvement = questions["involvement"]
    assert involvement["shape"] == "choice" and involvement["answered"] == 3
    assert [(s["key"], s["count"]) for s in involvement["shares"]] == [("decider", 2), ("influencer", 1), ("none", 0)]
    decider = involvement["shares"][0]
    assert decider["share"] == pytest.approx(2 / 3) and decider["label"] == "I make or approve the decision"
    assert 0 < decider["interval"]["low"] < decider["share"] < decider["interval"]["high"] < 1
    assert questions["satisfaction"]["mean"] == pytest.approx(11 / 3)
    assert (questions["annual-budget"]["median"], questions["annual-budget"]["low"]) == (2000, 1000)
    assert questions["priorities"]["positions"]["ease"] == 1
    assert questions["statements"]["table"]["trust"]["agree"] == 3
    assert [t["text"] for t in questions["last-purchase"]["texts"]] == survey.texts[:3]
    assert body["preference"] is None and body["areas"] == []
    assert body["filters"] == {
        "seniority": None, "country": None, "company_size": None, "version": None,
        "since": None, "until": None, "excluded": False,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("params", "reviews"),
    [
        ({"excluded": "true"}, 4),
        ({"country": "GB"}, 1),
        ({"country": "us"}, 2),
        ({"seniority": "middle"}, 2),
        ({"company_size": "enterprise"}, 1),
        ({"version": 1}, 3),
        ({"since": seeded.day(1), "until": seeded.day(1)}, 1),
    ],
)
def test_filters_choose_the_reviews(session, reader, params, reviews):
    survey = seeded.survey(session)
    answer = reader.get(f"/tests/{survey.test.id}/results", params=params)
    assert answer.status_code == 200, answer.text
    assert answer.json()["reviews"] == reviews
    assert answer.json()["funnel"]["submitted"] == 4  # the funnel is the whole test's


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"version": 7}, "version", rules.BAD_VERSION),
        ({"country": "XX"}, "country", rules.BAD_COUNTRY),
        ({"since": seeded.day(3), "until": seeded.day(1)}, "until", rules.DATES_REVERSED),
        ({"seniority": "boss"}, "seniority", None),
        ({"since": "yesterday"}, "since", None),
        ({"version": 0}, "version", None),
    ],
)
def test_a_filter_it_does_not_take_is_refused_under_its_name(session, reader, params, field, message):
    survey = seeded.survey(session)
    answer = reader.get(f"/tests/{survey.test.id}/results", params=params)
    assert answer.status_code == 422
    [(got_field, got_message)] = errors_of(answer)
    assert got_field == field and (message is None or got_message == message)


def test_a_preference_test_s_choices_and_order(session, reader):
    preference = seeded.preference(session)
    body = reader.get(f"/tests/{preference.test.id}/results").json()
    chosen = body["preference"]
    assert chosen["answered"] == 4
    assert [(s["key"], s["count"]) for s in chosen["shares"]] == [("concept-a", 2), ("concept-b", 2), ("concept-c", 0)]
    assert chosen["by_position"] == [3, 1, 0]
    assert (chosen["order"][0]["concept-a"]["shown"], chosen["order"][0]["concept-a"]["chosen"]) == (2, 2)
    assert [c["key"] for c in chosen["concepts"]] == ["concept-a", "concept-b", "concept-c"]


def test_a_highlight_test_s_areas(session, reader):
    landing = seeded.landing(session)
    body = reader.get(f"/tests/{landing.test.id}/results").json()
    assert [(a["number"], a["answered"]) for a in body["areas"]] == [(1, 3), (2, 2), (3, 3)]
    assert all(len(a["box"]) == 4 for a in body["areas"]) and body["screenshot"]
    areas = {q["key"]: q["area"] for q in body["questions"]}
    assert areas["lp-hero"] == 1 and areas["lp-features"] == 2


def test_an_unknown_test_is_404_and_a_key_without_the_scope_403(session, monkeypatch, reader):
    missing = reader.get("/tests/99999/results")
    assert missing.status_code == 404 and errors_of(missing) == [(None, "This test does not exist.")]
    survey = seeded.survey(session)
    with api_client(session, monkeypatch, api_key(session, "tests:read", "tests:write")) as other:
        refused = other.get(f"/tests/{survey.test.id}/results")
    assert refused.status_code == 403
    assert errors_of(refused) == [(None, "This API key does not have the scope results:read.")]
