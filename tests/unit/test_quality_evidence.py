"""A review's evidence read from what a Review row stores (issue 36): answers, signals, the version's questions."""

from __future__ import annotations

from portal.domain.quality.evidence import Evidence, Grid, History, TextAnswer, evidence_of
from portal.domain.quality.medians import TOTAL, medians

QUESTIONS = [
    {"key": "why", "type": "long-text", "text": "Why did you pick it?"},
    {"key": "free", "type": "long-text", "text": "Anything else?", "isLimited": False},
    {"key": "title", "type": "short-text", "text": "Your job title"},
    {
        "key": "grid",
        "type": "matrix",
        "text": "Agree?",
        "statements": [{"value": s, "label": s} for s in ("a", "b", "c")],
        "answers": [{"value": v, "label": v} for v in ("no", "yes")],
    },
    {"key": "r1", "type": "rating", "text": "Ease", "scales": [{"value": 1}, {"value": 2}]},
    {"key": "r2", "type": "rating", "text": "Price", "scales": [{"value": 1}, {"value": 2}]},
]
PASTE = {"wasPasted": True, "pasteTimestamp": "2026-11-26T10:00:00Z", "pastedLength": 12}


def test_a_survey_review_is_read_with_its_signals():
    answers = {
        "why": {"type": "long-text", "value": "Because it is fast", "pasteMetadata": PASTE},
        "free": {"type": "long-text", "value": "No"},
        "title": {"type": "short-text", "value": "CTO"},
        "grid": {"type": "matrix", "value": {"c": ["yes"], "a": ["no"], "b": ["yes"]}},
        "r1": {"type": "rating", "value": 2},
        "r2": {"type": "rating", "value": 1},
    }
    signals = {"typing:why": 14.5, "leaves:why": 2, "away:why": 40, "question:grid": 9, "precheck:page": 3}
    found = evidence_of(7, answers, signals, QUESTIONS, seconds=300, history=History(rejected=1))
    why, free, title = found.texts
    assert why == TextAnswer("why", "Why did you pick it?", "Because it is fast", 12, 14.5, 2, 40.0, 15)
    assert free.min_words is None and free.typing is None and free.leaves is None and free.away is None
    assert title.text == "CTO" and title.min_words is None
    assert found.grids == (
        Grid("grid", "Agree?", ("no", "yes", "yes"), seconds=9.0),  # in the question's order of statements
        Grid("ratings", "2 rating questions", ("2", "1"), ratings=True),
    )
    assert found.questions == {"question:grid": 9.0}  # only time on questions and blocks
    assert found.seconds == 300 and found.history.rejected == 1


def test_missing_or_broken_signals_are_not_measured_never_zero():
    answers = {"why": {"type": "long-text", "value": "text"}}
    for signals in ({}, {"typing:why": "12"}, {"typing:why": True}, {"typing:why": -3}, {"typing:why": float("nan")}):
        (answer,) = evidence_of(1, answers, signals, QUESTIONS, seconds=None).texts
        assert answer.typing is None and answer.leaves is None and answer.away is None


def test_a_paste_without_its_length_or_not_pasted_counts_no_characters():
    for meta in ({"wasPasted": False, "pastedLength": 40}, {"wasPasted": True}, "x", None):
        answers = {"why": {"type": "long-text", "value": "text", "pasteMetadata": meta}}
        assert evidence_of(1, answers, {}, QUESTIONS, seconds=1).texts[0].pasted == 0


def test_a_highlight_review_reads_its_blocks_with_block_keys_for_the_signals():
    questions = [{"key": "q1", "type": "long-text", "text": "First impression?"}]
    answers = {"first-impression": [{"questionKey": "q1", "type": "long-text", "value": "Looks fine"}]}
    signals = {"typing:first-impression.q1": 20, "block:first-impression": 65}
    found = evidence_of(3, answers, signals, questions, seconds=100)
    assert [(a.key, a.question, a.typing) for a in found.texts] == [("first-impression.q1", "First impression?", 20.0)]
    assert found.questions == {"block:first-impression": 65.0}


def test_a_preference_review_reads_its_reason():
    answers = {"selectedConcept": "a", "answer": "I like the colours a lot", "pasteMetadata": PASTE}
    found = evidence_of(4, answers, {"typing:answer": 5}, [], seconds=50, follow_up="Why did you choose concept A?")
    assert [(a.key, a.question, a.pasted, a.typing, a.min_words) for a in found.texts] == [
        ("answer", "Why did you choose concept A?", 12, 5.0, 15)
    ]
    assert evidence_of(4, {"selectedConcept": "a"}, {}, [], seconds=50).texts == ()
    unlimited = {"selectedConcept": "a", "answer": "Colours", "isLimited": False}
    assert evidence_of(4, unlimited, {}, [], seconds=50).texts[0].min_words is None


def test_answers_of_unknown_questions_and_multiple_answer_matrices_are_left_out():
    questions = [{**QUESTIONS[3], "allowMultipleAnswers": True}]
    answers = {"gone": {"value": "an old question"}, "grid": {"value": {"a": ["no", "yes"]}}}
    found = evidence_of(1, answers, {}, questions, seconds=1)
    assert found.texts == () and found.grids == ()


def test_a_median_counts_from_five_reviews():
    four = [Evidence(i, 100.0 * i, {"question:grid": 10.0}) for i in range(1, 5)]
    assert medians(four) == {}
    five = [*four, Evidence(5, None, {"question:grid": 30.0})]  # no total time: not counted for it
    found = medians(five)
    assert TOTAL not in found and found["question:grid"].value == 10.0 and found["question:grid"].reviews == 5
    six = [*five, Evidence(6, 600.0)]
    assert medians(six)[TOTAL].value == 300.0 and medians(six)[TOTAL].reviews == 5
