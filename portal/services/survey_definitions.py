"""A survey test's definition as the survey screens need it, kept in memory for a minute.

Every answer event validates against the questions; reading them from the database each time
would add a query per keystroke-debounced event for thousands of participants. Definitions
change rarely (staff edit a test before launch), so a copy per worker process is kept for
CACHE_SECONDS.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from portal.domain.ids import whole_number

from portal.domain.test_loading import is_qualification_based
from portal.models import Test
from portal.services.test_loading import qualifications

CACHE_SECONDS = 60.0
_cache: dict[int, tuple[float, SurveyDefinition]] = {}


@dataclass(frozen=True)
class SurveyDefinition:
    test_id: int
    name: str
    product_type: str
    panel: str
    questions: list[dict[str, Any]]
    conditional: bool
    welcome: dict[str, Any] = field(default_factory=dict)
    thank_you: dict[str, Any] = field(default_factory=dict)
    session_seconds: int = 3600
    payout_cents: int = 0
    # Any qualification (a qualification-based audience), any public one (taken without signing in).
    qualification_based: bool = False
    public: bool = False


def load_survey(*, session: Session, test_id: int) -> SurveyDefinition | None:
    number = whole_number(test_id)
    test = session.get(Test, number) if number is not None else None
    if test is None:
        return None
    any_qualification, any_public = qualifications(session, test.id)
    survey = test.survey if isinstance(test.survey, dict) else {}
    questions = [q for q in survey.get("questions") or [] if isinstance(q, dict)]
    definition = SurveyDefinition(
        test_id=test.id,
        name=test.name,
        product_type=test.product_type,
        panel=test.panel,
        questions=questions,
        conditional=bool(test.is_surveys_conditional_enabled),
        welcome=survey.get("welcomePage") if isinstance(survey.get("welcomePage"), dict) else {},
        thank_you=survey.get("thankYouPage") if isinstance(survey.get("thankYouPage"), dict) else {},
        session_seconds=test.session_seconds,
        payout_cents=test.payout_cents,
        qualification_based=is_qualification_based(panel=test.panel, has_qualifications=any_qualification),
        public=any_public,
    )
    _cache[test.id] = (time.monotonic(), definition)
    return definition


def cached_survey(test_id: int) -> SurveyDefinition | None:
    """The definition loaded less than CACHE_SECONDS ago in this process, else None."""
    hit = _cache.get(test_id)
    if hit is None or time.monotonic() - hit[0] > CACHE_SECONDS:
        return None
    return hit[1]
