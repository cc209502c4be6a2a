"""The results page's texts (portal/domain/results/view.py) against values worked out by hand: percentages and
95% intervals as the page writes them, each chart's text alternative, the order table's cells, the areas' boxes,
time taken, and the typed answers' search."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from portal.domain.results import view
from portal.domain.results.filters import Filters
from portal.domain.results.report import AreaResult, Row, Slot, preference_slots, report, slots
from portal.domain.results.shares import Interval, wilson

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2030, 3, 1, 9, 0, tzinfo=UTC)


def demo(name: str) -> dict:
    return json.loads((ROOT / "portal/data/demo_tests" / name).read_text())


def row(n: int, answers: dict, *, minutes: int | None = None, order=()) -> Row:
    return Row(
        review_id=n,
        version=1,
        status="submitted",
        submitted=T0 + timedelta(minutes=minutes or 0),
        seconds=minutes * 60 if minutes is not None else None,
        answers=answers,
        order=list(order),
        signals={},
        participant=str(n),
    )


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


@pytest.fixture
def survey_report():
    questions = demo("01-survey.json")["survey"]["questions"]
    rows = [
        row(1, survey("decider", ["spreadsheets", "bi-suite"], 5, 1000, "=SUM(A1) we bought it"), minutes=10),
        row(2, survey("decider", ["bi-suite"], 4, 3000, "Long story about a purchase"), minutes=6),
        row(3, survey("influencer", ["spreadsheets"], 2, 2000, "A short one"), minutes=2),
    ]
    return report(rows, slots(questions))


def cards(found) -> dict[str, view.Card]:
    return {c["key"]: c for s in view.sections(found) for c in s["cards"]}


@pytest.mark.parametrize(
    ("share", "text"),
    [(2 / 3, "66.7%"), (1.0, "100%"), (0.0, "0%"), (0.125, "12.5%"), (0.99996, "100%"), (1 / 3, "33.3%")],
)
def test_percentages_keep_one_decimal_and_drop_a_trailing_zero(share, text):
    assert view.pct(share) == text


@pytest.mark.parametrize(
    ("successes", "n", "text"),
    [
        (2, 3, "95% CI 20.8–93.9%"),
        (1, 3, "95% CI 6.1–79.2%"),
        (0, 3, "95% CI 0.0–56.1%"),
        (0, 4, "95% CI 0.0–49.0%"),  # a concept nobody chose still has an upper bound
        (2, 4, "95% CI 15.0–85.0%"),
        (10, 10, "95% CI 72.2–100.0%"),
    ],
)
def test_intervals_as_the_page_writes_them(successes, n, text):
    assert view.ci(wilson(successes, n)) == text


def test_no_answers_no_interval():
    assert view.ci(None) == ""
    assert view.share_text(0, 0, 0.0, None) == "0 of 0"
    assert view.share_text(2, 3, 2 / 3, Interval(0.20766, 0.93851)) == "2 of 3 (66.7%, 95% CI 20.8–93.9%)"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(None, "—"), (0, "0 s"), (45, "45 s"), (59.6, "1 min 00 s"), (360, "6 min 00 s"), (725, "12 min 05 s")]
    + [(3725, "1 h 02 min"), (-1, "—")],
)
def test_time_taken(seconds, text):
    assert view.duration(seconds) == text


@pytest.mark.parametrize(
    ("position", "text"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"), (21, "21st")]
    + [(22, "22nd"), (101, "101st"), (111, "111th")],
)
def test_ordinals(position, text):
    assert view.ordinal(position) == text


@pytest.mark.parametrize(
    ("value", "text"), [(2000.0, "2,000"), (11 / 3, "3.67"), (-12.5, "-12.5"), (0.1, "0.1"), (None, "—")]
)
def test_numbers(value, text):
    assert view.number(value) == text


def test_a_single_choice_card_says_every_share_with_its_interval(survey_report):
    involvement = cards(survey_report)["involvement"]
    assert involvement["id"] == "results-q-involvement"
    assert involvement["answered"] == "3 answers"
    assert involvement["summary"] == (
        "I make or approve the decision: 2 of 3 (66.7%, 95% CI 20.8–93.9%); "
        "I recommend tools to the decision maker: 1 of 3 (33.3%, 95% CI 6.1–79.2%); "
        "I am not involved: 0 of 3 (0%, 95% CI 0.0–56.1%)."
    )
    bars = involvement["chart"]
    assert [(b["short"], b["value"], b["count"], b["text"]) for b in bars] == [
        ("I make or approve the decision", 66.7, 2, "2\u00a0·\u00a066.7%"),
        ("I recommend tools to the decision maker", 33.3, 1, "1\u00a0·\u00a033.3%"),
        ("I am not involved", 0.0, 0, "0\u00a0·\u00a00%"),
    ]
    assert bars[0]["err"] == [45.9, 27.2]  # 66.7 - 20.766, 93.851 - 66.7 percentage points
    assert involvement["chart_height"] == view.CHART_PADDING + 3 * view.BAR_HEIGHT


def test_a_multi_choice_card_counts_shares_of_people_not_of_choices(survey_report):
    tools = cards(survey_report)["tools-used"]
    lines = {line["label"]: line["text"] for line in tools["lines"]}
    assert lines["Spreadsheets"] == "2 of 3 (66.7%, 95% CI 20.8–93.9%)"
    assert lines["A BI suite"] == "2 of 3 (66.7%, 95% CI 20.8–93.9%)"
    assert lines["Web analytics"] == "0 of 3 (0%, 95% CI 0.0–56.1%)"
    assert tools["summary"].startswith("Several choices each, shares of the 3 people who answered. ")
    assert tools["axis"] == "Share of people who answered (%)"


def test_rating_number_rank_and_matrix_cards(survey_report):
    found = cards(survey_report)
    rating = found["satisfaction"]
    assert rating["figures"] == [{"key": "mean", "label": "Mean", "value": "3.67"}]
    assert rating["summary"].startswith("Mean 3.67 from 3 answers. 1: 0 of 3 (0%, 95% CI 0.0–56.1%); 2: 1 of 3")
    budget = found["annual-budget"]
    assert [(f["label"], f["value"]) for f in budget["figures"]] == [
        ("Mean", "2,000"),
        ("Median", "2,000"),
        ("Lowest", "1,000"),
        ("Highest", "3,000"),
    ]
    assert budget["summary"] == "Mean 2,000, median 2,000, lowest 1,000, highest 3,000 (3 answers)."
    assert found["budget-share"]["answered"] == "No answers yet"
    assert found["budget-share"]["summary"] == "No answers yet."
    rank = found["priorities"]
    assert [(b["name"], b["value"]) for b in rank["chart"]] == [
        ("Ease of use", 1.0),
        ("Price", 2.0),
        ("Integrations", 3.0),
        ("Support", 4.0),
    ]
    assert rank["summary"] == (
        "Mean position (1 = ranked first) from 3 answers: Ease of use 1; Price 2; Integrations 3; Support 4."
    )
    matrix = found["statements"]
    assert matrix["columns"] == ["Statement", "Disagree", "Neutral", "Agree"]
    assert matrix["table"] == [
        {"label": "I trust the numbers in our dashboards", "cells": ["0 (0%)", "0 (0%)", "3 (100%)"]},
        {"label": "I get answers fast enough", "cells": ["0 (0%)", "3 (100%)", "0 (0%)"]},
    ]
    assert "concept-intro" not in found  # a text-and-media block takes no answer
    assert found["must-haves"]["title"] == "Which features would Acme Analytics need to have?"  # text elements


def test_text_answers_with_word_counts_and_their_search(survey_report):
    texts = cards(survey_report)["last-purchase"]
    assert texts["texts"][0] == {"text": "=SUM(A1) we bought it", "words": "4 words"}
    assert texts["texts_note"] == "3 answers."
    searched = view.sections(survey_report, {"last-purchase": "  PURCHASE story "})
    found = {c["key"]: c for s in searched for c in s["cards"]}
    assert found["last-purchase"]["texts"] == [{"text": "Long story about a purchase", "words": "5 words"}]
    assert found["last-purchase"]["texts_note"] == "1 of 3 answers match “PURCHASE story”."
    assert found["last-purchase"]["query"] == "  PURCHASE story "  # as typed: the search box keeps it


def test_search_texts_matches_every_word_in_any_case_and_keeps_the_order():
    texts = [("Price was the reason", 4), ("We liked the price", 4), ("Support", 1), ("", 0)]
    assert view.search_texts(texts, "") == texts
    assert view.search_texts(texts, "   ") == texts
    assert view.search_texts(texts, "PRICE") == texts[:2]
    assert view.search_texts(texts, "price reason") == texts[:1]
    assert view.search_texts(texts, "nothing") == []
    assert view.search_texts(texts, None) == texts  # type: ignore[arg-type]


def test_long_lists_of_answers_are_cut_and_say_so():
    many = [(f"answer {i}", 2) for i in range(view.MAX_TEXTS + 5)]
    note = view._texts_note(view.MAX_TEXTS, len(many), len(many), "")
    assert note == f"{len(many)} answers. Showing the first {view.MAX_TEXTS}: search to narrow them down."


def preference_rows():
    orders = [
        (["concept-a", "concept-b", "concept-c"], "concept-a"),
        (["concept-b", "concept-a", "concept-c"], "concept-b"),
        (["concept-a", "concept-c", "concept-b"], "concept-a"),
        (["concept-c", "concept-b", "concept-a"], "concept-b"),
    ]
    return [
        row(i, {"selectedConcept": chosen, "answer": f"reason {i}"}, minutes=3, order=order)
        for i, (order, chosen) in enumerate(orders, start=1)
    ]


def test_preference_shares_intervals_and_the_order_table():
    content = demo("04-preference-image.json")
    found = report(preference_rows(), preference_slots(content), content=content)
    assert found.preference is not None
    pref = view.preference(found.preference)
    assert pref["answered"] == "4 votes"
    assert [(c["label"], c["votes"], c["share"], c["ci"]) for c in pref["concepts"]] == [
        ("Know your buyers", "2 votes", "50%", "95% CI 15.0–85.0%"),
        ("Stop guessing", "2 votes", "50%", "95% CI 15.0–85.0%"),
        ("Real answers", "0 votes", "0%", "95% CI 0.0–49.0%"),
    ]
    assert pref["summary"] == (
        "Know your buyers: 2 of 4 (50%, 95% CI 15.0–85.0%); Stop guessing: 2 of 4 (50%, 95% CI 15.0–85.0%); "
        "Real answers: 0 of 4 (0%, 95% CI 0.0–49.0%)."
    )
    assert pref["chart"][0]["err"] == [35.0, 35.0]
    assert pref["chart"][2]["err"] == [0.0, 49.0]
    assert pref["columns"] == ["Shown", "Know your buyers", "Stop guessing", "Real answers", "Choices by position"]
    assert pref["order"] == [
        {
            "label": "1st",
            "cells": ["2 of 2 chosen (100%)", "1 of 1 chosen (100%)", "0 of 1 chosen (0%)", "3 of 4 (75%)"],
        },
        {"label": "2nd", "cells": ["0 of 1 chosen (0%)", "1 of 2 chosen (50%)", "0 of 1 chosen (0%)", "1 of 4 (25%)"]},
        {"label": "3rd", "cells": ["0 of 1 chosen (0%)", "0 of 1 chosen (0%)", "0 of 2 chosen (0%)", "0 of 4 (0%)"]},
    ]
    assert pref["order_summary"] == (
        "Choices by the position the chosen concept was shown in: 1st 3 of 4 (75%); 2nd 1 of 4 (25%); 3rd 0 of 4 (0%)."
    )
    # The reasons are a text card; the choice itself is shown as the preference, not twice.
    sections = view.sections(found, skip=["selectedConcept"])
    assert [c["key"] for s in sections for c in s["cards"]] == ["answer"]
    assert sections[0]["cards"][0]["title"] == "Why did you choose it?"


def test_a_concept_never_shown_at_a_position_says_so():
    content = demo("04-preference-image.json")
    rows = [row(1, {"selectedConcept": "concept-a"}, order=["concept-a", "concept-b", "concept-c"])]
    pref = view.preference(report(rows, preference_slots(content), content=content).preference)
    assert pref["order"][0]["cells"] == ["1 of 1 chosen (100%)", "Not shown", "Not shown", "1 of 1 (100%)"]


def test_no_votes_yet():
    content = demo("04-preference-image.json")
    pref = view.preference(report([], preference_slots(content), content=content).preference)
    assert pref["summary"] == "No votes yet." and pref["answered"] == "No votes yet"
    assert pref["concepts"][0]["share"] == "—" and pref["concepts"][0]["ci"] == ""
    assert pref["order"][0]["cells"][-1] == "0 of 0"


def test_area_boxes_in_css_percent_with_how_many_answered():
    boxes = view.area_boxes(
        [AreaResult(1, (5, 4, 95, 31), 2, ["lp-hero"]), AreaResult(2, (96, 61, 4.5, 38.25), 0, [])], 3
    )
    assert boxes[0] == {
        "number": "1",
        "left": "5%",
        "top": "4%",
        "width": "90%",
        "height": "27%",
        "answered": "2 of 3 answered",
        "label": "Area 1: 2 of 3 answered",
    }
    assert (boxes[1]["left"], boxes[1]["top"], boxes[1]["width"], boxes[1]["height"]) == (
        "4.5%",
        "38.25%",
        "91.5%",
        "22.75%",
    )
    assert view.areas_summary(boxes) == "Area 1: 2 of 3 answered; Area 2: 0 of 3 answered."
    assert view.css_pct(120) == "100%" and view.css_pct(-3) == "0%"


def test_highlight_questions_are_grouped_by_their_area():
    questions = [
        {"key": "first", "type": "long-text", "text": "First impression?"},
        {"key": "hero", "type": "long-text", "text": "The headline?"},
        {"key": "cta", "type": "single-choice", "text": "Sign up?", "options": [{"value": "y", "label": "Yes"}]},
        {"key": "after", "type": "rating", "text": "Clear?", "scales": [{"value": 1, "label": "1"}]},
    ]
    places = [("first-impression", 0, None), ("highlight-1", 0, 0), ("highlight-2", 0, 2), ("post-test", 0, None)]
    answers = {
        "highlight-1": [{"type": "long-text", "value": "Fast answers", "questionKey": "hero"}],
        "highlight-3": [{"type": "single-choice", "value": "y", "questionKey": "cta"}],
    }
    found = report([row(1, answers)], slots(questions, places))
    grouped = view.sections(found)
    assert [(s["title"], s["id"], [c["key"] for c in s["cards"]]) for s in grouped] == [
        ("", "results-questions-1", ["first"]),
        ("Area 1", "results-area-1-questions", ["hero"]),
        ("Area 3", "results-area-3-questions", ["cta"]),
        ("", "results-questions-4", ["after"]),
    ]


def test_a_long_label_is_cut_on_the_chart_only():
    label = "Which of these forty-something characters fits beside a bar?"
    assert view.short(label) == "Which of these forty-something characte…"
    assert len(view.short(label)) == view.SHORT_LABEL
    assert view.short("  two   spaces ") == "two spaces"


def test_card_ids_are_safe_and_unique():
    odd = [Slot("a b", "A", {}), Slot("a-b", "B", {}), Slot("", "C", {})]
    assert view._ids(odd) == {"a b": "results-q-a-b", "a-b": "results-q-a-b-1", "": "results-q-2"}


@dataclass
class Funnel:
    invited: int = 12
    started: int = 5
    submitted: int = 4
    approved: int = 1


@dataclass
class FakeResults:
    report: object
    filters: Filters = field(default_factory=Filters)
    name: str = "Demo"
    funnel: Funnel = field(default_factory=Funnel)
    versions: list[int] = field(default_factory=lambda: [2, 1])
    is_preference: bool = False
    screenshot: str = ""
    excluded_left_out: int = 1


def test_the_whole_page(survey_report):
    page = view.page(FakeResults(survey_report))  # type: ignore[arg-type]
    assert [(f["key"], f["label"], f["value"]) for f in page["funnel"]] == [
        ("invited", "Invited", "12"),
        ("started", "Started", "5"),
        ("submitted", "Submitted", "4"),
        ("approved", "Approved", "1"),
    ]
    assert (page["reviews"], page["left_out"]) == (
        "3 reviews in these results",
        "1 excluded or rejected review left out",
    )
    assert [(f["key"], f["label"], f["value"]) for f in page["timing"]] == [
        ("median", "Median", "6 min 00 s"),
        ("fastest", "Fastest quarter: at most", "4 min 00 s"),
        ("slowest", "Slowest quarter: at least", "8 min 00 s"),
    ]
    assert page["timing_summary"] == (
        "From 3 reviews: half took 6 min 00 s or less; the fastest quarter 4 min 00 s or less; "
        "the slowest quarter 8 min 00 s or more."
    )
    assert page["applied"] == "All reviews, excluded and rejected ones left out."
    assert page["options"]["version"] == [["2", "Version 2"], ["1", "Version 1"]]
    assert ["senior", "Senior"] in page["options"]["seniority"]
    assert ["small", "10-49 employees"] in page["options"]["company_size"]
    assert ["US", "United States"] in page["options"]["country"]
    assert page["preference"] is None and page["areas"] == []


def test_the_filters_in_words():
    chosen = Filters(
        seniority="middle", country="GB", company_size="small", version=2, since=date(2030, 3, 2), excluded=True
    )
    assert view.filters_text(chosen) == (
        "Seniority Middle · Country United Kingdom · Company size 10-49 employees · Version 2 · From 2030-03-02, "
        "excluded and rejected ones included."
    )
    assert view.reviews_line(4, 0, True) == ("4 reviews in these results", "Excluded and rejected reviews included")
    assert view.reviews_line(1, 0, False) == ("1 review in these results", "")
