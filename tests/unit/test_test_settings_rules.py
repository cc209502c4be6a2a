"""The rules behind a test's settings, a new test and a copy (issue 34): payout messages in dollars, the
spec's duration, quota and exclusion options, the schedule, the status paths (a definition with problems
stays a draft), each kind's starting definition, a copy's name, what invitees earn, and the exclusion
window of the invite rule."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from portal.domain.definition import EXCLUSION_WINDOWS, MAX_PAYOUT_CENTS, validate_test_definition
from portal.domain.definition_document import document_of
from portal.domain.reference_data import PRODUCT_TYPES
from portal.domain.staff import incentives
from portal.domain.staff import invite_rule as rule
from portal.domain.staff.editing import (
    EXCLUSION_LABELS,
    LIMIT_OPTIONS,
    NOT_A_SUM,
    SCHEDULE_BAD_DATE,
    SCHEDULE_BAD_TIME,
    SCHEDULE_DATE_NEEDED,
    SCHEDULE_PAST,
    SCHEDULE_TIME_NEEDED,
    SESSION_LABELS,
    TRANSITIONS,
    check_form,
    exclusion_text,
    form_of,
    limit_options,
    schedule_of,
    status_problem,
)
from portal.domain.staff.new_tests import (
    COPY_PREFIX,
    MAX_NAME,
    NAME_NEEDED,
    NAME_TOO_LONG,
    PANEL_NEEDED,
    STARTING_CONTENT,
    TYPE_NEEDED,
    copy_base,
    copy_name,
    new_test_problems,
    product_type_options,
    starting_document,
)
from portal.domain.taking import kinds

DEMO = Path(__file__).resolve().parents[2] / "portal" / "data" / "demo_tests"
NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def survey() -> dict:
    doc = json.loads((DEMO / "01-survey.json").read_text())
    doc["status"] = "draft"
    return doc


def checked(form_changes: dict, doc: dict | None = None, status: str = "draft", **kw):
    doc = doc if doc is not None else survey()
    return check_form(doc, {**form_of(doc), **form_changes}, status, now=NOW, **kw)


# --- payout, in dollars -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "typed,message",
    [
        ("2000", "The payout can be at most $1,000."),
        ("1000.01", "The payout can be at most $1,000."),
        ("twenty", NOT_A_SUM),
        ("-5", NOT_A_SUM),
        ("12345678", NOT_A_SUM),
    ],
)
def test_every_payout_message_speaks_dollars(typed, message):
    result = checked({"payout": typed})
    assert result.problems["payout"] == message
    assert "100000" not in result.problems["payout"]


@pytest.mark.parametrize("typed,cents", [("1000", MAX_PAYOUT_CENTS), ("0", 0), ("$15", 1500), ("20.5", 2050)])
def test_a_payout_within_the_limit_is_taken_in_cents(typed, cents):
    result = checked({"payout": typed})
    assert "payout" not in result.problems and result.document["payoutCents"] == cents


def test_a_file_with_a_payout_over_the_limit_is_told_in_dollars_too():
    doc = {**survey(), "payoutCents": MAX_PAYOUT_CENTS + 1}
    assert [str(e) for e in validate_test_definition(doc)] == ["payoutCents: The payout can be at most $1,000."]


# --- duration, quota, exclusion window ----------------------------------------------------------------


def test_the_duration_offers_the_spec_s_60_15_and_5_minutes():
    assert SESSION_LABELS == {3600: "60 minutes", 900: "15 minutes", 300: "5 minutes"}


def test_the_quota_offers_the_spec_s_options_and_keeps_a_number_a_file_set():
    assert [v for v, _ in LIMIT_OPTIONS] == ["15", "30", "50", "100", "200", "400", "unlimited"]
    assert dict(LIMIT_OPTIONS)["15"] == "15 (97% of problems)"
    assert limit_options("50") == list(LIMIT_OPTIONS)
    assert ("40", "40 (set by an imported file)") in limit_options("40")
    assert checked({"limit": "unlimited"}).document.get("participantLimit") is None
    assert checked({"limit": "200"}).document["participantLimit"] == 200
    assert form_of({**survey(), "participantLimit": None})["limit"] == "unlimited"


@pytest.mark.parametrize("days", EXCLUSION_WINDOWS)
def test_the_exclusion_window_goes_through_the_form_and_the_document(days):
    result = checked({"exclusion": str(days)})
    assert not result.problems
    assert result.document.get("exclusionDays", 0) == days
    columns = {"product_type": "survey", "exclusion_days": days, "name": "x"}
    exported = document_of(columns, [])
    assert exported.get("exclusionDays", 0) == days
    assert ("exclusionDays" in exported) == (days != 0)  # none is the default, left out of a file


def test_the_exclusion_window_is_shown_as_n_days():
    assert EXCLUSION_LABELS[30] == "30 days" and EXCLUSION_LABELS[0] == "None"
    assert [exclusion_text(d) for d in EXCLUSION_WINDOWS] == ["All", "None", "30 days", "60 days", "90 days"]


def test_an_exclusion_window_not_offered_is_refused():
    assert "must be one of -1, 0, 30, 60, 90" in checked({"exclusion": "45"}).problems["exclusion"]


# --- the schedule ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "date,time,problems",
    [
        ("", "", {"scheduled.date": SCHEDULE_DATE_NEEDED, "scheduled.time": SCHEDULE_TIME_NEEDED}),
        ("2026-13-01", "10:00", {"scheduled.date": SCHEDULE_BAD_DATE}),
        ("01/05/2026", "10:00", {"scheduled.date": SCHEDULE_BAD_DATE}),
        ("2026-05-02", "25:00", {"scheduled.time": SCHEDULE_BAD_TIME}),
        ("2026-05-02", "noon", {"scheduled.time": SCHEDULE_BAD_TIME}),
    ],
)
def test_a_schedule_needs_a_date_and_a_time(date, time, problems):
    assert schedule_of(date, time) == (None, problems)


def test_a_schedule_is_read_in_utc():
    assert schedule_of("2026-05-02", "14:30") == (datetime(2026, 5, 2, 14, 30, tzinfo=UTC), {})
    assert schedule_of("2026-05-02", "14:30:00")[0] == datetime(2026, 5, 2, 14, 30, tzinfo=UTC)


def test_scheduled_needs_a_time_in_the_future():
    past = checked({"status": "scheduled", "scheduled.date": "2026-05-01", "scheduled.time": "11:59"})
    assert past.problems == {"scheduled.time": SCHEDULE_PAST}
    future = checked({"status": "scheduled", "scheduled.date": "2026-05-01", "scheduled.time": "12:30"})
    assert not future.problems and future.scheduled_at == datetime(2026, 5, 1, 12, 30, tzinfo=UTC)
    # A scheduled test whose time has just come (the job launches it) keeps its schedule when other fields change.
    due = datetime(2026, 5, 1, 11, 59, tzinfo=UTC)
    doc = {**survey(), "status": "scheduled"}
    kept = check_form(doc, {**form_of(doc, due), "payout": "30"}, "scheduled", now=NOW, scheduled_before=due)
    assert not kept.problems


def test_the_form_shows_the_schedule_in_utc():
    when = datetime(2026, 5, 2, 16, 30, tzinfo=UTC).astimezone(UTC)
    form = form_of(survey(), when)
    assert (form["scheduled.date"], form["scheduled.time"]) == ("2026-05-02", "16:30")


# --- status paths --------------------------------------------------------------------------------


def test_status_paths_are_the_sensible_ones():
    assert TRANSITIONS["running"] == ("stopped", "completed")
    assert "running" in TRANSITIONS["stopped"] and "running" in TRANSITIONS["scheduled"]
    for status in ("running", "stopped", "completed", "removed"):
        assert "draft" not in TRANSITIONS[status] and "scheduled" not in TRANSITIONS[status]
    assert TRANSITIONS["removed"] == ()
    assert status_problem("running", "draft") == "A running test can become stopped or completed, not draft."


def test_a_definition_with_problems_stays_a_draft():
    incomplete = {k: v for k, v in survey().items() if k != "survey"}
    saved = checked({"payout": "30"}, incomplete)
    assert not saved.problems and saved.content == ["survey: is required for a survey test (with questions)"]
    for status in ("ready-to-launch", "scheduled", "running"):
        held = checked({"status": status, "scheduled.date": "2026-06-01", "scheduled.time": "10:00"}, incomplete)
        assert held.problems["status"].startswith("This test's definition has 1 problem (listed below)")
    assert not checked({"status": "removed"}, incomplete).problems
    assert not checked({"status": "running"}).problems  # a complete one launches


# --- a new test, and a copy ----------------------------------------------------------------------


def test_the_product_types_are_labelled_and_grouped_by_kind():
    options = product_type_options()
    assert sorted(v for v, _ in options) == sorted(PRODUCT_TYPES)
    kinds_in_order = [kinds.kind_of(v).name for v, _ in options]
    assert kinds_in_order == sorted(kinds_in_order, key=list(kinds.KINDS).index)
    assert ("landing-page", "Highlight · Landing page") in options
    assert ("pricing-test", "Pricing · Pricing test") in options


@pytest.mark.parametrize(
    "form,problems",
    [
        ({"name": "A", "productType": "survey", "panel": "b2b"}, {}),
        ({"name": "  ", "productType": "survey", "panel": "b2b"}, {"name": NAME_NEEDED}),
        ({"name": "x" * (MAX_NAME + 1), "productType": "survey", "panel": "b2b"}, {"name": NAME_TOO_LONG}),
        (
            {"name": ["A"], "productType": "dropdown", "panel": None},
            {"name": NAME_NEEDED, "productType": TYPE_NEEDED, "panel": PANEL_NEEDED},
        ),
    ],
)
def test_the_new_test_form(form, problems):
    assert new_test_problems(form) == problems


@pytest.mark.parametrize("product_type", sorted(PRODUCT_TYPES))
def test_each_kind_starts_from_a_definition_the_builder_completes(product_type):
    settings = {"name": "New", "productType": product_type, "status": "draft", "panel": "b2b"}
    doc = starting_document(settings)
    problems = {e.path for e in validate_test_definition(doc)}
    kind = kinds.kind_of(product_type).name
    expected = {
        "survey": set(),  # one short-text question: complete at once
        "highlight": {"url", "screenshotUrl"},
        "pricing": {"url", "screenshotUrl", "pricingUrl", "pricingScreenshotUrl"},
        "preference": {"preferenceTest.images"},
        "video": {"videoTest.recorderUrl"},
    }[kind]
    assert problems == expected
    assert {k: doc[k] for k in settings} == settings


def test_a_survey_starts_with_one_short_text_question():
    [question] = STARTING_CONTENT["survey"]["survey"]["questions"]
    assert question["type"] == "short-text" and question["isRequired"] is True


def test_a_copy_gets_a_free_name_within_the_limit():
    assert copy_name("Onboarding", []) == "Copy of Onboarding"
    assert copy_name("Onboarding", ["Copy of Onboarding"]) == "Copy of Onboarding (2)"
    assert copy_name("Onboarding", ["Copy of Onboarding", "Copy of Onboarding (2)"]) == "Copy of Onboarding (3)"
    long = "n" * MAX_NAME
    taken: list[str] = []
    for _ in range(12):
        name = copy_name(long, taken)
        assert len(name) <= MAX_NAME and name.startswith(copy_base(long)) and name not in taken
        taken.append(name)
    assert taken[0].startswith(COPY_PREFIX) and taken[-1].endswith(" (12)")


# --- what invitees earn, beside the payout ---------------------------------------------------------


def test_invitees_earn_by_seniority_and_day():
    assert incentives.invitee_rates("survey") == [
        ("specialist", "$10", "$15"),
        ("middle", "$20", "$25"),
        ("senior", "$35", "$45"),
    ]
    assert incentives.invitee_rates("landing-page")[0] == ("specialist", "$5", "$10")


def test_a_payout_the_table_never_pays_is_pointed_out():
    assert incentives.payout_note("survey", 2000) == ""  # middle, day 1
    note = incentives.payout_note("survey", 2750)
    assert note.startswith("This test's payout ($27.50) is not what invitees earn: an invite pays $10 to $45")
    assert incentives.payout_note("survey", "x") == ""


# --- the exclusion window in the invite rule -------------------------------------------------------


def test_the_exclusion_window_of_the_invite_rule():
    assert not rule.excludes(0) and rule.excludes(-1) and rule.excludes(30)
    assert rule.window_start(-1, NOW) is None
    assert rule.window_start(30, NOW) == NOW - timedelta(days=30)
    text = rule.cannot_invite_text({rule.EXCLUDED: 2, rule.UNVERIFIED: 1}, "United States", picked=0, window=60)
    assert text == (
        "3 of those matching will not be invited: 2 took a test in the last 60 days (the exclusion window), "
        "1 is not verified."
    )
    assert "took a test before" in rule.cannot_invite_text({rule.EXCLUDED: 1}, "US", picked=1, window=-1)
