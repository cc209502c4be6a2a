"""The rating route /test/{id}/rate/{step?}/{subStep?}: load the test, show its access state or its view.

Access is decided on the server (services.rating_page -> test_loading -> domain.test_access);
this state only shows the outcome. The page has one load event (`load_page`): it shows the user in
the header, decides the access and enters the test's view (survey, highlight, preference) in that
same event, so the test's first screen comes with the hydrate's one round trip. The screener starts
itself when shown (its component's on_mount); the kinds' views do so only on the staff preview page.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import reflex as rx

from portal import db
from portal.domain import partners as partner_rules
from portal.domain.ids import whole_number
from portal.domain.invites import rating_path
from portal.domain.taking import access as test_access
from portal.services import partners
from portal.services.taking.loading import TestNotFound
from portal.services.taking.rating_page import open_page
from portal.states.auth import SessionState, session_token, sign_in_url_for
from portal.states.auth_cookie import cookies_of
from portal.states.browser import portal_call
from portal.states.route_params import route_arg
from portal.states.tab_owner import TabOwned, owned_state
from portal.states.taking import local_copy
from portal.states.taking.timed_session import public_respondent_key
from portal.states.taking.views import view_states

log = logging.getLogger(__name__)

RESPONDENT_PARAM = "respondent_project_id"
NOT_AVAILABLE = "This kind of test cannot be taken in the portal yet. Please check back soon."
# Completed freemium tests lead to joining for free: the sign-up page.
FREE_JOIN_PATH = "/sign-up"


class RateState(TabOwned, rx.State):
    test_id: int = 0
    # loading | not-found | message | sign-in | screener | survey | highlight | unavailable | thank-you | ...
    status: str = "loading"
    # Bumped on every load: the view remounts (and starts itself again) even on the same status.
    loads: int = 0
    access: str = ""
    message_title: str = ""
    message_text: str = ""
    link_label: str = ""
    link_url: str = ""
    qualification_based: bool = False
    # A crowd-work respondent opening the test they completed: their completion code again.
    completion_code: str = ""

    @rx.event
    async def load_page(self):
        """The page's one load event (on_load): the header's user, the access decision and, for a
        signed-in participant, the test's view entered, all read in one transaction
        (services.rating_page.open_page). A visitor without an account enters once the browser has
        told its respondent id (the view's `enter_public`)."""
        return await self._load(notices=True)

    async def _load(self, *, notices: bool) -> list:
        self.status = "loading"
        self.loads += 1
        self.completion_code = ""
        test_id = whole_number(route_arg(self, "rate_test_id"))
        query = dict(self.router.url.query_parameters)
        respondent = query.get(RESPONDENT_PARAM)
        respondent = respondent[:200] if isinstance(respondent, str) and respondent.strip() else None
        events: list = []
        if respondent and test_id:
            # The test's URL parameters are kept per test only for respondents of the external service.
            events.append(
                rx.call_script(
                    f"window.localStorage.setItem('test_{test_id}_url_params', {json.dumps(json.dumps(query))})"
                )
            )
        token = session_token(self)
        # A partner's link (research service, crowd-work, panel exchange) of a visitor without an account: the
        # server checks it first (portal/services/partners.py) and the access decision below takes its answer.
        admission = partners.Admission()
        if test_id and not token and partner_rules.arrival(query) is not None:
            admission = await db.run(partners.admit, test_id=test_id, query=query, path=rating_path(test_id))
        opened = await db.run(
            open_page,
            token=token,
            test_id=test_id,
            respondent_project_id=respondent,
            restart=test_access.RESTART_PARAM in query,
            completed=test_id is not None and test_id in self._completed_tests(),
            enter_views=frozenset(view_states()) if token else frozenset(),
            partner_admitted=admission.admitted,
        )
        header = await owned_state(self, SessionState)
        header._show_user(opened.user, opened.flags)
        if notices:
            events = [*header._query_notices(opened.user), *events]
        if isinstance(opened.error, TestNotFound):
            self.status = "not-found"
            return events
        if opened.error is not None or opened.load is None:
            log.error("loading test %s failed: %s", test_id, opened.error)
            fallback = test_access.access_message(test_access.FALLBACK, test_id or 0)
            assert fallback is not None  # FALLBACK blocks: it has a page
            self._message(test_access.FALLBACK, fallback.title, fallback.text)
            return events
        load = opened.load
        self.test_id = load.test_id
        self.qualification_based = load.qualification_based
        if admission.exit_url:  # a panel respondent whose visit already ended: back to the exchange
            self.status = "redirect"
            return [*events, rx.call_script(f"window.location.assign({json.dumps(admission.exit_url)})")]
        if admission.refused:  # the partner's link did not hold (not invited, a bad signature): nothing stored
            self._message(test_access.NOT_INVITED, admission.refused_title, admission.refused_text)
            return events
        if load.state != test_access.OK and admission.partner == partner_rules.PANEL:
            # A panel entrant the test cannot take (full): back to the exchange with the outcome.
            exit_url = await db.run(partners.conclude_blocked, token=admission.token, state=load.state)
            if exit_url:
                self.status = "redirect"
                return [*events, rx.call_script(f"window.location.assign({json.dumps(exit_url)})")]
        if load.state != test_access.OK:
            self._message(
                load.state, load.message_title, load.message_text, load.message_link_label, load.message_link_url
            )
            return events
        self.access = test_access.OK
        if load.view == test_access.SIGN_IN:
            self.status = "sign-in"
            return [*events, rx.redirect(sign_in_url_for(self), replace=True)]
        if load.redirect_url:  # a kind that hands the participant off (the video recorder)
            self.status = "redirect"
            return [*events, rx.redirect(load.redirect_url)]
        states = view_states()
        if load.view == test_access.SCREENER or load.view in states:
            # The page shows the view's own component.
            self.status = load.view
            if test_access.RESTART_PARAM in query:
                events.append(local_copy.clear(load.test_id))
            if load.view not in states:  # the screener starts itself when shown
                return events
            view = await owned_state(self, states[load.view])
            if opened.entry is not None or opened.entry_error is not None:
                entered = view._enter_opened(load.test_id, opened.entry, opened.entry_error)
            else:  # a visitor without an account: the browser names its respondent id first
                entered = await view._begin_for(load.test_id, admission.token)
            return [*events, *_as_list(entered)]
        if load.view == test_access.FREE_JOIN:
            self.status = "redirect"
            return [*events, rx.redirect(FREE_JOIN_PATH)]
        if load.view in (test_access.THANK_YOU, test_access.RESPONDENT_THANK_YOU):
            self.status = load.view
            if not token:  # a respondent without an account: their completion code, if they got one
                return [
                    *events,
                    portal_call(f"window.portalTaking.who({load.test_id})", callback=type(self).completed_code),
                ]
            return events
        self._message(test_access.OK, "", NOT_AVAILABLE)
        self.status = "unavailable"
        return events

    @rx.event
    async def completed_code(self, who: Any):
        """The browser's answer to window.portalTaking.who() on the completed page: the completion code of the
        review its respondent key made (the server finds it; nothing the browser says is shown)."""
        try:
            data = json.loads(who) if isinstance(who, str) and len(who) < 1000 else None
        except ValueError:
            data = None
        if not isinstance(data, dict) or data.get("testId") != self.test_id or not self.test_id:
            return
        key = public_respondent_key(data.get("id"), data.get("project"))
        if key is not None:
            code = await db.run(partners.completion_code_of, test_id=self.test_id, respondent=key)
            self.completion_code = code or ""

    def _completed_tests(self) -> set[int]:
        """The tests this browser recorded as completed (the 'completedTests' cookie set after a submission)."""
        return test_access.completed_tests(cookies_of(self).get(test_access.COMPLETED_COOKIE))

    def _message(
        self, state: str, title: str, text: str, link_label: str | None = None, link_url: str | None = None
    ) -> None:
        self.status = "message"
        self.access = state
        self.message_title, self.message_text = title, text
        self.link_label, self.link_url = link_label or "", link_url or ""

    @rx.event
    async def reload_access(self):
        """After the screener is passed: decide the view again (and enter it)."""
        return await self._load(notices=False)


def _as_list(events) -> list:
    if events is None:
        return []
    return list(events) if isinstance(events, (list, tuple)) else [events]
