"""The screener of a test: what the participant sees, their one response, and its result.

The answer is judged here, on the server, with the stored screener (correct answers included);
the browser only ever sees `portal.domain.taking.screener.public_screener()`.

One response per participant and test (unique constraint on test_id and respondent_key): the
first submission is kept; a later one, from a retry, another tab or a second try after failing,
returns the first result and stores nothing. Two concurrent first submissions meet at the
unique constraint; the loser reads and returns the winner's result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from portal.domain.ids import whole_number
from portal.domain.taking import screener as rules
from portal.domain.taking.access import SCREENER, TAKING_STATUS
from portal.domain.taking.access import respondent_key as account_key
from portal.models import ScreenerResponse, Test
from portal.services.errors import ServiceError
from portal.services.taking import access as take_access

MAX_KEY_LENGTH = 300

MSG_NO_TEST = "This test is not available."
MSG_NO_SCREENER = "This test has no screening question."
MSG_BAD_ANSWER = "The answer could not be read. Please reload the page."
MSG_INCOMPLETE = "Please answer every statement."
MSG_NOT_ANSWERED = "Please choose an answer."


@dataclass(frozen=True)
class ScreenerView:
    """The screener as the browser may see it (None: the test has none) and the participant's
    result so far (None: not answered yet)."""

    screener: dict[str, Any] | None
    passed: bool | None


def _test_id(test_id: Any) -> int | None:
    return whole_number(test_id) if isinstance(test_id, int) and not isinstance(test_id, bool) else None


def _key(respondent_key: Any) -> str:
    if not isinstance(respondent_key, str) or not respondent_key or len(respondent_key) > MAX_KEY_LENGTH:
        raise ServiceError(MSG_BAD_ANSWER)
    return respondent_key


def _public(test: Test | None) -> dict[str, Any] | None:
    if test is None or not test.screener_question:
        return None
    try:
        return rules.public_screener(test.screener_question)
    except ValueError:
        return None  # a malformed stored screener is treated as none (import validates it)


def get_result(session: Session, *, test_id: int, respondent_key: str) -> bool | None:
    """The participant's screener result for the test; None when they have not answered yet."""
    number = _test_id(test_id)
    if number is None or not isinstance(respondent_key, str):
        return None
    return session.exec(
        select(ScreenerResponse.is_passed).where(
            ScreenerResponse.test_id == number, ScreenerResponse.respondent_key == respondent_key
        )
    ).first()


def public_view(session: Session, *, test_id: int) -> dict[str, Any] | None:
    """The test's screener without its correct answers, or None (no such test, or no screener)."""
    number = _test_id(test_id)
    return _public(session.get(Test, number) if number is not None else None)


def load(session: Session, *, test_id: int, respondent_key: str) -> ScreenerView:
    """What the screener view shows: the public screener and the participant's result so far."""
    return ScreenerView(
        screener=public_view(session=session, test_id=test_id),
        passed=get_result(session=session, test_id=test_id, respondent_key=respondent_key),
    )


def submit(session: Session, *, test_id: int, account_id: int | None, respondent_key: str, raw_selection: Any) -> bool:
    """Judge and keep the participant's answer; True when it passes.

    The first response is final: a participant who already answered gets that result back
    and nothing is stored. Refusals (ServiceError, nothing stored): no such running test, no
    screener, a participant who may not take the test now (take_access.AccessDenied), an answer
    that cannot be read (shape, type or range), an incomplete answer. `account_id` must be the
    owner of `respondent_key` ('account:<id>').
    """
    key = _key(respondent_key)
    # Only signed-in participants are screened (domain/screener.applies), under their own key.
    if account_id is None or whole_number(account_id) is None or key != account_key(account_id):
        raise ServiceError(MSG_BAD_ANSWER)
    number = _test_id(test_id)
    test = session.get(Test, number) if number is not None else None
    if test is None or test.status != TAKING_STATUS:
        raise ServiceError(MSG_NO_TEST)
    screener = test.screener_question
    if screener is None or _public(test) is None:
        raise ServiceError(MSG_NO_SCREENER)
    earlier = get_result(session=session, test_id=test.id, respondent_key=key)
    if earlier is not None:
        return earlier
    # Screened only while they may take the test now (invite, verification, status, quotas ...).
    take_access.require(session=session, test_id=test.id, account_id=account_id, view=SCREENER)
    try:
        selection = rules.parse_selection(screener, raw_selection)
    except ValueError:
        raise ServiceError(MSG_BAD_ANSWER, field="selectedAnswers") from None
    if not rules.can_confirm(screener, selection):
        message = MSG_INCOMPLETE if screener.get("type") == rules.MATRIX else MSG_NOT_ANSWERED
        raise ServiceError(message, field="selectedAnswers")
    passed = rules.judge(screener, selection)
    try:
        with session.begin_nested():
            session.add(
                ScreenerResponse(
                    test_id=test.id,
                    account_id=account_id,
                    respondent_key=key,
                    selected_answers=rules.stored_answers(screener, selection),
                    is_passed=passed,
                )
            )
            session.flush()
    except IntegrityError:  # a concurrent first submission was stored first: its result stands
        earlier = get_result(session=session, test_id=test.id, respondent_key=key)
        if earlier is None:
            raise
        return earlier
    return passed
