"""The registry of test kinds: which kind a product type is, and each kind's record.

Services, states and pages look a kind up here instead of branching on product-type strings, and
every other table (the rating page's views, the preview's screens, the browser's local-storage keys)
is derived from it. A new kind is one module in this package (its definition reader and answer
rules), one line in `_REGISTERED` below, one state (portal/states/taking/, its `VIEW`) and one
component module (portal/components/taking/, its screen registered with `screens.screen`).
"""

from __future__ import annotations

from portal.domain.taking.kinds import highlight, preference, survey, video
from portal.domain.taking.kinds.base import HIGHLIGHT_VIEW, PREFERENCE_VIEW, SURVEY_VIEW, VIDEO_REDIRECT, Kind

__all__ = [
    "HIGHLIGHT_VIEW",
    "KINDS",
    "Kind",
    "PREFERENCE_VIEW",
    "SURVEY_VIEW",
    "VIDEO_REDIRECT",
    "add",
    "by_name",
    "kind_of",
    "local_keys",
    "screen_views",
]

# Every product type not named by a kind (landing-page, full-page, standard, b2b-user-testing, ...)
# is a highlight test on the standard view.
DEFAULT = "highlight"

KINDS: dict[str, Kind] = {}
_BY_PRODUCT_TYPE: dict[str, str] = {}


def add(kind: Kind) -> None:
    """Register a kind (and its product types)."""
    KINDS[kind.name] = kind
    for product_type in kind.product_types:
        _BY_PRODUCT_TYPE[product_type] = kind.name


_REGISTERED = (survey.KIND, highlight.HIGHLIGHT, highlight.PRICING, preference.KIND, video.KIND)
for _kind in _REGISTERED:
    add(_kind)


def kind_of(product_type: str) -> Kind:
    return KINDS[_BY_PRODUCT_TYPE.get(product_type, DEFAULT)]


def by_name(name: str) -> Kind:
    return KINDS[name]


def all_fields() -> frozenset[str]:
    return frozenset(f for k in KINDS.values() for f in k.fields)


def kinds_with(field: str) -> str:
    """'highlight and pricing': the kinds whose definitions carry this field."""
    return " and ".join(k.name for k in KINDS.values() if field in k.fields)


def screen_views() -> tuple[str, ...]:
    """The rating page's screens of the kinds taken in the portal, in the registry's order, once each."""
    return tuple(dict.fromkeys(k.view for k in KINDS.values() if k.taken_in_portal and not k.hands_off))


def local_keys(test_id: int) -> dict[str, list[str]]:
    """What the browser keeps of a test in local storage, for clearing it: its answer copies
    ('{testId}' + each kind's suffix) and the entries holding places by test id."""
    return {
        "answers": list(dict.fromkeys(f"{test_id}{k.store_suffix}" for k in KINDS.values() if k.store_suffix)),
        "places": list(dict.fromkeys(k.place_key for k in KINDS.values() if k.place_key)),
    }
