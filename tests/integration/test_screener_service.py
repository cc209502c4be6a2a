"""The screener service (portal/services/taking/screener.py) on a migrated database."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, func, select

from portal.models import ScreenerResponse, Test
from portal.services.definition_import import import_test
from portal.services.errors import ServiceError
from portal.services.taking import screener as service
from portal.services.taking.review_sessions import respondent_key
from tests.support.factories import make_participant
from tests.support.races import second_waits_for_first

ROOT = Path(__file__).resolve().parents[2]
DEMO = json.loads((ROOT / "portal/data/demo_tests/07-screener.json").read_text())
MATRIX = {
    "type": "matrix",
    "question": "How often do you use these?",
    "rows": ["ERP", "CRM"],
    "columns": ["Never", "Monthly", "Daily"],
    "correctMatrix": [[1, 2], [2]],
}


def responses(session: Session) -> int:
    return session.exec(select(func.count()).select_from(ScreenerResponse)).one()


def submit(session: Session, test: Test, account_id: int, raw: Any) -> bool:
    return service.submit(
        session=session,
        test_id=test.id,
        account_id=account_id,
        respondent_key=respondent_key(account_id),
        raw_selection=raw,
    )


@pytest.fixture
def world(session: Session):
    test = import_test(session, DEMO)
    a = make_participant(session)
    b = make_participant(session)
    session.commit()
    return test, a, b


def test_public_view_hides_the_correct_answers_and_none_means_no_screener(session: Session, world):
    test, a, _b = world
    view = service.public_view(session=session, test_id=test.id)
    assert [answer["text"] for answer in view["answers"]] == [a_["text"] for a_ in DEMO["screenerQuestion"]["answers"]]
    assert "isCorrect" not in json.dumps(view)
    plain = import_test(session, {**copy.deepcopy(DEMO), "name": "No screener", "screenerQuestion": None})
    assert service.public_view(session=session, test_id=plain.id) is None
    assert service.public_view(session=session, test_id=10**9) is None
    loaded = service.load(session=session, test_id=test.id, respondent_key=respondent_key(a.id))
    assert loaded == service.ScreenerView(screener=view, passed=None)


def test_one_response_per_participant_a_second_submit_keeps_the_first_result(session: Session, world):
    test, a, b = world
    key = respondent_key(a.id)
    assert service.get_result(session=session, test_id=test.id, respondent_key=key) is None
    assert submit(session, test, a.id, 1) is False  # judged on the server: answer 1 is not correct
    session.commit()
    assert submit(session, test, a.id, 0) is False  # the correct answer now: the first result stands
    session.commit()
    assert responses(session) == 1
    row = session.exec(select(ScreenerResponse)).one()
    assert (row.account_id, row.respondent_key, row.is_passed) == (a.id, key, False)
    assert row.selected_answers == {"type": "single", "answers": [1]}
    assert service.get_result(session=session, test_id=test.id, respondent_key=key) is False
    assert service.load(session=session, test_id=test.id, respondent_key=key).passed is False
    # Another account is independent.
    assert submit(session, test, b.id, 0) is True
    session.commit()
    assert service.get_result(session=session, test_id=test.id, respondent_key=respondent_key(b.id)) is True
    assert submit(session, test, b.id, 2) is True
    assert responses(session) == 2


@pytest.mark.parametrize("raw", [5, "²", True, 1.0, [0], {"0": [0]}, "0; drop table", None, [], -1])
def test_garbage_and_incomplete_answers_are_refused_and_nothing_stored(session: Session, world, raw: Any):
    test, a, _b = world
    with pytest.raises(ServiceError) as err:
        submit(session, test, a.id, raw)
    assert err.value.message in (service.MSG_BAD_ANSWER, service.MSG_NOT_ANSWERED)
    session.commit()
    assert responses(session) == 0
    assert submit(session, test, a.id, 0) is True  # the refusal did not count as the response


def test_matrix_is_judged_per_row_and_incomplete_matrices_refused(session: Session, world):
    _test, a, b = world
    test = import_test(session, {**copy.deepcopy(DEMO), "name": "Matrix", "screenerQuestion": MATRIX})
    with pytest.raises(ServiceError) as err:
        submit(session, test, a.id, {"0": [1]})
    assert err.value.message == service.MSG_INCOMPLETE
    with pytest.raises(ServiceError):
        submit(session, test, a.id, {"0": [1, 2], "1": [2]})  # one answer per row
    assert responses(session) == 0
    assert submit(session, test, a.id, {"0": [2], "1": [2]}) is True
    assert submit(session, test, b.id, {0: [0], 1: [2]}) is False
    session.commit()
    rows = {r.account_id: r for r in session.exec(select(ScreenerResponse))}
    assert rows[a.id].selected_answers == {"type": "matrix", "selections": {"0": [2], "1": [2]}}
    assert rows[b.id].is_passed is False


def test_refusals_for_tests_without_screener_closed_tests_and_foreign_keys(session: Session, world):
    test, a, b = world
    plain = import_test(session, {**copy.deepcopy(DEMO), "name": "No screener", "screenerQuestion": None})
    with pytest.raises(ServiceError) as err:
        submit(session, plain, a.id, 0)
    assert err.value.message == service.MSG_NO_SCREENER
    closed = import_test(session, {**copy.deepcopy(DEMO), "name": "Closed", "status": "completed"})
    with pytest.raises(ServiceError) as err:
        submit(session, closed, a.id, 0)
    assert err.value.message == service.MSG_NO_TEST
    for test_id in (10**9, "1", None, True):
        with pytest.raises(ServiceError):
            service.submit(
                session=session, test_id=test_id, account_id=a.id, respondent_key=respondent_key(a.id), raw_selection=0
            )
    # An account cannot answer under another participant's key.
    with pytest.raises(ServiceError):
        service.submit(
            session=session, test_id=test.id, account_id=a.id, respondent_key=respondent_key(b.id), raw_selection=0
        )
    with pytest.raises(ServiceError):
        service.submit(session=session, test_id=test.id, account_id=None, respondent_key="x" * 301, raw_selection=0)
    session.commit()
    assert responses(session) == 0


def test_concurrent_first_submissions_store_one_response(db_url: str, session: Session, world):
    if not db_url.startswith("postgres"):
        pytest.skip("concurrent transactions: PostgreSQL only")
    test, a, _b = world
    first, results = second_waits_for_first(
        db_url, lambda s: submit(s, test, a.id, 1), lambda s: submit(s, test, a.id, 0)
    )
    assert first is False and results == [False]
    session.expire_all()
    assert responses(session) == 1
