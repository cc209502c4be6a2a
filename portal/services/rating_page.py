"""Opening /test/{id}/rate: who is asking, the screener result, and what the page shows.

One transaction: the participant is resolved from the session token, a Restart asked for after
an expired session sets that session aside, then test_loading decides the access state and view.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from portal.services import review_sessions, screener, test_loading
from portal.services.sessions import resolve_user
from portal.services.test_loading import TestLoad


def open_test(*, session: Session, token: str | None, test_id: Any, respondent_project_id: str | None = None,
              restart: bool = False, completed: bool = False, now: datetime | None = None) -> TestLoad:
    """What /test/{id}/rate shows to this visitor (TestNotFound for an unknown id)."""
    user = resolve_user(session=session, token=token)
    account_id = user.account_id if user else None
    if account_id is not None and restart and isinstance(test_id, int):
        review_sessions.restart(session=session, test_id=test_id, account_id=account_id, now=now)
    passed = False
    if account_id is not None and isinstance(test_id, int):
        passed = bool(screener.get_result(session=session, test_id=test_id,
                                          respondent_key=review_sessions.respondent_key(account_id)))
    return test_loading.load_test(session=session, test_id=test_id, account_id=account_id,
                                  respondent_project_id=respondent_project_id, screener_passed=passed,
                                  completed=completed is True, now=now)
