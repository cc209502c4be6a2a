"""The test builder's domain: the one list of question kinds, the pure edits of a definition document, the
video-link rule, and where each message of the definition checks is shown."""

from __future__ import annotations

import copy

import pytest

from portal.domain import video_links
from portal.domain.authoring import document as d
from portal.domain.authoring import question_kinds as qk
from portal.domain.authoring import view
from portal.domain.definition import parse_test_definition, validate_test_definition
from portal.domain.question_definition import TYPE_FIELDS
from portal.domain.reference_data import QUESTION_TYPES


def survey(*questions: dict) -> dict:
    return {"name": "Builder test", "productType": "survey", "survey": {"questions": list(questions)}}


def full_survey() -> dict:
    doc = survey()
    for i, qtype in enumerate(QUESTION_TYPES):
        doc = d.add_question(doc, "survey.questions", qtype)
        doc = d.set_field(doc, f"survey.questions[{i}].text", f"Question {qtype}")
    return doc


# --- question kinds ----------------------------------------------------------------------------------


def test_one_kind_per_question_type_with_the_imports_settings():
    assert [k.type for k in qk.KINDS] == list(QUESTION_TYPES)
    for kind in qk.KINDS:
        assert TYPE_FIELDS[kind.type] <= kind.settings
        assert kind.label and kind.hint
    assert qk.BY_TYPE["matrix"].has("statements") and not qk.BY_TYPE["rating"].has("options")
    assert not qk.BY_TYPE["description"].answered
    assert dict(qk.TYPE_OPTIONS)["rank"] == "Ranking"


@pytest.mark.parametrize("qtype", QUESTION_TYPES)
def test_a_new_question_of_every_kind_is_valid_once_it_has_text(qtype):
    question = qk.BY_TYPE[qtype].new_question("k1")
    question["text"] = "Something to ask"
    assert validate_test_definition(survey(question)) == []


def test_changing_the_type_keeps_what_both_kinds_have_and_drops_the_rest():
    q = {"key": "k", "type": "single-choice", "text": "T", "isRequired": True, "withConditional": True}
    q["options"] = [{"value": "a", "label": "A", "conditional": 999}, {"value": "b", "label": "B"}]
    multi = qk.with_type(q, "multi-choice")
    assert multi["options"] == [{"value": "a", "label": "A"}, {"value": "b", "label": "B"}]
    assert "withConditional" not in multi and multi["isRequired"] and multi["text"] == "T"
    rating = qk.with_type(q, "rating")
    assert "options" not in rating and len(rating["scales"]) == 5
    described = qk.with_type(q, "description")
    assert "isRequired" not in described
    assert validate_test_definition(survey(rating)) == []


# --- editing ------------------------------------------------------------------------------------------


def test_all_twelve_types_added_with_unique_keys_make_a_valid_survey():
    doc = full_survey()
    keys = [q["key"] for q in doc["survey"]["questions"]]
    assert len(set(keys)) == 12
    assert parse_test_definition(doc).kind == "survey"


def test_edits_return_a_new_document_and_never_change_the_argument():
    doc = full_survey()
    before = copy.deepcopy(doc)
    d.set_field(doc, "survey.questions[0].text", "Changed")
    d.add_question(doc, "survey.questions", "rank")
    d.remove_question(doc, "survey.questions", 0)
    d.move_question(doc, "survey.questions", 0, 1)
    d.add_item(doc, "survey.questions[0].options")
    assert doc == before


def test_keys_stay_unique_after_a_removal():
    doc = d.add_question(survey(), "survey.questions", "short-text")
    doc = d.add_question(doc, "survey.questions", "short-text")
    doc = d.remove_question(doc, "survey.questions", 0)
    doc = d.add_question(doc, "survey.questions", "short-text")
    keys = [q["key"] for q in doc["survey"]["questions"]]
    assert len(keys) == len(set(keys)) == 2


def test_keys_are_unique_across_blocks_and_areas():
    doc = {"productType": "landing-page", "selectedAreas": [{"questions": [{"key": "q-1"}]}]}
    doc = d.add_question(doc, "questions.first-impression", "long-text")
    doc = d.add_question(doc, "questions.post-test", "rating")
    assert doc["questions"]["first-impression"][0]["key"] == "q-2"
    assert doc["questions"]["post-test"][0]["key"] == "q-3"


