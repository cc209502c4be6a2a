"""The test-image rules (portal/domain/images.py): size, type, width, and which slots a test has."""

from __future__ import annotations

import pytest

from portal.domain import images as rules


def test_the_spec_limits_are_250_mb_and_wider_than_600_px():
    assert rules.MAX_IMAGE_BYTES == 250 * 1024 * 1024
    assert rules.size_message(rules.MAX_IMAGE_BYTES) is None
    assert rules.size_message(rules.MAX_IMAGE_BYTES + 1) == rules.TOO_BIG == "The image is bigger than 250 MB."
    assert rules.size_message(0) == rules.EMPTY
    assert rules.size_message(1) is None


@pytest.mark.parametrize(
    "width,expected",
    [
        (1, "The image must be wider than 600 px (this one is 1 px)."),
        (500, "The image must be wider than 600 px (this one is 500 px)."),
        (600, "The image must be wider than 600 px (this one is 600 px)."),
        (601, None),
        (1400, None),
    ],
)
def test_width_is_exclusive(width, expected):
    assert rules.image_message("PNG", width, 800) == expected


@pytest.mark.parametrize("pillow_format", ["PNG", "JPEG", "WEBP", "GIF"])
def test_the_four_browser_types_are_accepted(pillow_format):
    assert rules.image_message(pillow_format, 1400, 900) is None


@pytest.mark.parametrize(
    "pillow_format,width,height",
    [
        (None, None, None),
        ("BMP", 1400, 900),
        ("TIFF", 1400, 900),
        ("SVG", 1400, 900),
        ("PNG", None, 900),
        ("PNG", "1400", 900),
    ],
)
def test_anything_else_is_not_an_image(pillow_format, width, height):
    assert (
        rules.image_message(pillow_format, width, height)
        == rules.NOT_AN_IMAGE
        == "This file is not an image (PNG, JPEG, WebP or GIF)."
    )


def test_too_many_pixels():
    assert rules.image_message("PNG", 1500, 100_001) == rules.TOO_MANY_PIXELS
    assert rules.image_message("PNG", 1500, 100_000) is None


def test_the_accept_attribute_names_the_four_types():
    assert rules.ACCEPT == "image/png,image/jpeg,image/webp,image/gif"
    assert rules.CONTENT_TYPE_BY_EXTENSION == {
        "png": "image/png",
        "jpg": "image/jpeg",
        "webp": "image/webp",
        "gif": "image/gif",
    }


PREFERENCE = {
    "preferenceType": "image",
    "images": [
        {"key": "a", "name": "Hero A", "url": "/demo/concept-a.png"},
        {"key": "b", "name": "Hero B", "url": "/demo/concept-b.png"},
    ],
}


def keys(found):
    return [s.key for s in found]


def test_slots_follow_the_kind():
    assert keys(rules.slots("landing-page", "/x.png", None, {})) == ["screenshot"]
    assert keys(rules.slots("pricing-test", "/x.png", "/p.png", {})) == ["screenshot", "pricing-screenshot"]
    assert keys(rules.slots("preference-test", None, None, PREFERENCE)) == ["concept-1", "concept-2"]
    assert keys(rules.slots("preference-test", None, None, {"preferenceType": "text", "textOptions": {}})) == []
    assert keys(rules.slots("survey", "/x.png", None, {})) == []
    assert keys(rules.slots("video-test", None, None, {})) == []


def test_slots_carry_their_current_image_and_label():
    screenshot, pricing = rules.slots("pricing-test", "/x.png", None, {})
    assert (screenshot.label, screenshot.url) == ("Page screenshot", "/x.png")
    assert (pricing.label, pricing.url) == ("Pricing page screenshot", "")
    first, second = rules.slots("preference-test", None, None, PREFERENCE)
    assert (first.label, first.url, first.concept_index) == ("Concept 1: Hero A", "/demo/concept-a.png", 0)
    assert second.concept_index == 1


@pytest.mark.parametrize(
    "raw",
    [
        "concept-3",
        "concept-0",
        "concept-01",
        "pricing-screenshot",
        "Screenshot",
        " screenshot",
        "../screenshot",
        1,
        None,
        {"key": "screenshot"},
        "x" * 100,
        "concept-1\n",
    ],
)
def test_slot_named_refuses_what_the_test_does_not_have(raw):
    assert rules.slot_named(rules.slots("preference-test", None, None, PREFERENCE), raw) is None


def test_slot_named_finds_the_slot():
    found = rules.slots("pricing-test", "/x.png", None, {})
    assert rules.slot_named(found, "pricing-screenshot").label == "Pricing page screenshot"
    assert rules.slot_named(rules.slots("preference-test", None, None, PREFERENCE), "concept-2").concept_index == 1
