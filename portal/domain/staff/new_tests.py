"""A new test and a copy of one, on the tests list (/admin/tests): the 'New test' form's rules, the
starting definition of each kind (docs/decisions.md, 'New test and Duplicate') and the name of a copy.

A new test is a draft whose content is not complete yet: its row holds the kind's empty content and its
builder's working copy (`Test.draft_document`) the starting document below, which the builder
(/admin/tests/{id}/build) shows and edits. It stays a draft until its definition has no problem
(portal/domain/staff/editing.py, check_form).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from portal.domain.invites import product_type_label
from portal.domain.reference_data import PANELS, PRODUCT_TYPES
from portal.domain.taking import kinds

MAX_NAME = 200
NAME_NEEDED = "Enter a name for the test."
NAME_TOO_LONG = f"A name can be at most {MAX_NAME} characters."
TYPE_NEEDED = "Choose the product type."
PANEL_NEEDED = "Choose a panel."
COPY_PREFIX = "Copy of "
NEW_FIELDS = ("name", "productType", "panel")

# The starting content of each kind, in the definition's own spelling. A survey starts with one short-text
# question, so it is complete at once; a page test with one first-impression question (its page's address
# and screenshot are still to be given); a preference test as an image test with no concept yet; a video
# test with no recorder address yet. The builder shows what is missing.
FIRST_QUESTION_TEXT = "Untitled question"
STARTING_CONTENT: dict[str, dict[str, Any]] = {
    "survey": {
        "survey": {
            "questions": [
                {"key": "q-1", "type": "short-text", "page": 1, "text": FIRST_QUESTION_TEXT, "isRequired": True}
            ]
        }
    },
    "highlight": {
        "questions": {
            "first-impression": [
                {
                    "key": "q-1",
                    "type": "long-text",
                    "text": "In your own words, what does this page offer?",
                    "isRequired": True,
                    "isLimited": True,
                }
            ]
        },
    },
    "preference": {
        "preferenceTest": {
            "preferenceType": "image",
            "initialQuestion": "Which one do you like better?",
            "isLimited": True,
            "images": [],
        }
    },
    "video": {"videoTest": {"recorderUrl": ""}},
}
STARTING_CONTENT["pricing"] = copy.deepcopy(STARTING_CONTENT["highlight"])
assert set(STARTING_CONTENT) == set(kinds.KINDS), "every kind needs a starting definition"


def product_type_options() -> list[tuple[str, str]]:
    """(product type, 'Kind · Product type') for the 'New test' select, grouped by kind in the registry's
    order, each group by label."""
    order = list(kinds.KINDS)
    types = sorted(PRODUCT_TYPES, key=lambda p: (order.index(kinds.kind_of(p).name), product_type_label(p)))
    return [(p, f"{kinds.kind_of(p).name.capitalize()} · {product_type_label(p)}") for p in types]


def new_test_problems(form: Mapping[str, Any]) -> dict[str, str]:
    """What is wrong with the 'New test' form, by field (name, productType, panel)."""
    name = form.get("name")
    problems: dict[str, str] = {}
    if not isinstance(name, str) or not name.strip():
        problems["name"] = NAME_NEEDED
    elif len(name.strip()) > MAX_NAME:
        problems["name"] = NAME_TOO_LONG
    if form.get("productType") not in PRODUCT_TYPES:
        problems["productType"] = TYPE_NEEDED
    if form.get("panel") not in PANELS:
        problems["panel"] = PANEL_NEEDED
    return problems


def starting_document(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The builder's first working copy of a new test: its settings (a definition document of the row, which
    carries no content yet) with its kind's starting content."""
    doc = copy.deepcopy(dict(settings))
    kind = kinds.kind_of(str(doc.get("productType", ""))).name
    doc.update(copy.deepcopy(STARTING_CONTENT[kind]))
    return doc


def copy_name(name: str, taken: Iterable[str]) -> str:
    """'Copy of <name>', then 'Copy of <name> (2)', (3)... whichever is free (names identify tests on import);
    the name is shortened so that the whole stays within MAX_NAME characters."""
    used = set(taken)
    n = 1
    while True:
        suffix = "" if n == 1 else f" ({n})"
        candidate = COPY_PREFIX + name[: MAX_NAME - len(COPY_PREFIX) - len(suffix)].rstrip() + suffix
        if candidate not in used:
            return candidate
        n += 1


def copy_base(name: str) -> str:
    """What every name copy_name may give starts with (to look the taken ones up)."""
    return COPY_PREFIX + name[: MAX_NAME - len(COPY_PREFIX) - 6].rstrip()
