"""bench/survey_flow.py (survey_load.py, scale_load.py) answers the demo survey's 'decider' route with answers the
rules accept."""

from __future__ import annotations

from bench.survey_flow import DECIDER_ROUTE, answer_objects, bench_survey_definition
from portal.domain.taking import survey_branching as branching
from portal.domain.taking.survey_answers import validate_answer


def test_the_bench_copy_has_no_participant_or_seniority_limits():
    data = bench_survey_definition()
    assert "participantLimit" not in data and "seniorityLimits" not in data
    assert data["name"] != "Demo: Survey - How teams buy analytics software"


def test_every_bench_answer_is_valid_and_the_route_reaches_the_end():
    questions = bench_survey_definition()["survey"]["questions"]
    by_key = {q["key"]: q for q in questions}
    answers = answer_objects()
    for key, answer in answers.items():
        assert validate_answer(by_key[key], answer) is None, key
    path, reaches_end = branching.route(questions, answers, True)
    assert reaches_end
    assert [questions[i]["key"] for i in path] == [key for key, _ in DECIDER_ROUTE]
    assert branching.validate_submission(questions, answers, True) == {}
