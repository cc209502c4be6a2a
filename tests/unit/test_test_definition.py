"""The test definition format: valid examples of every kind pass, bad inputs name the field at fault."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from portal.domain.definition import (
    TestDefinitionError,
    kind_of,
    parse_test_definition,
    review_kind,
    validate_test_definition,
)

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "portal" / "data" / "demo_tests"


def demo(name: str) -> dict[str, Any]:
    return json.loads((DEMO / name).read_text())


SURVEY = "01-survey.json"
LANDING = "02-landing-page.json"
PRICING = "03-pricing.json"
IMAGE_PREF = "04-preference-image.json"
TEXT_PREF = "05-preference-text.json"
VIDEO = "06-video.json"
SCREENER = "07-screener.json"


@pytest.mark.parametrize("path", sorted(DEMO.glob("*.json")), ids=lambda p: p.name)
def test_every_demo_definition_is_valid(path: Path) -> None:
    assert validate_test_definition(json.loads(path.read_text())) == []


def test_demo_definitions_cover_every_kind() -> None:
    kinds = {parse_test_definition(json.loads(p.read_text())).kind for p in DEMO.glob("*.json")}
    assert kinds == {"survey", "highlight", "pricing", "preference", "video"}


def test_every_json_example_in_the_format_doc_is_valid() -> None:
    text = (ROOT / "docs" / "test-format.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    kinds = set()
    for block in blocks:
        definition = parse_test_definition(json.loads(block))
        kinds.add((definition.kind, definition.columns["preference_test"].get("preferenceType")))
    assert kinds >= {
        ("survey", None),
        ("highlight", None),
        ("pricing", None),
        ("preference", "image"),
        ("preference", "text"),
        ("video", None),
    }


def test_demo_survey_uses_every_question_type_and_both_branch_kinds() -> None:
    from portal.domain.reference_data import QUESTION_TYPES

    questions = demo(SURVEY)["survey"]["questions"]
    assert {q["type"] for q in questions} == set(QUESTION_TYPES)
    targets = {o.get("conditional") for q in questions for o in q.get("options", [])}
    assert 999 in targets and targets & {2, 3}


def test_columns_of_a_landing_page_test() -> None:
    definition = parse_test_definition(demo(LANDING))
    assert definition.kind == "highlight"
    columns = definition.columns
    assert columns["product_type"] == "landing-page"
    assert columns["screenshot_url"] == "/demo/landing.png"
    assert columns["session_seconds"] == 900
    assert len(columns["selected_areas"]) == 3
    assert set(columns["questions"]) == {"first-impression", "post-test"}
    assert columns["survey"] == {} and columns["preference_test"] == {}


def test_defaults_for_a_minimal_survey() -> None:
    definition = parse_test_definition(
        {
            "name": "  Minimal  ",
            "productType": "survey",
            "survey": {"questions": [{"key": "q", "type": "short-text", "text": "Your job?"}]},
        }
    )
    c = definition.columns
    assert (c["name"], c["status"], c["panel"], c["audience_country"]) == ("Minimal", "draft", "b2b", "US")
    assert (c["session_seconds"], c["payout_cents"], c["is_surveys_conditional_enabled"]) == (3600, 2000, True)
    assert c["screener_question"] is None and definition.qualifications == []


def test_video_and_pricing_columns() -> None:
    assert parse_test_definition(demo(VIDEO)).columns["video_recorder_url"] == "https://recorder.example.com/record"
    pricing = parse_test_definition(demo(PRICING)).columns
    assert pricing["pricing_screenshot_url"] == "/demo/pricing.png"
    assert pricing["pricing_url"] == "https://acme-analytics.example.com/pricing"


def test_kinds_of_product_types() -> None:
    assert kind_of("icp-pulse-brand-survey") == "survey"
    assert kind_of("full-page") == "highlight"
    assert review_kind("pricing-test") == "highlight"
    assert review_kind("preference-test") == "preference"


def test_matrix_screener_is_accepted_with_a_correct_cell_per_row() -> None:
    data = demo(SCREENER)
    data["screenerQuestion"] = {
        "type": "matrix",
        "question": "How often do you use these?",
        "rows": ["ERP", "CRM"],
        "columns": ["Never", "Monthly", "Daily"],
        "allowMultiple": True,
        "correctMatrix": [[1, 2], [2]],
    }
    assert validate_test_definition(data) == []


# --- invalid inputs -------------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], Any]


def _q(data: dict[str, Any], index: int) -> dict[str, Any]:
    return data["survey"]["questions"][index]


def _set(mapping: dict[str, Any], key: str, value: Any) -> None:
    mapping[key] = value


INVALID: list[tuple[str, str, Mutation, str]] = [
    ("missing name", SURVEY, lambda d: d.pop("name"), "name: is required"),
    ("unknown product type", SURVEY, lambda d: _set(d, "productType", "quiz"), "productType: must be one of"),
    (
        "bad country",
        SURVEY,
        lambda d: _set(d, "audienceCountry", "USA"),
        "audienceCountry: must be an ISO 3166 alpha-2",
    ),
    (
        "bad session length",
        SURVEY,
        lambda d: _set(d, "sessionSeconds", 600),
        "sessionSeconds: must be one of 3600, 900, 300",
    ),
    ("negative payout", SURVEY, lambda d: _set(d, "payoutCents", -5), "payoutCents: The payout cannot be negative."),
    (
        "payout over $1,000",
        SURVEY,
        lambda d: _set(d, "payoutCents", 200_000),
        "payoutCents: The payout can be at most $1,000.",
    ),
    ("payout not cents", SURVEY, lambda d: _set(d, "payoutCents", 20.5), "payoutCents: The payout must be whole cents"),
    (
        "unknown exclusion window",
        SURVEY,
        lambda d: _set(d, "exclusionDays", 45),
        "exclusionDays: must be one of -1, 0, 30, 60, 90, got 45",
    ),
    (
        "unknown seniority",
        SURVEY,
        lambda d: _set(d, "seniorityLimits", {"intern": 3}),
        "seniorityLimits.intern: unknown field",
    ),
    (
        "single choice with one option",
        SURVEY,
        lambda d: _q(d, 0)["options"].pop() and _q(d, 0)["options"].pop(),
        "survey.questions[0].options: a single-choice question needs at least 2 options",
    ),
    (
        "duplicate key",
        SURVEY,
        lambda d: _set(_q(d, 1), "key", "involvement"),
        "survey.questions[1].key: duplicate question key 'involvement'",
    ),
    (
        "branch to a missing page",
        SURVEY,
        lambda d: _set(_q(d, 0)["options"][0], "conditional", 7),
        "survey.questions[0].options[0].conditional: branch target page 7 does not exist",
    ),
    (
        "branch backwards",
        SURVEY,
        lambda d: (
            _set(_q(d, 1), "withConditional", False),
            _set(_q(d, 4), "type", "single-choice"),
            _set(_q(d, 4), "withConditional", True),
            _set(_q(d, 4)["options"][0], "conditional", 2),
        ),
        "survey.questions[4].options[0].conditional: branch target page 2 must come after the question's page 3",
    ),
    (
        "branch without withConditional",
        SURVEY,
        lambda d: _set(_q(d, 0), "withConditional", False),
        "survey.questions[0].options[0].conditional: set withConditional: true",
    ),
    (
        "branch from a multi-choice",
        SURVEY,
        lambda d: _set(_q(d, 1)["options"][0], "conditional", 3),
        "survey.questions[1].options[0].conditional: only single-choice questions can branch",
    ),
    (
        "choice limit min above max",
        SURVEY,
        lambda d: _set(_q(d, 1), "choiceLimits", {"min": {"value": 3}, "max": {"value": 1}}),
        "survey.questions[1].choiceLimits: min (3) must not exceed max (1)",
    ),
    (
        "choice limit above the options",
        SURVEY,
        lambda d: _set(_q(d, 1), "choiceLimits", {"max": {"value": 9}}),
        "survey.questions[1].choiceLimits.max.value: must be at most 5",
    ),
    (
        "rating with one scale point",
        SURVEY,
        lambda d: _set(_q(d, 5), "scales", [{"value": 1, "label": "1"}]),
        "survey.questions[5].scales: a rating question needs at least 2 scale points",
    ),
    (
        "rating scale value not a number",
        SURVEY,
        lambda d: _set(_q(d, 5)["scales"][0], "value", "one"),
        "survey.questions[5].scales[0].value: must be a number",
    ),
    (
        "matrix without statements",
        SURVEY,
        lambda d: _set(_q(d, 6), "statements", []),
        "survey.questions[6].statements: a matrix question needs at least 1 statement",
    ),
    (
        "typo in a field name",
        SURVEY,
        lambda d: _set(_q(d, 10), "isRequird", True),
        "survey.questions[10].isRequird: unknown field",
    ),
    (
        "options on a short text",
        SURVEY,
        lambda d: _set(_q(d, 10), "options", [{"value": "a", "label": "A"}]),
        "survey.questions[10].options: does not apply to a short-text question",
    ),
    (
        "required description",
        SURVEY,
        lambda d: _set(_q(d, 7), "isRequired", True),
        "survey.questions[7].isRequired: a description has no answer",
    ),
    (
        "unknown question type",
        SURVEY,
        lambda d: _set(_q(d, 10), "type", "slider"),
        "survey.questions[10].type: must be one of",
    ),
    ("missing question text", SURVEY, lambda d: _q(d, 10).pop("text"), "survey.questions[10].text: is required"),
    (
        "pages going down",
        SURVEY,
        lambda d: _set(_q(d, 4), "page", 1),
        "survey.questions[4].page: page 1 comes after page 2",
    ),
    (
        "duplicate option values",
        SURVEY,
        lambda d: _set(_q(d, 4)["options"][1], "value", "price"),
        "survey.questions[4].options[1].value: duplicate value 'price'",
    ),
    (
        "survey without questions",
        SURVEY,
        lambda d: _set(d["survey"], "questions", []),
        "survey.questions: needs at least 1 question",
    ),
    (
        "bad embedded link",
        SURVEY,
        lambda d: _set(_q(d, 7), "embeddedLink", "javascript:alert(1)"),
        "survey.questions[7].embeddedLink: must be an http(s) URL",
    ),
    ("landing page without screenshot", LANDING, lambda d: d.pop("screenshotUrl"), "screenshotUrl: is required"),
    (
        "area outside the page",
        LANDING,
        lambda d: _set(d["selectedAreas"][0], "to", [95, 130]),
        "selectedAreas[0].to: coordinates must be between 0 and 100 percent",
    ),
    (
        "area corners swapped",
        LANDING,
        lambda d: _set(d["selectedAreas"][1], "from", [96, 61]),
        "selectedAreas[1]: 'from' must be the top-left",
    ),
    (
        "area without questions",
        LANDING,
        lambda d: _set(d["selectedAreas"][2], "questions", []),
        "selectedAreas[2].questions: needs at least 1 question",
    ),
    (
        "page numbers in a highlight question",
        LANDING,
        lambda d: _set(d["questions"]["post-test"][0], "page", 2),
        "questions.post-test[0].page: pages are only used by survey questions",
    ),
    (
        "unknown highlight block",
        LANDING,
        lambda d: _set(d["questions"], "middle", []),
        "questions.middle: unknown field",
    ),
    (
        "survey on a landing page",
        LANDING,
        lambda d: _set(d, "survey", {"questions": []}),
        "survey: does not apply to a landing-page test",
    ),
    ("pricing without pricing page", PRICING, lambda d: d.pop("pricingUrl"), "pricingUrl: is required"),
    (
        "one image",
        IMAGE_PREF,
        lambda d: d["preferenceTest"]["images"].__delitem__(slice(1, None)),
        "preferenceTest.images: needs at least 2 images",
    ),
    (
        "duplicate image keys",
        IMAGE_PREF,
        lambda d: _set(d["preferenceTest"]["images"][2], "key", "concept-a"),
        "preferenceTest.images[2].key: duplicate image key 'concept-a'",
    ),
    (
        "bad preference type",
        IMAGE_PREF,
        lambda d: _set(d["preferenceTest"], "preferenceType", "video"),
        "preferenceTest.preferenceType: must be one of image, text",
    ),
    (
        "text preference missing an option",
        TEXT_PREF,
        lambda d: d["preferenceTest"]["textOptions"].pop("optionThree"),
        "preferenceTest.textOptions.optionThree: is required",
    ),
    ("video without recorder", VIDEO, lambda d: _set(d, "videoTest", {}), "videoTest.recorderUrl: is required"),
    (
        "video recorder not http",
        VIDEO,
        lambda d: _set(d["videoTest"], "recorderUrl", "ftp://x.example/rec"),
        "videoTest.recorderUrl: must be an http(s) URL",
    ),
    (
        "screener without a correct answer",
        SCREENER,
        lambda d: [_set(a, "isCorrect", False) for a in d["screenerQuestion"]["answers"]],
        "screenerQuestion.answers: at least one answer must be marked isCorrect: true",
    ),
    (
        "matrix screener column out of range",
        SCREENER,
        lambda d: _set(
            d,
            "screenerQuestion",
            {"type": "matrix", "question": "Q", "rows": ["A"], "columns": ["x", "y"], "correctMatrix": [[5]]},
        ),
        "screenerQuestion.correctMatrix[0]: column index 5 is out of range (0-1)",
    ),
    (
        "qualification not a name",
        SCREENER,
        lambda d: _set(d, "qualifications", ["ok", 7]),
        "qualifications[1]: must be a qualification name",
    ),
    (
        "single-question survey with two",
        "09-single-question.json",
        lambda d: d["survey"]["questions"].append({"key": "x", "type": "short-text", "text": "More?"}),
        "survey.questions: a single-question survey needs exactly 1 question",
    ),
]


@pytest.mark.parametrize(("case", "base", "mutate", "expected"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_definition_is_rejected_naming_the_field(case: str, base: str, mutate: Mutation, expected: str) -> None:
    data = copy.deepcopy(demo(base))
    mutate(data)
    messages = [str(e) for e in validate_test_definition(data)]
    assert any(m.startswith(expected) for m in messages), f"{case}: {messages}"
    with pytest.raises(TestDefinitionError) as raised:
        parse_test_definition(data)
    assert expected in raised.value.message


def test_a_definition_must_be_an_object() -> None:
    with pytest.raises(TestDefinitionError) as raised:
        parse_test_definition([{"name": "x"}])
    assert raised.value.message == "a test definition must be a JSON object"


def test_error_message_lists_every_problem() -> None:
    data = demo(VIDEO)
    data["sessionSeconds"] = 1
    data["videoTest"] = {"recorderUrl": "nope"}
    with pytest.raises(TestDefinitionError) as raised:
        parse_test_definition(data)
    message = raised.value.message
    assert message.startswith("2 problems in the test definition:")
    assert "  - sessionSeconds: must be one of 3600, 900, 300, got 1" in message
    assert "  - videoTest.recorderUrl: must be an http(s) URL" in message
