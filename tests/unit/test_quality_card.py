"""A review's evidence card (portal/domain/quality/card.py) and the test's medians it is read beside
(portal/domain/quality/medians.py, of_signals): what staff read on each line, with the edge cases."""

from __future__ import annotations

import math

import pytest

from portal.domain.quality import card
from portal.domain.quality.card import NONE, Line
from portal.domain.quality.evidence import TextAnswer
from portal.domain.quality.medians import MIN_REVIEWS, TOTAL, of_signals

QUESTION = "Tell us about the last time your team bought an analytics tool, from start to finish."
SHORT = "Why did you choose it?"


def read(
    signals: dict[str, object],
    seconds: float | None = None,
    texts: tuple[TextAnswer, ...] = (),
    titles: dict[str, str] | None = None,
    medians: dict[str, float] | None = None,
) -> dict[str, tuple[str, str]]:
    """The card as staff read it: label -> (this review's value, the test's median)."""
    found = card.lines(signals, seconds, texts, titles or {}, medians or {})
    shown = {line.label: (line.value, line.median) for line in found}
    assert len(shown) == len(found), "two lines with the same label"
    return shown


# --- card.lines ---------------------------------------------------------------------------------------------


def test_no_signals_no_seconds_no_texts_is_an_empty_card():
    assert card.lines({}, None, (), {}, {}) == []


def test_only_the_whole_tests_time_without_signals():
    assert card.lines({}, 550.0, (), {}, {TOTAL: 600.0}) == [Line("Time on the whole test", "9 min 10 s", "10 min")]


def test_the_whole_tests_time_without_a_median_shows_a_dash():
    assert card.lines({}, 43.0, (), {}, {}) == [Line("Time on the whole test", "43 s", NONE)]
    assert NONE == "—"


def test_unknown_kinds_names_without_a_part_and_non_numbers_are_left_out():
    signals = {
        "mouse:moves": 40,  # not a kind of the card
        "question": 12,  # no part
        "question:": 12,  # an empty part
        "nocolon": 3,
        "question:a": "12",  # a string
        "question:b": None,
        "question:c": [1],
        "question:d": {"s": 1},
        "question:e": True,  # a bool is not a number
        "typing:f": False,
        "question:g": math.nan,
    }
    assert card.lines(signals, None, (), {}, {}) == []


def test_a_bool_or_nan_among_good_signals_drops_only_that_line():
    shown = read({"question:a": 61, "question:b": True, "question:c": float("nan")}, titles={"a": "A"})
    assert shown == {"Time on 'A'": ("1 min 1 s", NONE)}


def test_negative_and_infinite_values_are_not_shown():
    # A stored signal is never negative (portal/domain/taking/signals.py); the card does not show '-1 h 59 min'
    # for one that is, nor fail on an infinite one.
    shown = read(
        {"question:a": -5, "scroll:page": -10.0, "leaves:a": -1, "away:a": math.inf, "question:b": 30},
        titles={"a": "A", "b": "B"},
    )
    assert shown == {"Time on 'B'": ("30 s", NONE)}


def test_a_median_shows_in_the_signals_own_words_and_a_missing_one_as_a_dash():
    shown = read(
        {"question:why": 130, "typing:why": 95.4, "leaves:why": 1, "away:why": 3725},
        titles={"why": SHORT},
        medians={"question:why": 120.0, "leaves:why": 0.0, "away:why": 0.0},
    )
    assert shown == {
        f"Time on '{SHORT}'": ("2 min 10 s", "2 min"),
        f"Typing time of '{SHORT}'": ("1 min 35 s", NONE),
        f"Left the tab or window while answering '{SHORT}'": ("once", "0 times"),
        f"Time away from the tab while answering '{SHORT}'": ("1 h 2 min", "0 s"),
    }


def test_leaving_counts_read_as_times():
    shown = read({"leaves:x": 3}, titles={"x": "X"}, medians={"leaves:x": 1.0})
    assert shown == {"Left the tab or window while answering 'X'": ("3 times", "once")}


def test_the_lines_follow_the_card_order_not_the_stored_order():
    signals = {
        "away:q": 5,
        "leaves:q": 1,
        "typing:q": 20,
        "block:first-impression": 12,
        "question:q": 30,
        "step:choose": 4,
        "scroll:page": 80,
        "precheck:page": 19,
    }
    labels = [line.label for line in card.lines(signals, 100.0, (), {"q": "Q"}, {})]
    assert labels == [
        "Time on the whole test",
        "Time looking at the page before the questions",
        "How far down the page was scrolled",
        "Time choosing a concept",
        "Time on 'Q'",
        "Time on area first-impression",
        "Typing time of 'Q'",
        "Left the tab or window while answering 'Q'",
        "Time away from the tab while answering 'Q'",
    ]


