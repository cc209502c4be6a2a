"""The highlight-area editor's rules (portal/domain/highlight_areas.py): boxes from the browser, fresh
keys, type switches, and problems that are exactly the JSON import's."""

from __future__ import annotations

import pytest

from portal.domain import highlight_areas as rules
from portal.domain.definition import validate_test_definition

BLOCKS = {"post-test": [{"key": "pt", "type": "short-text", "text": "Anything else?"}]}


@pytest.mark.parametrize(
    "raw,expected",
    [
        ([10, 20, 30, 40], (10, 20, 30, 40)),
        ([10.004, 20.126, 30.5, 40], (10, 20.13, 30.5, 40)),
        ((-5, -1, 105, 200), (0, 0, 100, 100)),  # kept inside the screenshot
        ([10, 10, 10, 40], None),
        ([30, 10, 10, 40], None),
        ([101, 10, 102, 40], None),
        ([float("nan"), 1, 2, 3], None),
        ([1, 1, float("inf"), 3], None),
        ([True, 1, 2, 3], None),
        (["1", 1, 2, 3], None),
        ([1, 2, 3], None),
        ([1] * 5000, None),
        ("1,2,3,4", None),
        (None, None),
        ({"a": 1}, None),
    ],
)
def test_clean_box(raw, expected):
    assert rules.clean_box(raw) == expected


def test_boxes_are_percent_left_top_width_height():
    areas = [{"from": [5, 4], "to": [95, 31.5]}, {"from": "bad"}]
    assert rules.boxes(areas) == [
        {"left": 5, "top": 4, "width": 90, "height": 27.5},
        {"left": 0, "top": 0, "width": 0, "height": 0},
    ]


def test_fresh_keys_skip_every_key_of_the_test():
    areas = [{"questions": [{"key": "area-1-q1"}]}]
    taken = rules.question_keys({"first-impression": [{"key": "area-1-q2"}]}, areas)
    assert taken == {"area-1-q1", "area-1-q2"}
    assert rules.fresh_key(taken, 1) == "area-1-q3"
    assert rules.fresh_key(taken, 2) == "area-2-q1"


def test_switching_text_types_keeps_the_import_happy():
    q = rules.new_question("k")
    short = rules.with_type(q, "short-text")
    assert "isLimited" not in short and short["type"] == "short-text"
    assert rules.with_type(short, "long-text")["isLimited"] is True


def test_area_screenshot_is_the_pricing_page_for_pricing_tests():
    assert rules.area_screenshot("pricing-test", "/home.png", "/pricing.png") == "/pricing.png"
    assert rules.area_screenshot("landing-page", "/home.png", "/pricing.png") == "/home.png"
    assert not rules.has_areas("survey") and rules.has_areas("full-page")


@pytest.mark.parametrize(
    "areas",
    [
        [{"from": [10, 10], "to": [5, 50], "questions": [{"key": "a", "type": "short-text", "text": "x"}]}],
        [{"from": [10, 10], "to": [50, 150], "questions": [{"key": "pt", "type": "short-text"}]}],
        [{"from": [10, 10], "to": [50, 50], "questions": []}, "x"],
        "not a list",
    ],
)
def test_problems_are_the_imports(areas):
    doc = {
        "name": "x",
        "productType": "landing-page",
        "url": "https://e.com/",
        "screenshotUrl": "/s.png",
        "questions": BLOCKS,
        "selectedAreas": areas,
    }
    expected = [(e.path, e.message) for e in validate_test_definition(doc)]
    found = [(e.path, e.message) for e in rules.problems(areas, product_type="landing-page", blocks=BLOCKS)]
    assert found == expected and found


def test_tests_without_areas():
    assert [e.message for e in rules.problems([], product_type="survey", blocks={})] == [rules.NO_AREAS]
