"""The survey kind: one question at a time, with branching (test-taking spec sections 2, 4, 5).

The submission's answers are keyed by question key; errors are 'answers.<questionKey>'.
"""

from __future__ import annotations

from typing import Any

from portal.domain.definition_checks import Checker
from portal.domain.question_definition import check_questions, count_answerable
from portal.domain.taking import survey_branching
from portal.domain.taking.kinds.base import SURVEY_VIEW, Content, Kind
from portal.domain.taking.survey_answers import field_errors

PRODUCT_TYPES = frozenset(
    {
        "survey",
        "single-question-survey",
        "icp-pulse-brand-survey",
        "icp-pulse-cbi",
        "category-buyer-insights",
        "market-research",
    }
)


def read(
    ck: Checker, doc: dict[str, Any], *, product_type: str, seen_keys: dict[str, str], columns: dict[str, Any]
) -> None:
    if doc.get("survey") is None:
        ck.add("survey", "is required for a survey test (with questions)")
        return
    survey = ck.obj(doc["survey"], "survey", ("welcomePage", "thankYouPage", "questions")) or {}
    welcome = ck.optional_obj(survey, "welcomePage", "survey", ("title", "description", "buttonLabel"))
    ck.texts(welcome, "survey.welcomePage", ("title", "description", "buttonLabel"))
    thanks = ck.optional_obj(survey, "thankYouPage", "survey", ("title", "description"))
    ck.texts(thanks, "survey.thankYouPage", ("title", "description"))
    questions = ck.array(survey, "questions", "survey", min_items=1, what="questions")
    check_questions(ck, questions, "survey.questions", branching=True, seen_keys=seen_keys)
    if product_type == "single-question-survey" and questions and count_answerable(questions) != 1:
        ck.add("survey.questions", "a single-question survey needs exactly 1 question to answer")
    columns["survey"] = dict(survey)


def questions(content: Content) -> list[dict[str, Any]]:
    survey = content.get("survey")
    found = survey.get("questions") if isinstance(survey, dict) else None
    return [q for q in found if isinstance(q, dict)] if isinstance(found, list) else []


def _conditional(content: Content) -> bool:
    return content.get("isSurveysConditionalEnabled", True) is not False


def validate(content: Content, answers: Any) -> dict[str, str]:
    if not isinstance(answers, dict):
        return {"answers": survey_branching.UNKNOWN_QUESTION}
    return field_errors(survey_branching.validate_submission(questions(content), answers, _conditional(content)))


def stored(content: Content, answers: Any) -> dict[str, Any]:
    return survey_branching.answers_for_submission(questions(content), answers, _conditional(content))


KIND = Kind(
    name="survey",
    view=SURVEY_VIEW,
    review_kind="survey",
    fields=("survey",),
    read=read,
    questions=questions,
    validate=validate,
    stored=stored,
    product_types=tuple(sorted(PRODUCT_TYPES)),
    store_suffix="-survey-answers",
)