def test_precheck_and_scroll_name_the_page_or_the_home_page():
    shown = read(
        {"precheck:page": 19, "precheck:home": 75, "scroll:page": 87.4, "scroll:home": 100, "precheck:pricing": 3},
        medians={"precheck:page": 40.0, "scroll:page": 50.0},
    )
    assert shown == {
        "Time looking at the page before the questions": ("19 s", "40 s"),
        "Time looking at the home page before the questions": ("1 min 15 s", NONE),
        "Time looking at pricing before the questions": ("3 s", NONE),
        "How far down the page was scrolled": ("87%", "50%"),
        "How far down the home page was scrolled": ("100%", NONE),
    }


def test_scroll_percent_is_rounded_to_a_whole_percent():
    assert read({"scroll:page": 0})["How far down the page was scrolled"] == ("0%", NONE)
    assert read({"scroll:page": 33.3})["How far down the page was scrolled"] == ("33%", NONE)
    assert read({"scroll:page": 99.7})["How far down the page was scrolled"] == ("100%", NONE)


def test_preference_steps_read_as_the_concept_choice_and_the_follow_up():
    shown = read({"step:choose": 14, "step:answer": 65, "step:other": 2}, medians={"step:choose": 20.0})
    assert shown == {
        "Time choosing a concept": ("14 s", "20 s"),
        "Time on the follow-up answer": ("1 min 5 s", NONE),
        "Time on step other": ("2 s", NONE),
    }


def test_a_highlight_answers_key_finds_its_question_title():
    # A highlight test's keys are '<block key>.<questionKey>': the title is found by the whole key, or else by the
    # question's key.
    shown = read(
        {"typing:highlight-1.why": 40, "leaves:highlight-2.why": 2, "question:first-impression.seen": 9},
        titles={"highlight-1.why": "What would you change here?", "why": SHORT, "seen": "What did you see first?"},
    )
    assert shown == {
        "Time on 'What did you see first?'": ("9 s", NONE),
        "Typing time of 'What would you change here?'": ("40 s", NONE),
        f"Left the tab or window while answering '{SHORT}'": ("2 times", NONE),
    }


def test_a_key_without_a_title_is_named_as_a_question():
    shown = read({"typing:highlight-3.q9": 40, "question:7": 12})
    assert shown == {"Typing time of question highlight-3.q9": ("40 s", NONE), "Time on question 7": ("12 s", NONE)}


def test_a_block_reads_as_its_area_key():
    shown = read({"block:highlight-2": 95}, titles={"highlight-2": "Pricing table"}, medians={"block:highlight-2": 60})
    assert shown == {"Time on area highlight-2": ("1 min 35 s", "1 min")}


def test_a_long_title_is_cut_with_an_ellipsis_and_spaces_are_folded():
    shown = read({"question:q": 110}, titles={"q": QUESTION})
    (label,) = shown
    assert label == "Time on 'Tell us about the last time your team bought an analytics t…'"
    assert read({"question:q": 1}, titles={"q": "  Two\n  lines  "}) == {"Time on 'Two lines'": ("1 s", NONE)}


def test_the_pasted_share_of_each_answer_something_was_pasted_into():
    texts = (
        TextAnswer("a", SHORT, "x" * 200, pasted=50),
        TextAnswer("b", QUESTION, "y" * 40, pasted=400),  # pasted more than kept: the whole answer, 100%
        TextAnswer("c", "Nothing pasted", "z" * 40),
        TextAnswer("d", "Pasted, then all deleted", "", pasted=12),
    )
    found = card.lines({}, None, texts, {}, {})
    assert found == [
        Line(f"Pasted into '{SHORT}'", "50 of 200 characters (25%)", NONE),
        Line(
            "Pasted into 'Tell us about the last time your team bought an analytics t…'",
            "40 of 40 characters (100%)",
            NONE,
        ),
    ]


def test_the_pasted_lines_come_after_the_signals():
    found = card.lines({"question:a": 5}, 60.0, (TextAnswer("a", "A", "abc", pasted=1),), {"a": "A"}, {})
    assert [line.label for line in found] == ["Time on the whole test", "Time on 'A'", "Pasted into 'A'"]
    assert found[-1].value == "1 of 3 characters (33%)"