def test_moving_questions_up_and_down_keeps_pages_in_order():
    doc = survey(
        {"key": "a", "type": "short-text", "text": "A", "page": 1},
        {"key": "b", "type": "short-text", "text": "B", "page": 2},
    )
    moved = d.move_question(doc, "survey.questions", 1, -1)
    assert [q["key"] for q in moved["survey"]["questions"]] == ["b", "a"]
    assert [q["page"] for q in moved["survey"]["questions"]] == [1, 1]
    assert d.move_question(doc, "survey.questions", 0, -1) == doc  # already first
    assert validate_test_definition(moved) == []


def test_a_new_survey_question_goes_on_the_page_of_the_one_before():
    doc = survey({"key": "a", "type": "short-text", "text": "A", "page": 3})
    assert d.add_question(doc, "survey.questions", "number")["survey"]["questions"][1]["page"] == 3


def test_set_field_spells_values_as_the_document_does():
    doc = full_survey()
    doc = d.set_field(doc, "survey.questions[1].withChoiceLimit", True)
    doc = d.set_field(doc, "survey.questions[1].choiceLimits.max.value", "2")
    doc = d.set_field(doc, "survey.questions[9].scales[0].value", "0.5")
    doc = d.set_field(doc, "survey.questions[0].images", "/a.png\n\n https://x.example/b.png ")
    doc = d.set_field(doc, "survey.questions[5].isLimited", False)
    doc = d.set_field(doc, "survey.questions[0].description", "")
    q = doc["survey"]["questions"]
    assert q[1]["choiceLimits"] == {"max": {"value": 2}}
    assert q[9]["scales"][0]["value"] == 0.5
    assert q[0]["images"] == ["/a.png", "https://x.example/b.png"] and q[0]["withImages"] is True
    assert q[5]["isLimited"] is False
    assert "description" not in q[0]
    bad = d.set_field(doc, "survey.questions[3].page", "two")
    assert view.problems_by_path(bad)["survey.questions[3].page"] == "must be a whole number"


def test_turning_branching_off_drops_the_targets():
    doc = full_survey()
    doc = d.set_field(doc, "survey.questions[0].withConditional", True)
    doc = d.set_field(doc, "survey.questions[0].options[1].conditional", "999")
    assert doc["survey"]["questions"][0]["options"][1]["conditional"] == 999
    assert validate_test_definition(doc) == []
    doc = d.set_field(doc, "survey.questions[0].options[1].conditional", "")
    assert "conditional" not in doc["survey"]["questions"][0]["options"][1]
    doc = d.set_field(doc, "survey.questions[0].options[1].conditional", "999")
    doc = d.set_field(doc, "survey.questions[0].withConditional", False)
    assert all("conditional" not in o for o in doc["survey"]["questions"][0]["options"])


def test_branch_targets_are_later_pages_and_the_end():
    doc = survey(
        {"key": "a", "type": "single-choice", "text": "A", "page": 1},
        {"key": "b", "type": "short-text", "text": "B", "page": 2},
        {"key": "c", "type": "short-text", "text": "C", "page": 3},
    )
    assert d.branch_targets(doc, 0) == [
        ("", "Next question"),
        ("2", "Page 2"),
        ("3", "Page 3"),
        ("999", "End of survey"),
    ]
    assert d.branch_targets(doc, 2) == [("", "Next question"), ("999", "End of survey")]


@pytest.mark.parametrize(
    "path",
    [
        "name",
        "status",
        "payoutCents",
        "survey.questions[0].type",
        "survey.questions[0].__class__",
        "survey.questions[0].text.x",
        "selectedAreas[0].from",
        "survey.questions[99].text",
        "",
    ],
)
def test_paths_the_builder_never_sends_are_refused(path):
    with pytest.raises(d.EditRefused):
        d.set_field(full_survey(), path, "x")


@pytest.mark.parametrize(
    ("call", "args"),
    [
        (d.add_question, ("survey.questions", "not-a-type")),
        (d.add_question, ("selectedAreas", "short-text")),
        (d.remove_question, ("survey.questions", 40)),
        (d.move_question, ("survey.questions", 0, 3)),
        (d.add_item, ("survey.questions[0].key",)),
        (d.remove_item, ("survey.questions[0].options", -1)),
        (d.change_type, ("survey.questions[0]", "essay")),
    ],
)
def test_bad_edits_are_refused(call, args):
    with pytest.raises(d.EditRefused):
        call(full_survey(), *args)


