"""A new kind of test is its domain module, its state, its component module and one registry line
(portal/domain/taking/kinds): here a throw-away kind, added that way, is served by the rating page and
by the staff preview, and the browser is told its local-storage key, with nothing else edited."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
import reflex as rx

import portal.portal  # noqa: F401 - the app with every page declared, as it runs
from portal.components.taking.screens import screen, screens
from portal.domain.taking import access, kinds
from portal.domain.taking.kinds.base import Kind
from portal.domain.taking.loading import taking_views
from portal.pages.admin.preview import preview_page
from portal.pages.rate import rate_page
from portal.states.taking.timed_session import TimedSession
from portal.states.taking.views import view_states

VIEW = "throwaway"


# 1. Its domain module: the record with its answer rules.
def _validate(content: Any, answers: Any) -> dict[str, str]:
    return (
        {} if isinstance(answers, dict) and answers.get("rating") in (1, 2, 3) else {"answers.rating": "Pick 1 to 3."}
    )


THROWAWAY = Kind(
    name="throwaway",
    view=VIEW,
    review_kind="throwaway",
    fields=("throwaway",),
    read=lambda *a, **k: None,
    validate=_validate,
    stored=lambda content, answers: {"rating": answers["rating"]},
    product_types=("throwaway-test",),
    store_suffix="-throwaway-answers",
)


# 2. Its state: a timed session naming its view.
class ThrowawayState(TimedSession, rx.State):
    VIEW: ClassVar[str] = VIEW


# 3. Its component module: the screen, registered once.
@screen(ThrowawayState)
def throwaway_view(*, signed_in: Any, referral: Any, starts_itself: bool = False) -> rx.Component:
    return rx.box(rx.heading("Rate the message"), rx.text(ThrowawayState.test_id), id="throwaway-screen")


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch):
    """4. The registry line (undone after the test)."""
    monkeypatch.setattr(kinds, "KINDS", dict(kinds.KINDS))
    monkeypatch.setattr(kinds, "_BY_PRODUCT_TYPE", dict(kinds._BY_PRODUCT_TYPE))
    kinds.add(THROWAWAY)
    return THROWAWAY


def test_without_the_registry_line_the_kind_is_not_served():
    assert kinds.kind_of("throwaway-test").name == "highlight"
    assert VIEW not in view_states()
    assert VIEW not in [s.view for s in screens()]
    assert "throwaway-screen" not in str(rate_page())


def test_the_access_decision_sends_its_participants_to_its_screen(registered):
    assert kinds.kind_of("throwaway-test") is THROWAWAY
    assert access.next_view(product_type="throwaway-test", signed_in=True).name == VIEW
    assert VIEW in taking_views()


def test_the_rating_page_enters_its_state_and_shows_its_screen(registered):
    assert view_states()[VIEW] is ThrowawayState
    page = str(rate_page())
    assert "throwaway-screen" in page and "Rate the message" in page
    # The page's status match has a case for the view, beside the registered kinds'.
    assert f'"{VIEW}"' in page and '"survey"' in page and '"preference"' in page


def test_the_staff_preview_shows_its_screen(registered):
    page = str(preview_page())
    assert "throwaway-screen" in page and f'"{VIEW}"' in page
    assert [s.view for s in screens()][-1] == VIEW
    assert screens()[-1].state is ThrowawayState


def test_the_browser_is_told_its_local_storage_key(registered):
    keys = kinds.local_keys(7)
    assert "7-throwaway-answers" in keys["answers"]
    assert {"7-survey-answers", "7-answers", "7-preference-answer"} <= set(keys["answers"])


def test_its_answers_are_judged_by_its_own_rules(registered):
    kind = kinds.kind_of("throwaway-test")
    assert kind.taken_in_portal
    assert kind.validate({}, {"rating": 5}) == {"answers.rating": "Pick 1 to 3."}
    assert kind.validate({}, {"rating": 2}) == {} and kind.stored({}, {"rating": 2}) == {"rating": 2}