def test_durations_read_in_hours_minutes_and_seconds():
    shown = read({"question:a": 0.4, "question:b": 60, "question:c": 3600, "question:d": 86400}, titles={})
    assert [value for value, _ in shown.values()] == ["0 s", "1 min", "1 h", "24 h"]


# --- medians.of_signals ----------------------------------------------------------------------------------------


def test_no_readings_no_medians():
    assert of_signals([]) == {}


def test_a_median_needs_min_reviews_that_measured_it():
    readings = [(float(100 + i), {"question:a": 10.0 + i}) for i in range(MIN_REVIEWS - 1)]
    assert of_signals(readings) == {}
    readings.append((200.0, {"question:a": 50.0}))
    assert of_signals(readings) == {TOTAL: 102.0, "question:a": 12.0}
    assert of_signals(readings[:2], minimum=2) == {TOTAL: 100.5, "question:a": 10.5}


def test_unknown_totals_and_negative_totals_are_not_counted():
    readings = [(None, {}), (-3.0, {}), (10.0, {}), (20.0, {}), (30.0, {}), (40.0, {}), (50.0, {})]
    assert of_signals(readings) == {TOTAL: 30.0}
    assert of_signals([(None, {})] * 10) == {}


def test_any_numeric_signal_gets_a_median_but_not_bools_nan_strings_or_negatives():
    bad: list[object] = [True, False, math.nan, "12", None, -1, [3]]
    readings = [(None, {"scroll:page": 50.0 + i, "x:y": bad[i % len(bad)]}) for i in range(7)]
    found = of_signals(readings)
    assert found == {"scroll:page": 53.0}


def test_a_signal_measured_by_too_few_of_many_reviews_has_no_median():
    readings = [(60.0, {"question:a": 1.0})] * 4 + [(60.0, {})] * 10
    assert of_signals(readings) == {TOTAL: 60.0}


def test_a_review_whose_typing_was_measured_and_that_never_left_counts_as_zero():
    # Five typed the answer; one of them left the tab twice: the median of leaving is 0, not 2.
    readings: list[tuple[float | None, dict[str, object]]] = [(None, {"typing:why": 30.0}) for _ in range(4)]
    readings.append((None, {"typing:why": 40.0, "leaves:why": 2, "away:why": 90.0}))
    found = of_signals(readings)
    assert found == {"typing:why": 30.0, "leaves:why": 0.0, "away:why": 0.0}


def test_a_review_without_typing_of_an_answer_does_not_count_for_its_leaving():
    # Only the ones that reported leaving measured it (no typing measured: not 'never left').
    readings: list[tuple[float | None, dict[str, object]]] = [
        (None, {"leaves:why": 2 + i, "away:why": 10.0 * (i + 1)}) for i in range(5)
    ]
    readings += [(None, {"question:why": 5.0})] * 5
    found = of_signals(readings)
    assert found == {"leaves:why": 4.0, "away:why": 30.0, "question:why": 5.0}


def test_the_zero_rule_is_per_answer_key():
    # Typing of 'a' measured: 'leaves:a' counts 0; 'leaves:b' is not invented from it.
    readings: list[tuple[float | None, dict[str, object]]] = [(None, {"typing:a": 10.0})] * 5
    found = of_signals(readings)
    assert found == {"typing:a": 10.0, "leaves:a": 0.0, "away:a": 0.0}
    assert "leaves:b" not in found


@pytest.mark.parametrize("bad", [math.inf, -math.inf])
def test_an_infinite_signal_gives_no_median(bad: float):
    readings: list[tuple[float | None, dict[str, object]]] = [(None, {"question:a": bad})] * 5
    assert of_signals(readings) == {}


def test_the_card_reads_of_signals_medians_beside_each_value():
    readings: list[tuple[float | None, dict[str, object]]] = [
        (600.0 + i, {"question:q": 120.0 + i, "typing:q": 90.0 + i, "scroll:page": 100.0}) for i in range(6)
    ]
    medians = of_signals(readings)
    shown = read(
        {"question:q": 20.0, "typing:q": 15.0, "leaves:q": 4, "scroll:page": 10.0}, 60.0, (), {"q": "Q"}, medians
    )
    assert shown == {
        "Time on the whole test": ("1 min", "10 min 2 s"),
        "How far down the page was scrolled": ("10%", "100%"),
        "Time on 'Q'": ("20 s", "2 min 2 s"),
        "Typing time of 'Q'": ("15 s", "1 min 32 s"),
        "Left the tab or window while answering 'Q'": ("4 times", "0 times"),
    }