def test_a_wrong_value_type_is_refused():
    with pytest.raises(d.EditRefused):
        d.set_field(full_survey(), "survey.questions[0].isRequired", "yes")
    with pytest.raises(d.EditRefused):
        d.set_field(full_survey(), "survey.questions[0].text", 12)


def test_options_statements_and_scales_are_added_removed_and_moved():
    doc = full_survey()
    doc = d.add_item(doc, "survey.questions[0].options")
    options = doc["survey"]["questions"][0]["options"]
    assert [o["value"] for o in options] == ["option-1", "option-2", "option-3"]
    doc = d.move_item(doc, "survey.questions[0].options", 2, -1)
    assert [o["value"] for o in doc["survey"]["questions"][0]["options"]] == ["option-1", "option-3", "option-2"]
    doc = d.remove_item(doc, "survey.questions[0].options", 0)
    assert [o["value"] for o in doc["survey"]["questions"][0]["options"]] == ["option-3", "option-2"]
    doc = d.add_item(doc, "survey.questions[9].scales")
    assert doc["survey"]["questions"][9]["scales"][-1] == {"value": 6, "label": "6"}
    doc = d.add_item(doc, "survey.questions[11].statements")
    assert doc["survey"]["questions"][11]["statements"][-1]["value"] == "statement-3"


def test_too_few_options_is_a_message_beside_the_options():
    doc = d.remove_item(full_survey(), "survey.questions[0].options", 0)
    shown = view.build(doc)
    assert shown.lists["survey.questions"][0].errors["options"] == ("A single-choice question needs at least 2 options")
    assert shown.other == []


def test_the_matrix_screener_keeps_its_correct_marks_with_its_rows_and_columns():
    doc = d.set_screener_type(full_survey(), "matrix")
    doc = d.set_field(doc, "screenerQuestion.question", "Which tools?")
    for i, text in enumerate(("Row A", "Row B")):
        doc = d.set_field(doc, f"screenerQuestion.rows[{i}]", text)
    for i, text in enumerate(("No", "Yes")):
        doc = d.set_field(doc, f"screenerQuestion.columns[{i}]", text)
    doc = d.toggle_correct(doc, 0, 1)
    doc = d.toggle_correct(doc, 1, 0)
    assert validate_test_definition(doc) == []
    doc = d.add_item(doc, "screenerQuestion.columns")
    doc = d.toggle_correct(doc, 1, 2)
    doc = d.move_item(doc, "screenerQuestion.columns", 0, 1)
    assert doc["screenerQuestion"]["columns"] == ["Yes", "No", ""]
    assert doc["screenerQuestion"]["correctMatrix"] == [[0], [1, 2]]
    doc = d.remove_item(doc, "screenerQuestion.columns", 0)
    assert doc["screenerQuestion"]["correctMatrix"] == [[], [0, 1]]
    doc = d.remove_item(doc, "screenerQuestion.rows", 0)
    assert doc["screenerQuestion"]["correctMatrix"] == [[0, 1]]
    shown = view.build(d.toggle_correct(doc, 0, 0))
    assert shown.correct == [[False, True]]


def test_a_single_screener_with_its_correct_answer():
    doc = d.set_screener(full_survey(), True)
    assert view.build(doc).errors["screenerQuestion.question"] == "Is required"
    doc = d.set_field(doc, "screenerQuestion.question", "Do you buy software?")
    doc = d.set_field(doc, "screenerQuestion.answers[0].text", "Yes")
    doc = d.set_field(doc, "screenerQuestion.answers[1].text", "No")
    assert validate_test_definition(doc) == []
    doc = d.set_field(doc, "screenerQuestion.answers[0].isCorrect", False)
    assert view.build(doc).errors["screenerQuestion.answers"].startswith("At least one answer")
    assert "screenerQuestion" not in d.set_screener(doc, False)


