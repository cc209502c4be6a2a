"""/admin/tests/[test_id]/preview: which screen previews the test (the kind's own view, which then
enters the preview itself: TimedSession.begin on this route -> the preview core, staff checked again)."""

from __future__ import annotations

import reflex as rx

from portal.domain.ids import whole_number
from portal.services.admin import preview as service
from portal.services.errors import ServiceError
from portal.states.admin.guard import staff_load
from portal.states.route_params import route_arg
from portal.states.tab_owner import TabOwned
from portal.states.taking.core import is_draft_preview

LOADING, NOT_FOUND, UNAVAILABLE, DRAFT_INVALID = "", "not-found", "unavailable", "draft-invalid"
NOT_TAKEN = "This kind of test is not taken in the portal, so it has no preview."


class PreviewState(TabOwned, rx.State):
    # '' while loading | the kind's view (survey, highlight, preference) | unavailable | not-found
    view: str = LOADING
    name: str = ""
    shown_id: int = 0
    # Bumped on every load: the kind's view remounts (and enters the preview again).
    loads: int = 0
    # The builder's unsaved draft is previewed (?draft=1), and why it cannot be when it has problems.
    draft: bool = False
    problem: str = ""

    @rx.event
    async def load(self):
        self.view, self.name, self.shown_id, self.problem = LOADING, "", 0, ""
        self.draft = is_draft_preview(self)
        self.loads += 1
        test_id = whole_number(route_arg(self, "test_id"))
        try:
            target = await staff_load(self, service.open_preview, test_id=test_id, draft=self.draft)
        except service.PreviewNotFound:
            self.view = NOT_FOUND
            return
        except ServiceError as error:  # no such test, or a draft with problems
            if not self.draft or error.message == service.NO_TEST:
                self.view = NOT_FOUND
                return
            self.view, self.problem, self.shown_id = DRAFT_INVALID, error.message, test_id or 0
            self.name = "Draft"
            return
        if target is None:  # not staff: the page shows them the not-found page
            return
        self.name, self.shown_id = target.name, target.test_id
        self.view = target.view or UNAVAILABLE
