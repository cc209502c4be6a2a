"""Who may take a test now: the one server-side decision behind every step of taking a test.

Entering a test's questions, starting or extending its review session, answering its screener and
submitting it all call `require()`, whatever the page showed: a raw websocket event with any test id
gets the same answer as the rating page (portal/services/taking/loading.py gathers the facts from the
rows; portal/domain/taking/access.py decides). It covers the signed-in participant or the public
respondent, registration and verification, the invite, the test's status, the screener result, the
session's deadline, the quotas, and the kind of test the handler takes (`view`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from portal.domain.taking import access, kinds
from portal.services import partners
from portal.services.errors import ServiceError
from portal.services.taking import loading as test_loading
from portal.services.taking.loading import TestLoad, TestNotFound


class AccessDenied(ServiceError):
    """This step of taking the test is not allowed now; `state` is the access state (test_access)."""

    def __init__(self, message: str, *, state: str = access.FALLBACK) -> None:
        super().__init__(message)
        self.state = state


def project_of(respondent: str | None) -> str | None:
    """The respondent project id in a public respondent's key ('respondent:<project>:<browser id>')."""
    if isinstance(respondent, str) and respondent.startswith("respondent:"):
        return respondent.split(":")[1] or None
    return None


def decide(
    session: Session,
    *,
    test_id: Any,
    account_id: int | None,
    respondent: str | None = None,
    now: datetime | None = None,
) -> TestLoad:
    """The rating page's decision for this caller (TestNotFound for an unknown test); the participant's
    stored screener result is read with the test's other rows."""
    # A visitor without an account whom a partner's verified link admitted (portal/services/partners.py).
    admitted = (
        account_id is None
        and isinstance(test_id, int)
        and partners.admitted(session, test_id=test_id, respondent=respondent)
    )
    return test_loading.load_test(
        session=session,
        test_id=test_id,
        account_id=account_id,
        respondent_project_id=project_of(respondent),
        now=now,
        partner_admitted=admitted,
    )


def require(
    session: Session,
    *,
    test_id: Any,
    account_id: int | None,
    respondent: str | None = None,
    view: str,
    now: datetime | None = None,
    decided: TestLoad | None = None,
) -> TestLoad:
    """The decision when this caller may take the test on `view` now; else AccessDenied with the
    access state's message (nothing is stored by the caller). `decided`: this very decision
    (`decide` for this test and caller) already made in the same transaction by the server, which
    is then not read again (services.rating_page: the page's access decision, then the entry)."""
    try:
        load = (
            decided
            if decided is not None
            else decide(session=session, test_id=test_id, account_id=account_id, respondent=respondent, now=now)
        )
    except TestNotFound:
        raise AccessDenied(access.MSG_NOT_THIS_KIND) from None
    message = access.take_refusal(load.state, load.view, view, load.test_id)
    if message is not None:
        raise AccessDenied(message, state=load.state)
    if not kinds.kind_of(load.product_type).taken_in_portal:  # e.g. a video test: nothing to take here
        raise AccessDenied(access.MSG_NOT_THIS_KIND, state=load.state)
    return load


def require_place(session: Session, *, test_id: int, account_id: int | None, respondent: str) -> None:
    """At submission: the quota, counted on stored reviews with the test locked."""
    state = test_loading.submission_quota_state(
        session=session, test_id=test_id, account_id=account_id, own_key=respondent
    )
    if state != access.OK:
        message = access.access_message(state, test_id)
        raise AccessDenied(message.text if message else access.MSG_NOT_THIS_KIND, state=state)