def test_preference_concepts_switch_between_images_and_text():
    doc = {"name": "P", "productType": "preference-test", "preferenceTest": {"preferenceType": "text"}}
    doc = d.set_preference_type(doc, "image")
    assert [i["key"] for i in doc["preferenceTest"]["images"]] == ["concept-1", "concept-2"]
    doc = d.add_item(doc, "preferenceTest.images")
    assert doc["preferenceTest"]["images"][2]["key"] == "concept-3"
    for i in range(3):
        doc = d.set_field(doc, f"preferenceTest.images[{i}].name", f"Concept {i}")
        doc = d.set_field(doc, f"preferenceTest.images[{i}].url", f"/demo/concept-{i}.png")
    assert validate_test_definition(doc) == []
    text = d.set_preference_type(doc, "text")
    assert "images" not in text["preferenceTest"]
    assert view.build(text).errors["preferenceTest.textOptions.optionOne"] == "Is required"
    with pytest.raises(d.EditRefused):
        d.set_preference_type(full_survey(), "image")


# --- the video rule -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "provider"),
    [
        ("https://www.youtube.com/embed/aqz-KE-bpKQ", "YouTube"),
        ("https://youtu.be/aqz-KE-bpKQ", "YouTube"),
        ("https://player.vimeo.com/video/1", "Vimeo"),
        ("https://www.dailymotion.com/embed/video/x1", "Dailymotion"),
        ("https://www.loom.com/embed/abc", "Loom"),
        ("https://evil.com/youtube.com", None),
        ("https://youtube.com.evil.com/x", None),
        ("javascript:alert(1)", None),
        (None, None),
    ],
)
def test_only_four_video_sites(url, provider):
    assert video_links.provider_of(url) == provider


def test_the_definition_refuses_another_video_site_with_a_clear_message():
    q = {"key": "k", "type": "description", "text": "Watch", "embeddedLink": "https://videos.example.com/1"}
    errors = validate_test_definition(survey(q))
    assert [str(e) for e in errors] == [f"survey.questions[0].embeddedLink: {video_links.NOT_A_VIDEO_SITE}"]


# --- the view -------------------------------------------------------------------------------------------


def test_every_problem_is_shown_beside_a_field_or_listed_apart():
    doc = full_survey()
    doc["survey"]["questions"][0]["isRequird"] = True  # a typo, shown by no field
    doc = d.set_field(doc, "survey.questions[2].text", "")
    shown = view.build(doc)
    assert shown.lists["survey.questions"][2].errors["text"] == "Is required"
    assert shown.other == ["survey.questions[0].isRequird: unknown field"]
    assert shown.problem_count == 2


def test_rows_carry_the_settings_of_their_kind():
    rows = view.build(full_survey()).lists["survey.questions"]
    by_type = {r.type: r for r in rows}
    assert by_type["single-choice"].has_conditional and by_type["single-choice"].has_page
    assert by_type["multi-choice"].has_choice_limit and not by_type["multi-choice"].has_conditional
    assert by_type["rating"].has_scales and len(by_type["rating"].scales) == 5
    assert by_type["matrix"].has_matrix and not by_type["description"].answered
    assert rows[0].first and rows[-1].last


def test_highlight_blocks_have_no_pages_or_branching():
    doc = d.add_question({"productType": "landing-page"}, "questions.post-test", "single-choice")
    row = view.build(doc).lists["questions.post-test"][0]
    assert not row.has_page and not row.has_conditional


def test_an_uploaded_image_goes_into_the_draft_without_changing_the_argument():
    draft = {"url": "https://a.example.com/", "preferenceTest": {"images": [{"key": "a", "url": ""}, {"key": "b"}]}}
    kept = copy.deepcopy(draft)
    assert d.with_image(draft, "screenshotUrl", "/media/images/1.png")["screenshotUrl"] == "/media/images/1.png"
    assert d.with_image(draft, "pricingScreenshotUrl", "/m/2.png")["pricingScreenshotUrl"] == "/m/2.png"
    concepts = d.with_image(draft, "preferenceTest.images", "/m/3.png", "b")["preferenceTest"]["images"]
    assert concepts == [{"key": "a", "url": ""}, {"key": "b", "url": "/m/3.png"}]
    assert d.with_image(draft, "preferenceTest.images", "/m/4.png", "gone") == draft  # not in the draft any more
    assert draft == kept
    with pytest.raises(d.EditRefused):
        d.with_image(draft, "name", "/m/5.png")
