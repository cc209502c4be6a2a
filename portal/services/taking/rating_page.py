"""Opening /test/{id}/rate: who is asking, the screener result, and what the page shows.

One transaction: the participant is resolved from the session token, a Restart asked for after
an expired session sets that session aside, then loading decides the access state and view.
`open_page` gathers everything the page's one load event shows in that transaction: the header's
user and flags, the access decision, and for a signed-in participant the kind's own entry (the
test definition and the running review session), so the test shows after one event.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session

from portal.domain.accounts import CurrentUser
from portal.domain.taking import access as test_access
from portal.services.errors import ServiceError
from portal.services.flags import user_and_flags
from portal.services.sessions import resolve_user
from portal.services.taking import definitions, loading, review_sessions, steps
from portal.services.taking.loading import TestLoad

# `user` not given: resolved from the token here.
_RESOLVE: Any = object()


def open_test(
    session: Session,
    *,
    token: str | None,
    test_id: Any,
    respondent_project_id: str | None = None,
    restart: bool = False,
    completed: bool = False,
    now: datetime | None = None,
    user: Any = _RESOLVE,
    partner_admitted: bool = False,
) -> TestLoad:
    """What /test/{id}/rate shows to this visitor (TestNotFound for an unknown id). `user`: the token's
    user when the caller resolved it in this same session (else it is resolved here)."""
    if user is _RESOLVE:
        user = resolve_user(session=session, token=token)
    account_id = user.account_id if user else None
    if account_id is not None and restart and isinstance(test_id, int):
        review_sessions.restart(session=session, test_id=test_id, account_id=account_id, now=now)
    # The participant's screener result is read with the test's other rows.
    return loading.load_test(
        session=session,
        test_id=test_id,
        account_id=account_id,
        respondent_project_id=respondent_project_id,
        completed=completed is True,
        now=now,
        partner_admitted=partner_admitted is True and account_id is None,
    )


@dataclass
class PageOpen:
    """Everything the rating page's load shows. `error` when the access decision failed (TestNotFound
    or another ServiceError); `entry` / `entry_error` when the view was entered for a participant."""

    user: CurrentUser | None
    flags: dict[str, bool]
    load: TestLoad | None = None
    error: ServiceError | None = None
    entry: steps.Entry | None = None
    entry_error: ServiceError | None = None


def open_page(
    session: Session,
    *,
    token: str | None,
    test_id: Any,
    respondent_project_id: str | None = None,
    restart: bool = False,
    completed: bool = False,
    enter_views: frozenset[str] = frozenset(),
    now: datetime | None = None,
    partner_admitted: bool = False,
) -> PageOpen:
    """The header's user and flags, what the page shows, and (a signed-in caller on one of `enter_views`)
    the view's entry (steps.enter), read in one transaction. The session token is resolved once,
    here, and that user serves the header, the access decision and the entry. `partner_admitted`: the link of a
    visitor without an account was checked and admitted by portal/services/partners.admit."""
    user, flags = user_and_flags(session=session, token=token)
    try:
        load = open_test(
            session=session,
            token=token,
            test_id=test_id,
            respondent_project_id=respondent_project_id,
            restart=restart,
            completed=completed,
            now=now,
            user=user,
            partner_admitted=partner_admitted,
        )
    except ServiceError as error:
        session.rollback()
        return PageOpen(user=user, flags=flags, error=error)
    opened = PageOpen(user=user, flags=flags, load=load)
    if user is not None and load.state == test_access.OK and load.view in enter_views:
        # The access decision just made is the one the entry would make again (take_access.decide: same
        # account, same test, same screener result, no respondent project id, not completed): reused.
        same = respondent_project_id is None and completed is False
        try:
            opened.entry = steps.enter(
                session=session,
                token=token,
                test_id=load.test_id,
                view=load.view,
                now=now,
                user=user,
                decided=load if same else None,
            )
        except ServiceError as error:
            opened.entry_error = error
    return opened


@dataclass(frozen=True)
class FirstView:
    """What a signed-in participant opening a test they may take, and have not started, sees first:
    the test's `view` (its kind's screen) at its welcome, from its definition."""

    view: str
    definition: definitions.TestDefinition


def first_view(
    session: Session,
    *,
    token: str | None,
    test_id: Any,
    completed: bool = False,
    views: frozenset[str] = frozenset(),
    now: datetime | None = None,
) -> FirstView | None:
    """The rating page's first screen when it is a welcome the server can draw before the page's own
    load (portal/http/first_view.py): the same access decision as the page (open_test), for a signed-in
    participant whose view is one of `views` with no session in progress. None for anything else
    (signed out, not allowed now, a screener, a session to resume, an unknown test): the page alone."""
    user = resolve_user(session=session, token=token)
    if user is None:
        return None
    try:
        load = open_test(session=session, token=token, test_id=test_id, completed=completed, now=now, user=user)
    except ServiceError:
        return None
    if load.state != test_access.OK or load.view not in views or load.session_id is not None:
        return None
    return FirstView(view=load.view, definition=steps.definition(session=session, test_id=load.test_id))
