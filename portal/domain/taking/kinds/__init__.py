"""The registry of test kinds: which kind a product type is, and each kind's record.

Services, states and pages look a kind up here instead of branching on product-type strings.
A new kind is one module in this package (its definition reader and answer rules), one entry
below, one state and one component module.
"""

from __future__ import annotations

from portal.domain.taking.kinds import highlight, preference, survey, video
from portal.domain.taking.kinds.base import HIGHLIGHT_VIEW, PREFERENCE_VIEW, SURVEY_VIEW, VIDEO_REDIRECT, Kind

__all__ = ["HIGHLIGHT_VIEW", "KINDS", "Kind", "PREFERENCE_VIEW", "SURVEY_VIEW", "VIDEO_REDIRECT", "kind_of", "by_name"]

KINDS: dict[str, Kind] = {k.name: k for k in (survey.KIND, highlight.HIGHLIGHT, highlight.PRICING, preference.KIND, video.KIND)}

# Product types with their own kind; every other product type (landing-page, full-page, standard,
# b2b-user-testing, ...) is a highlight test on the standard view.
_BY_PRODUCT_TYPE: dict[str, str] = {
    **dict.fromkeys(survey.PRODUCT_TYPES, "survey"),
    "pricing-test": "pricing",
    "preference-test": "preference",
    "video-test": "video",
}
DEFAULT = "highlight"


def kind_of(product_type: str) -> Kind:
    return KINDS[_BY_PRODUCT_TYPE.get(product_type, DEFAULT)]


def by_name(name: str) -> Kind:
    return KINDS[name]


def all_fields() -> frozenset[str]:
    return frozenset(f for k in KINDS.values() for f in k.fields)


def kinds_with(field: str) -> str:
    """'highlight and pricing': the kinds whose definitions carry this field."""
    return " and ".join(k.name for k in KINDS.values() if field in k.fields)
