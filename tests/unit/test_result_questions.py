"""Each question type's summary of its answers (portal/domain/results/questions.py), by hand-counted examples."""

from __future__ import annotations

from portal.domain.reference_data import QUESTION_TYPES
from portal.domain.results.questions import OTHER, SHAPE_OF, summarize

OPTIONS = [{"value": "a", "label": "Alpha"}, {"value": "b", "label": "Beta"}, {"value": "c", "label": "Gamma"}]


def test_every_question_type_has_a_shape():
    assert set(SHAPE_OF) == set(QUESTION_TYPES)


def test_single_choice_shares_count_other_answers_apart_and_keep_unchosen_options():
    question = {"type": "single-choice", "options": OPTIONS, "withOtherOption": True}
    answers = [
        {"type": "single-choice", "value": "a"},
        {"type": "single-choice", "value": "a"},
        {"type": "single-choice", "value": "b"},
        {"type": "single-choice", "value": "my own", "isOther": True},
        {"type": "single-choice", "value": ""},  # not answered: left out
        None,
    ]
    found = summarize(question, answers)
    assert found.answered == 4
    assert [(s.key, s.count, s.share) for s in found.shares] == [
        ("a", 2, 0.5),
        ("b", 1, 0.25),
        ("c", 0, 0.0),
        (OTHER, 1, 0.25),
    ]
    assert found.labels[OTHER] == "Other" and found.labels["a"] == "Alpha"


def test_multi_choice_shares_are_of_the_people_who_answered():
    question = {"type": "multi-choice", "options": OPTIONS}
    answers = [{"value": ["a", "b"]}, {"value": ["a"]}, {"value": ["c", "a"]}, {"value": []}]
    found = summarize(question, answers)
    assert found.answered == 3
    assert [(s.key, s.count, round(s.share, 4)) for s in found.shares] == [
        ("a", 3, 1.0),
        ("b", 1, 0.3333),
        ("c", 1, 0.3333),
    ]


def test_a_multi_choice_other_counts_beside_the_options_and_alone():
    question = {"type": "multi-choice", "options": OPTIONS, "withOtherOption": True}
    answers = [
        {"value": ["a"], "isOther": True, "otherText": "Looker"},  # an option and 'Other'
        {"value": [], "isOther": True, "otherText": "Tableau"},  # 'Other' alone
        {"value": None, "isOther": True, "otherText": "Metabase"},
        {"value": ["b"], "isOther": True, "otherText": "  "},  # 'Other' ticked, nothing typed: not counted
        {"value": [], "isOther": False},  # not answered
    ]
    found = summarize(question, answers)
    assert found.answered == 4
    assert [(s.key, s.count, s.share) for s in found.shares] == [
        ("a", 1, 0.25),
        ("b", 1, 0.25),
        ("c", 0, 0.0),
        (OTHER, 3, 0.75),
    ]
    assert found.labels[OTHER] == "Other"


def test_rating_mean_and_distribution_over_its_scale():
    scale = [{"value": v, "label": str(v)} for v in range(1, 6)]
    found = summarize({"type": "rating", "scales": scale}, [{"value": 4}, {"value": 5}, {"value": 4}, {"value": None}])
    assert found.answered == 3 and round(found.mean, 4) == 4.3333
    assert [(s.key, s.count) for s in found.shares] == [("1", 0), ("2", 0), ("3", 0), ("4", 2), ("5", 1)]


def test_number_summary_ignores_what_is_not_a_number():
    found = summarize(
        {"type": "number"}, [{"value": 10}, {"value": 30}, {"value": 20}, {"value": "x"}, {"value": True}]
    )
    assert (found.answered, found.mean, found.median, found.low, found.high) == (3, 20.0, 20, 10, 30)


def test_rank_mean_position_per_option():
    found = summarize({"type": "rank", "options": OPTIONS}, [{"value": ["a", "b", "c"]}, {"value": ["b", "a", "c"]}])
    assert found.answered == 2 and found.positions == {"a": 1.5, "b": 1.5, "c": 3.0}


def test_matrix_table_counts_each_statement_and_answer():
    question = {
        "type": "matrix",
        "statements": [{"value": "s1", "label": "Fast"}, {"value": "s2", "label": "Cheap"}],
        "answers": [{"value": "no", "label": "Disagree"}, {"value": "yes", "label": "Agree"}],
    }
    answers = [{"value": {"s1": ["yes"], "s2": ["no"]}}, {"value": {"s1": ["yes"], "s2": ["yes"]}}]
    found = summarize(question, answers)
    assert found.answered == 2 and found.table == {"s1": {"no": 0, "yes": 2}, "s2": {"no": 1, "yes": 1}}


def test_text_answers_are_listed_with_their_word_counts_and_a_description_has_none():
    found = summarize({"type": "long-text"}, [{"value": "Clear pricing and a fast setup"}, {"value": "  "}])
    assert found.answered == 1 and found.texts == [("Clear pricing and a fast setup", 6)]  # blank: not an answer
    assert summarize({"type": "description"}, [{"value": "x"}]).answered == 0


def test_a_number_stored_as_text_counts_as_the_number() -> None:
    found = summarize({"type": "number"}, [{"value": "25000"}, {"value": 5000}, {"value": "lots"}, {"value": " 10 "}])
    assert (found.answered, found.low, found.high, found.median) == (3, 10, 25000, 5000)
