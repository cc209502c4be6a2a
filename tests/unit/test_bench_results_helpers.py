"""bench/results_page.py's helpers: the answers it fills the demo survey with are ones the rules accept, along the
survey's branches, and its check of the service's numbers against the bare SQL's finds a difference."""

from __future__ import annotations

import random

from bench.results_page import demo, differences, preference_answer, survey_answers
from portal.domain.taking import survey_branching as branching
from portal.domain.taking.survey_answers import validate_answer


def test_every_filled_survey_answer_is_valid_and_its_route_reaches_the_end():
    questions = demo("01-survey.json")["survey"]["questions"]
    by_key = {q["key"]: q for q in questions}
    rng = random.Random(7)
    for _ in range(300):
        answers = survey_answers(rng)
        for key, answer in answers.items():
            assert validate_answer(by_key[key], answer) is None, (key, answer)
        assert branching.validate_submission(questions, answers, True) == {}, answers


def test_a_preference_answer_chooses_one_of_the_concepts_shown_in_a_drawn_order():
    keys = ["concept-a", "concept-b", "concept-c"]
    answer, order = preference_answer(random.Random(3), keys)
    assert sorted(order) == keys and answer["selectedConcept"] in keys and answer["answer"]


def test_the_check_treats_a_zero_count_as_missing_and_names_what_differs():
    assert (
        differences({"reviews": 3, "q": {"a": 2, "b": 0, "mean": 1 / 3}}, {"reviews": 3, "q": {"a": 2, "mean": 1 / 3}})
        == []
    )
    assert differences({"q": {"a": 2, "other": 0}}, {"q": {"a": 2, "other": 1}}) == ["q.other: service 0, bare SQL 1"]
    assert differences({"m": 1.0}, {"m": None}) == ["m: service 1.0, bare SQL None"]
    assert differences({"o": {"1 a": (3, 1)}}, {"o": {"1 a": (3, 2)}}) == ["o.1 a: service (3, 1), bare SQL (3, 2)"]
