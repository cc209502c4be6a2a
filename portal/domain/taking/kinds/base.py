"""What a kind of test is: one small record per kind (see portal/domain/taking/kinds/__init__.py).

A kind names the screen that takes the test (its view), how a stored review is labelled, the
fields its definition carries and how they are read, the questions it asks, and its answer
rules: `validate` gives every error of a submission by field path ('answers.<...>'), `stored`
the answers as they are kept. Everything else (access, session, deadline, idempotency, reward,
invite) is the same for every kind and lives once in portal/services/taking/review_sessions.py.

`content` below is the test's kind-specific content in the definition's own spelling:
{'survey', 'questions', 'selectedAreas', 'preferenceTest', 'isSurveysConditionalEnabled',
 'productType'} (portal/services/taking/definitions.content_of builds it from a row).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# The screens a test is taken on (the rating page's views).
SURVEY_VIEW, HIGHLIGHT_VIEW, PREFERENCE_VIEW, VIDEO_REDIRECT = "survey", "highlight", "preference", "video"

Content = Mapping[str, Any]
Reader = Callable[..., None]


def order_seed(respondent_key: str, test_id: int) -> str:
    """The seed of a participant's option order for a test: the same wherever they open it."""
    return f"{respondent_key}:{test_id}"


def no_questions(content: Content) -> list[dict[str, Any]]:
    return []


@dataclass(frozen=True)
class Kind:
    name: str
    view: str
    review_kind: str  # review.kind of its submissions
    fields: tuple[str, ...]  # the definition fields only this kind has
    # read(ck, doc, product_type=..., seen_keys=..., columns=...): checks the kind's fields into `columns`.
    read: Reader
    # The questions asked, in the order they are asked (every block, every area).
    questions: Callable[[Content], list[dict[str, Any]]] = no_questions
    # Every error of a submission's answers, by field path; None: not taken in the portal yet.
    validate: Callable[[Content, Any], dict[str, str]] | None = None
    # The answers as stored with the review (after `validate` found nothing).
    stored: Callable[[Content, Any], Any] | None = None
    # Whether the screen needs the page under test (url and screenshotUrl are required).
    shows_page: bool = False
    # The options' order for a participant, order(content, seed), stored with the review (optionsOrder).
    order: Callable[[Content, str], list[str]] | None = None
    # The product types of this kind (the registry's default kind takes every other one).
    product_types: tuple[str, ...] = ()
    # The browser's local copy of the answers: '{testId}' + store_suffix (the spec's key names).
    store_suffix: str = ""
    # A local-storage entry holding, by test id, where in the test a participant is (its name).
    place_key: str = ""
    # The test opens on the product's home page before the page under test (pricing).
    home_page: bool = False
    # The rating page hands the participant off to an outside page (the video recorder) instead of
    # showing a screen of its own.
    hands_off: bool = False

    @property
    def taken_in_portal(self) -> bool:
        return self.validate is not None and self.stored is not None
