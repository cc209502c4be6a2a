"""The results' report, filters and export table from rows (issue 35), without a database."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from portal.domain.results import filters as rules
from portal.domain.results.export import FIXED, review_table, summary_table
from portal.domain.results.report import (
    REASON_TITLE,
    Row,
    Slot,
    by_question,
    merged,
    preference_slots,
    report,
    signal_columns,
    signal_value,
    slots,
    timing,
)

T = datetime(2030, 1, 1, 12, tzinfo=UTC)
CHOICE = {
    "key": "q1",
    "type": "single-choice",
    "text": "Pick one",
    "options": [{"value": "a", "label": "Apple"}, {"value": "b", "label": "Banana"}, {"value": "c", "label": "Cherry"}],
}
TEXT = {"key": "q2", "type": "long-text", "text": "Why?"}
DESCRIPTION = {"key": "d", "type": "description", "text": "Read this"}


def row(review_id: int, answers: dict, **extra) -> Row:
    values = {
        "version": 1,
        "status": "submitted",
        "submitted": T,
        "seconds": 60 * review_id,
        "order": [],
        "signals": {},
        "participant": str(review_id),
    }
    values.update(extra)
    return Row(review_id=review_id, answers=answers, **values)


def test_slots_skip_blocks_that_take_no_answer_and_use_the_index_for_a_keyless_question() -> None:
    found = slots([CHOICE, DESCRIPTION, {"type": "short-text", "text": "Name"}])
    assert [(s.key, s.title) for s in found] == [("q1", "Pick one"), ("2", "Name")]


def test_merged_keeps_the_newest_wording_and_older_only_questions() -> None:
    newest = [Slot("q1", "Pick one (new)", CHOICE)]
    older = [Slot("q1", "Pick one", CHOICE), Slot("q9", "Gone", TEXT)]
    assert [s.title for s in merged([newest, older])] == ["Pick one (new)", "Gone"]


def test_highlight_answers_are_read_out_of_their_blocks() -> None:
    stored = {
        "first-impression": [{"type": "long-text", "value": "hi", "questionKey": "f1"}],
        "highlight-1": [{"type": "long-text", "value": "area", "questionKey": "a1"}],
        "q1": {"type": "single-choice", "value": "a"},
    }
    assert by_question(stored) == {
        "f1": stored["first-impression"][0],
        "a1": stored["highlight-1"][0],
        "q1": stored["q1"],
    }


def test_the_report_counts_a_choice_with_zero_vote_options_and_the_areas() -> None:
    areas = [{"from": [10, 20], "to": [30, 40], "questions": []}, {"from": [0, 0], "to": [5, 5], "questions": []}]
    question_slots = [Slot("q1", "Pick one", CHOICE), Slot("a1", "About area 1", TEXT, area=0)]
    rows = [
        row(1, {"q1": {"value": "a"}, "highlight-1": [{"value": "nice", "questionKey": "a1"}]}),
        row(2, {"q1": {"value": "a"}}),
        row(3, {"q1": {"value": "b"}, "highlight-1": [{"value": "", "questionKey": "a1"}]}),
    ]
    found = report(rows, question_slots, areas=areas)
    assert found.reviews == 3
    shares = {s.key: (s.count, round(s.share, 3)) for s in found.questions[0].summary.shares}
    assert shares == {"a": (2, 0.667), "b": (1, 0.333), "c": (0, 0.0)}
    assert [(a.number, a.box, a.answered) for a in found.areas] == [(1, (10, 20, 30, 40), 1), (2, (0, 0, 5, 5), 0)]
    assert found.timing.median == 120


def test_timing_quartiles_and_nothing_when_untimed() -> None:
    assert timing([60, 120, 180, 240, 300]).median == 180
    quartiles = timing([60, 120, 180, 240, 300])
    assert (quartiles.fastest, quartiles.slowest, quartiles.timed) == (120, 240, 5)
    assert timing([None, None]).median is None
    assert timing([90]).fastest == 90


PREFERENCE = {
    "preferenceTest": {
        "preferenceType": "image",
        "images": [
            {"key": "x", "name": "Concept X", "url": "/x.png"},
            {"key": "y", "name": "Concept Y", "url": "/y.png"},
            {"key": "z", "name": "Concept Z", "url": "/z.png"},
        ],
    }
}


def test_a_preference_report_keeps_the_concept_nobody_chose_and_reads_the_stored_order() -> None:
    rows = [
        row(1, {"selectedConcept": "x", "answer": "because"}, order=["x", "y", "z"]),
        row(2, {"selectedConcept": "y", "answer": "why not"}, order=["y", "x", "z"]),
        row(3, {"selectedConcept": "x", "answer": "fine"}, order=["y", "x", "z"]),
    ]
    found = report(rows, preference_slots(PREFERENCE), content=PREFERENCE)
    pref = found.preference
    assert pref is not None and pref.answered == 3
    assert [(s.key, s.count) for s in pref.shares] == [("x", 2), ("y", 1), ("z", 0)]
    nobody = pref.shares[2].interval
    assert nobody is not None and nobody.low == 0 and nobody.high == pytest.approx(0.5615, abs=1e-4)
    assert pref.by_position == [2, 1, 0]
    assert (pref.order[1]["x"].shown, pref.order[1]["x"].chosen) == (2, 1)
    assert [q.slot.title for q in found.questions] == ["Which one do you like better?", REASON_TITLE]
    assert [t for t, _ in found.questions[1].summary.texts] == ["because", "why not", "fine"]


def test_the_review_table_has_one_row_per_review_with_labels_and_signals() -> None:
    rows = [
        row(
            1,
            {"q1": {"value": "b"}, "q2": {"value": "=1+1 is my answer"}},
            seniority=("senior", "middle"),
            country="US",
            company_size="small",
            industries=("Software",),
            signals={"pasted": 2, "precheck": {"page": 19, "scroll": 80}, "left": True},
        ),
        row(2, {"q1": {"value": "a"}}, order=["y", "x"], signals={"pasted": 0}),
    ]
    header, table = review_table(rows, [Slot("q1", "Pick one", CHOICE), Slot("q2", "Why?", TEXT)], {"x": "X", "y": "Y"})
    assert header == [
        *FIXED,
        "Signal: pasted",
        "Signal: precheck.page",
        "Signal: precheck.scroll",
        "Signal: left",
        "Pick one",
        "Why?",
    ]
    assert table[0][4:10] == [1, "Senior, Middle", "US", "10-49 employees", "Software", 60]
    assert table[0][-6:] == [2, 19, 80, "yes", "Banana", "=1+1 is my answer"]  # files make cells formula-safe
    assert table[1][10] == "Y | X" and table[1][-2:] == ["Apple", ""]
    assert signal_columns(rows) == ["pasted", "precheck.page", "precheck.scroll", "left"]
    assert signal_value({"a": {"b": [1]}}, "a.b") == "[1]"


def test_the_summary_sheet_holds_the_page_numbers() -> None:
    rows = [row(i, {"q1": {"value": v}}) for i, v in enumerate("aab", start=1)]
    found = report(rows, [Slot("q1", "Pick one", CHOICE)])
    lines = summary_table(found, [Slot("q1", "Pick one", CHOICE)], rules.Filters(country="US"))
    assert lines[0] == ["Filters", "country=US"]
    assert ["Reviews", 3] in lines
    assert ["Pick one", "Apple", 2, 66.7, 20.8, 93.9] in lines
    assert ["Pick one", "Cherry", 0, 0.0, 0.0, 56.1] in lines


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, rules.Filters()),
        ({"country": "us", "excluded": "1"}, rules.Filters(country="US", excluded=True)),
        ({"version": "3", "since": "2030-01-02"}, rules.Filters(version=3, since=date(2030, 1, 2))),
        ({"seniority": "", "company_size": "enterprise"}, rules.Filters(company_size="enterprise")),
    ],
)
def test_filters_read_from_the_page(raw, expected) -> None:
    assert rules.read(raw) == expected


@pytest.mark.parametrize(
    ("raw", "field", "message"),
    [
        ({"seniority": "ceo"}, "seniority", rules.BAD_SENIORITY),
        ({"country": "ZZ"}, "country", rules.BAD_COUNTRY),
        ({"country": {"x": 1}}, "country", rules.BAD_COUNTRY),
        ({"company_size": "huge"}, "company_size", rules.BAD_COMPANY_SIZE),
        ({"version": "0"}, "version", rules.BAD_VERSION),
        ({"version": "1.5"}, "version", rules.BAD_VERSION),
        ({"until": "31/12/2030"}, "until", rules.BAD_DATE),
        ({"since": "2030-02-01", "until": "2030-01-01"}, "until", rules.DATES_REVERSED),
    ],
)
def test_bad_filters_name_their_field(raw, field, message) -> None:
    with pytest.raises(rules.FilterError) as bad:
        rules.read(raw)
    assert (bad.value.field, bad.value.message) == (field, message)


def test_the_filters_as_a_link_and_the_statuses_left_out() -> None:
    chosen = rules.Filters(country="US", version=2, since=date(2030, 1, 1), excluded=False)
    assert chosen.params() == {"country": "US", "version": "2", "since": "2030-01-01"}
    assert chosen.statuses_left_out() == {"excluded", "rejected"}
    assert rules.Filters(excluded=True).statuses_left_out() == set()
    assert rules.COMPANY_SIZES == {
        "solo": "1 employee",
        "micro": "2-9 employees",
        "small": "10-49 employees",
        "medium": "50-199 employees",
        "midMarket": "200-999 employees",
        "enterprise": "1,000+ employees",
    }
