"""A test's results and its exports read from one query (issue 35), on SQLite and PostgreSQL: what the page
shows and what the CSV and the workbook hold agree, the filters choose the right reviews, rejected reviews
are left out unless asked for, bad filters get a message, and only staff may read or export."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from openpyxl import load_workbook
from sqlmodel import Session, select

from portal.domain.results import filters as rules
from portal.models import Account, ParticipantProfile, Review, ReviewSession, TestVersion
from portal.services.admin import results as service
from portal.services.definition_import import import_test
from portal.services.errors import ServiceError
from portal.services.seeding import seed_reference
from tests.support.factories import make_participant

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)


def demo(name: str) -> dict:
    return json.loads((ROOT / "portal/data/demo_tests" / name).read_text())


def staff(session: Session) -> int:
    account = make_participant(session)
    account.staff_role = "team-manager"
    session.add(account)
    session.commit()
    return account.id


def person(session: Session, *, country: str, seniority: str, size: str) -> Account:
    account = make_participant(session)
    profile = session.get(ParticipantProfile, account.id)
    profile.country, profile.experience_levels, profile.company_size_id = country, [seniority], size
    session.add(profile)
    session.commit()
    return account


def review(session: Session, test, account, answers, *, minutes: int, day: int = 0, order=(), status="submitted"):
    version = session.exec(select(TestVersion.id).where(TestVersion.test_id == test.id)).first()
    started = T0 + timedelta(days=day)
    rs = ReviewSession(
        test_id=test.id,
        version_id=version,
        account_id=account.id,
        respondent_key=str(account.id),
        started_at=started,
        deadline_at=started + timedelta(hours=1),
        status="submitted",
    )
    session.add(rs)
    session.flush()
    session.add(
        Review(
            test_id=test.id,
            version_id=version,
            account_id=account.id,
            respondent_key=str(account.id),
            session_id=rs.id,
            kind="survey" if not order else "preference",
            answers=answers,
            options_order=list(order),
            signals={"pasted": 1 if minutes < 3 else 0, "precheck": {"page": 19}},
            created_at=started + timedelta(minutes=minutes),
            status=status,
        )
    )
    session.commit()


def survey(choice: str, tools: list[str], satisfaction: int, budget: int, text: str) -> dict:
    return {
        "involvement": {"type": "single-choice", "value": choice},
        "tools-used": {"type": "multi-choice", "value": tools},
        "annual-budget": {"type": "number", "value": budget},
        "satisfaction": {"type": "rating", "value": satisfaction},
        "priorities": {"type": "rank", "value": ["ease", "price", "integrations", "support"]},
        "statements": {"type": "matrix", "value": {"trust": ["agree"], "speed": ["neutral"]}},
        "last-purchase": {"type": "long-text", "value": text},
    }


@pytest.fixture(autouse=True)
def reference(session: Session) -> None:
    seed_reference(session)
    session.commit()


@pytest.fixture
def world(session: Session):
    test = import_test(session, demo("01-survey.json"))
    a = person(session, country="US", seniority="senior", size="small")
    b = person(session, country="GB", seniority="middle", size="small")
    c = person(session, country="US", seniority="middle", size="enterprise")
    d = person(session, country="DE", seniority="specialist", size="micro")
    review(
        session, test, a, survey("decider", ["spreadsheets", "bi-suite"], 5, 1000, "=SUM(A1) we bought it"), minutes=10
    )
    review(session, test, b, survey("decider", ["bi-suite"], 4, 3000, "Long story about a purchase"), minutes=6, day=1)
    review(session, test, c, survey("influencer", ["spreadsheets"], 2, 2000, "A short one"), minutes=2, day=2)
    review(session, test, d, survey("none", [], 1, 0, "spam spam"), minutes=1, day=2, status="rejected")
    return test, staff(session)


def by_key(found: service.Results) -> dict:
    return {q.slot.key: q.summary for q in found.report.questions}


def test_the_page_counts_each_answer_and_leaves_rejected_out(session: Session, world) -> None:
    test, actor = world
    found = service.results_view(session, actor_id=actor, test_id=test.id)
    assert found.report.reviews == 3 and found.excluded_left_out == 1
    assert (found.funnel.submitted, found.funnel.approved) == (4, 0)
    summaries = by_key(found)
    involvement = {s.key: s.count for s in summaries["involvement"].shares}
    assert involvement == {"decider": 2, "influencer": 1, "none": 0}
    assert summaries["satisfaction"].mean == pytest.approx(11 / 3)
    assert (summaries["annual-budget"].median, summaries["annual-budget"].low) == (2000, 1000)
    assert summaries["priorities"].positions["ease"] == 1
    assert summaries["statements"].table["trust"]["agree"] == 3
    assert found.report.timing.median == 6 * 60
    assert [t for t, _ in summaries["last-purchase"].texts][0] == "=SUM(A1) we bought it"
    with_rejected = service.results_view(session, actor_id=actor, test_id=test.id, filters={"excluded": "1"})
    assert with_rejected.report.reviews == 4
    assert {s.key: s.count for s in by_key(with_rejected)["involvement"].shares}["none"] == 1


def test_an_excluded_review_is_left_out_of_the_page_and_the_export_like_a_rejected_one(session: Session, world) -> None:
    test, actor = world
    e = person(session, country="US", seniority="senior", size="small")
    review(session, test, e, survey("influencer", [], 3, 500, "Excluded but paid"), minutes=5, status="excluded")
    found = service.results_view(session, actor_id=actor, test_id=test.id)
    assert (found.report.reviews, found.excluded_left_out) == (3, 2)
    _, data, _ = service.export_results(session, actor_id=actor, test_id=test.id, file_format="csv")
    assert b"Excluded but paid" not in data and len(list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))) == 3
    everything = service.results_view(session, actor_id=actor, test_id=test.id, filters={"excluded": "1"})
    assert everything.report.reviews == 5
    _, data, _ = service.export_results(
        session, actor_id=actor, test_id=test.id, file_format="csv", filters={"excluded": "1"}
    )
    assert b"Excluded but paid" in data


@pytest.mark.parametrize(
    ("chosen", "expected"),
    [
        ({"country": "us"}, 2),
        ({"seniority": "middle"}, 2),
        ({"company_size": "small"}, 2),
        ({"version": "1"}, 3),
        ({"since": "2030-03-02"}, 2),
        ({"since": "2030-03-02", "until": "2030-03-02"}, 1),
        ({"country": "US", "seniority": "middle"}, 1),
    ],
)
def test_filters_choose_the_reviews(session: Session, world, chosen, expected) -> None:
    test, actor = world
    assert service.results_view(session, actor_id=actor, test_id=test.id, filters=chosen).report.reviews == expected


@pytest.mark.parametrize(
    ("chosen", "message"),
    [
        ({"seniority": "boss"}, rules.BAD_SENIORITY),
        ({"country": "XX"}, rules.BAD_COUNTRY),
        ({"company_size": ["small"]}, rules.BAD_COMPANY_SIZE),
        ({"version": "7"}, rules.BAD_VERSION),
        ({"version": "-1"}, rules.BAD_VERSION),
        ({"since": "yesterday"}, rules.BAD_DATE),
        ({"since": "2030-03-05", "until": "2030-03-01"}, rules.DATES_REVERSED),
    ],
)
def test_bad_filters_get_a_message(session: Session, world, chosen, message) -> None:
    test, actor = world
    with pytest.raises(ServiceError) as refused:
        service.results_view(session, actor_id=actor, test_id=test.id, filters=chosen)
    assert refused.value.message == message


def test_only_staff_read_and_export(session: Session, world) -> None:
    test, _ = world
    participant = make_participant(session)
    for call in (
        lambda: service.results_view(session, actor_id=participant.id, test_id=test.id),
        lambda: service.export_results(session, actor_id=participant.id, test_id=test.id, file_format="csv"),
        lambda: service.results_view(session, actor_id=None, test_id=test.id),
    ):
        with pytest.raises(ServiceError):
            call()


def test_both_exports_hold_the_page_numbers(session: Session, world) -> None:
    test, actor = world
    page = service.results_view(session, actor_id=actor, test_id=test.id)
    name, data, media = service.export_results(session, actor_id=actor, test_id=test.id, file_format="csv")
    assert name.endswith(".csv") and media.startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    assert len(rows) == page.report.reviews
    involvement = "How involved are you in choosing analytics software for your team?"
    question = next(q.slot.title for q in page.report.questions if q.slot.key == "involvement")
    assert question in rows[0]
    labels = by_key(page)["involvement"].labels
    counted = {labels[k]: sum(r[question] == labels[k] for r in rows) for k in labels}
    assert counted == {labels[s.key]: s.count for s in by_key(page)["involvement"].shares} != {}
    assert rows[0]["Country"] == "US" and rows[0]["Seniority"] == "Senior"
    assert rows[0]["Company size"] == "10-49 employees"
    story = next(k for k in rows[0] if k.startswith("Tell us about"))
    assert [r[story] for r in rows][0] == "'=SUM(A1) we bought it", rows[0]  # formula-safe
    assert "Signal: precheck.page" in rows[0]
    _, book, media = service.export_results(session, actor_id=actor, test_id=test.id, file_format="xlsx")
    assert media.endswith("spreadsheetml.sheet")
    workbook = load_workbook(io.BytesIO(book), read_only=True)
    sheet = list(workbook["Reviews"].iter_rows(values_only=True))
    assert len(sheet) - 1 == page.report.reviews
    header = list(sheet[0])
    assert [r[header.index(question)] for r in sheet[1:]] == [r[question] for r in rows]
    assert all(isinstance(r[header.index("Time taken (seconds)")], int) for r in sheet[1:])
    summary = [r for r in workbook["Summary"].iter_rows(values_only=True) if r and r[0] == question]
    assert {(r[1], r[2]) for r in summary} == set(counted.items())
    assert question == involvement


def test_an_unknown_format_or_test_is_refused(session: Session, world) -> None:
    test, actor = world
    with pytest.raises(ServiceError) as refused:
        service.export_results(session, actor_id=actor, test_id=test.id, file_format="pdf")
    assert refused.value.message == "Choose CSV or Excel (XLSX) for the export."
    with pytest.raises(ServiceError) as missing:
        service.results_view(session, actor_id=actor, test_id=10**9)
    assert missing.value.message == service.NO_TEST


def test_preference_shares_and_order_from_the_stored_order(session: Session) -> None:
    test = import_test(session, demo("04-preference-image.json"))
    actor = staff(session)
    orders = [
        (["concept-a", "concept-b", "concept-c"], "concept-a"),
        (["concept-b", "concept-a", "concept-c"], "concept-b"),
        (["concept-a", "concept-c", "concept-b"], "concept-a"),
        (["concept-c", "concept-b", "concept-a"], "concept-b"),
    ]
    for i, (order, chosen) in enumerate(orders):
        account = person(session, country="US", seniority="senior", size="small")
        review(session, test, account, {"selectedConcept": chosen, "answer": f"reason {i}"}, minutes=3, order=order)
    found = service.results_view(session, actor_id=actor, test_id=test.id)
    pref = found.report.preference
    assert pref is not None and pref.answered == 4
    assert [(s.key, s.count) for s in pref.shares] == [("concept-a", 2), ("concept-b", 2), ("concept-c", 0)]
    zero = pref.shares[2].interval
    assert zero is not None and zero.low == 0 and 0.4 < zero.high < 0.5  # 0 of 4: Wilson's upper bound 49%
    assert pref.by_position == [3, 1, 0]
    assert (pref.order[0]["concept-a"].shown, pref.order[0]["concept-a"].chosen) == (2, 2)
    _, data, _ = service.export_results(session, actor_id=actor, test_id=test.id, file_format="csv")
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    assert rows[1]["Shown order"] == "Stop guessing | Know your buyers | Real answers"
    assert [r["Which one do you like better?"] for r in rows].count("Know your buyers") == 2


@pytest.mark.parametrize(
    ("chosen", "field"),
    [
        ({"seniority": "boss"}, "seniority"),
        ({"country": "XX"}, "country"),
        ({"company_size": ["small"]}, "company_size"),
        ({"version": "7"}, "version"),
        ({"version": "-1"}, "version"),
        ({"since": "yesterday"}, "since"),
        ({"until": ["2030-03-01"]}, "until"),
        ({"since": "2030-03-05", "until": "2030-03-01"}, "until"),
    ],
)
def test_a_bad_filter_names_its_field(session: Session, world, chosen, field) -> None:
    """The results page shows a bad filter's message under the control that caused it."""
    test, actor = world
    with pytest.raises(ServiceError) as refused:
        service.results_view(session, actor_id=actor, test_id=test.id, filters=chosen)
    assert refused.value.field == field
    with pytest.raises(ServiceError) as missing:
        service.results_view(session, actor_id=actor, test_id="abc")
    assert missing.value.field not in rules.Filters.__dataclass_fields__
