"""A test's JSON definition written back out (the inverse of portal/domain/definition.py).

`document_of(columns, qualifications)` gives the document that imports back to the same row: the
common fields, then the fields of the test's kind, leaving out what is empty (the import's default).
Staff download it from /admin/tests and edit the common fields through it (the same checks apply).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from portal.domain.definition import COMMON_FIELDS
from portal.domain.taking import kinds

# Definition field -> Test column (fields not listed are written by their own rule below).
COLUMN_OF: dict[str, str] = {
    "name": "name",
    "status": "status",
    "panel": "panel",
    "productType": "product_type",
    "audienceCountry": "audience_country",
    "sessionSeconds": "session_seconds",
    "payoutCents": "payout_cents",
    "participantLimit": "participant_limit",
    "exclusionDays": "exclusion_days",
    "seniorityLimits": "seniority_limits",
    "isFreemium": "is_freemium",
    "frameOfMind": "frame_of_mind",
    "welcomeModal": "welcome_modal",
    "screenerQuestion": "screener_question",
    "isSurveysConditionalEnabled": "is_surveys_conditional_enabled",
    "url": "url",
    "screenshotUrl": "screenshot_url",
    "survey": "survey",
    "questions": "questions",
    "selectedAreas": "selected_areas",
    "preferenceTest": "preference_test",
    "pricingUrl": "pricing_url",
    "pricingScreenshotUrl": "pricing_screenshot_url",
}
# Written even when false (their import default is True, or they say something when false).
_ALWAYS = frozenset(
    {
        "name",
        "status",
        "panel",
        "productType",
        "audienceCountry",
        "sessionSeconds",
        "payoutCents",
        "isSurveysConditionalEnabled",
        "isFreemium",
    }
)


# Left out while they hold their import default (so files written before the field existed round-trip).
_DEFAULTS: dict[str, Any] = {"exclusionDays": 0}


def _empty(value: Any) -> bool:
    return value is None or value == {} or value == [] or value == ""


def document_of(columns: Mapping[str, Any], qualifications: list[str]) -> dict[str, Any]:
    """The definition of a test from its column values (`Test.model_dump()`) and qualification names."""
    kind = kinds.kind_of(columns["product_type"])
    doc: dict[str, Any] = {}
    for name in (*COMMON_FIELDS, *kind.fields):
        if name == "qualifications":
            value: Any = sorted(qualifications)
        elif name == "videoTest":
            value = {"recorderUrl": columns.get("video_recorder_url")}
        else:
            value = columns.get(COLUMN_OF[name])
        if name in _DEFAULTS and value in (None, _DEFAULTS[name]):
            continue
        if name in _ALWAYS or not _empty(value):
            doc[name] = copy.deepcopy(value)
    return doc
