"""A test's definition as the test screens need it, on a version, kept in memory for a minute.

Every answer event validates against the questions; reading them from the database each time
would add a query per keystroke-debounced event for thousands of participants. So a copy per worker
process is kept for CACHE_SECONDS, by version: a session is always shown and checked on the version it
started on (portal/services/taking/versions.py), whatever staff have changed since; a caller who has no
session yet gets the newest. The kind (portal/domain/taking/kinds) says which questions a test asks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from portal.domain.ids import whole_number
from portal.domain.taking import kinds
from portal.domain.taking.kinds import Kind
from portal.domain.taking.loading import is_qualification_based
from portal.models import Test
from portal.services.taking import versions
from portal.services.taking.loading import qualifications

CACHE_SECONDS = 60.0
# (test id, version id or 0 for the newest) -> (when loaded, definition)
_cache: dict[tuple[int, int], tuple[float, TestDefinition]] = {}


def content_of(test: Test) -> dict[str, Any]:
    """The test's kind-specific content in the definition's spelling (portal/domain/taking/kinds/base.py)."""
    return {
        "productType": test.product_type,
        "survey": test.survey if isinstance(test.survey, dict) else {},
        "questions": test.questions if isinstance(test.questions, dict) else {},
        "selectedAreas": test.selected_areas if isinstance(test.selected_areas, list) else [],
        "preferenceTest": test.preference_test if isinstance(test.preference_test, dict) else {},
        "isSurveysConditionalEnabled": bool(test.is_surveys_conditional_enabled),
    }


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class TestDefinition:
    __test__ = False

    test_id: int
    name: str
    product_type: str
    panel: str
    kind: str
    content: dict[str, Any]
    # Every question asked, in order (a highlight test's blocks and areas flattened).
    questions: list[dict[str, Any]]
    conditional: bool
    welcome: dict[str, Any] = field(default_factory=dict)
    thank_you: dict[str, Any] = field(default_factory=dict)
    session_seconds: int = 3600
    payout_cents: int = 0
    # Any qualification (a qualification-based audience), any public one (taken without signing in).
    qualification_based: bool = False
    public: bool = False
    # The page under test (highlight and pricing kinds).
    url: str = ""
    screenshot_url: str = ""
    pricing_url: str = ""
    pricing_screenshot_url: str = ""
    frame_of_mind: str = ""
    welcome_modal: dict[str, Any] = field(default_factory=dict)
    # The version it is on (0: the test's newest, as a preview of a draft has none).
    version_id: int = 0

    @property
    def kind_record(self) -> Kind:
        return kinds.by_name(self.kind)


def load_definition(session: Session, *, test_id: int, version_id: int | None = None) -> TestDefinition | None:
    """The test on `version_id` (one of its own), else on its newest version."""
    number = whole_number(test_id)
    row = session.get(Test, number) if number is not None else None
    if row is None:
        return None
    newest = versions.newest_id(session, row.id)
    own = version_id if isinstance(version_id, int) and version_id else newest
    test = versions.test_on(session, row, own)
    if own != newest and test is row:  # not a version of this test: the newest
        own = newest
    definition = definition_of(session, test, own or 0)
    _cache[(row.id, version_id or 0)] = _cache[(row.id, own or 0)] = (time.monotonic(), definition)
    return definition


def definition_of(session: Session, test: Test, version_id: int = 0) -> TestDefinition:
    """The definition the screens take of a test row as given (a version's, or a draft's never written)."""
    any_qualification, any_public = qualifications(session, test.id)
    kind = kinds.kind_of(test.product_type)
    content = content_of(test)
    survey = content["survey"]
    pages = survey or content["preferenceTest"]  # the welcome and thank-you pages of a survey or a preference test
    return TestDefinition(
        test_id=test.id,
        version_id=version_id,
        name=test.name,
        product_type=test.product_type,
        panel=test.panel,
        kind=kind.name,
        content=content,
        questions=kind.questions(content),
        conditional=bool(test.is_surveys_conditional_enabled),
        welcome=_dict(pages.get("welcomePage")),
        thank_you=_dict(pages.get("thankYouPage")),
        session_seconds=test.session_seconds,
        payout_cents=test.payout_cents,
        qualification_based=is_qualification_based(panel=test.panel, has_qualifications=any_qualification),
        public=any_public,
        url=test.url or "",
        screenshot_url=test.screenshot_url or "",
        pricing_url=test.pricing_url or "",
        pricing_screenshot_url=test.pricing_screenshot_url or "",
        frame_of_mind=(test.frame_of_mind or "").strip(),
        welcome_modal=_dict(test.welcome_modal),
    )


def cached_definition(test_id: int, version_id: int | None = None) -> TestDefinition | None:
    """The definition (on `version_id`, else the newest) loaded less than CACHE_SECONDS ago in this
    process, else None."""
    hit = _cache.get((test_id, version_id or 0))
    if hit is None or time.monotonic() - hit[0] > CACHE_SECONDS:
        return None
    return hit[1]
