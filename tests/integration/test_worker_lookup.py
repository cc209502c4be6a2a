"""The worker look-up (portal/services/taking/workers.py) on a migrated database (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from portal.models import Review, Test
from portal.services.definition_import import import_test
from portal.services.taking import workers

ROOT = Path(__file__).resolve().parents[2]
DEMO = json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text())
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
FULL = {
    "workerId": "A1WORKER",
    "firstName": "Sam",
    "lastName": "Secret",
    "state": "US-TX",
    "country": "US",
    "email": "sam@example.com",
    "paymentEmail": "pay@example.com",
    "phoneNumber": "+14155550134",
    "linkedin": "https://www.linkedin.com/in/sam",
    "jobTitle": "CTO",
    "submissionId": "s1",
}


@pytest.fixture
def tests_(session: Session) -> list[Test]:
    made = []
    for n in range(3):
        made.append(import_test(session, {**DEMO, "name": f"Demo {n}"}))
    session.commit()
    return made


def add_review(session: Session, test: Test, key: str, worker_data: dict[str, Any], at: datetime) -> Review:
    review = Review(
        test_id=test.id, respondent_key=key, kind="survey", answers={}, worker_data=worker_data, created_at=at
    )
    session.add(review)
    session.commit()
    return review


def test_lookup_by_worker_id_returns_the_latest_reviews_first_name_and_state_only(session: Session, tests_):
    add_review(session, tests_[0], "worker:A1WORKER", {**FULL, "firstName": "Old", "state": "US-CA"}, T0)
    add_review(session, tests_[1], "worker:A1WORKER", FULL, T0 + timedelta(days=2))
    add_review(
        session, tests_[2], "worker:OTHER", {**FULL, "workerId": "OTHER", "firstName": "Kim"}, T0 + timedelta(days=3)
    )
    found = workers.lookup(session=session, worker_id=" A1WORKER ")
    assert found == {"workerId": "A1WORKER", "firstName": "Sam", "state": "US-TX"}


def test_the_latest_review_wins_by_date_not_by_insertion_order(session: Session, tests_):
    add_review(session, tests_[0], "worker:A1WORKER", {**FULL, "firstName": "Newer"}, T0 + timedelta(days=5))
    add_review(session, tests_[1], "worker:A1WORKER", {**FULL, "firstName": "Older"}, T0)
    assert workers.lookup(session=session, worker_id="A1WORKER")["firstName"] == "Newer"


def test_a_review_with_only_the_worker_id_reveals_only_the_id(session: Session, tests_):
    add_review(session, tests_[0], "worker:B2", {"workerId": "B2", "firstName": 7, "state": "  "}, T0)
    assert workers.lookup(session=session, worker_id="B2") == {"workerId": "B2"}


def test_unknown_worker_id_and_an_empty_table_give_none(session: Session, tests_):
    assert workers.lookup(session=session, worker_id="A1WORKER") is None
    add_review(session, tests_[0], "worker:A1WORKER", FULL, T0)
    assert workers.lookup(session=session, worker_id="NOBODY") is None
    # the worker ID is matched exactly, not as a prefix or in another key
    assert workers.lookup(session=session, worker_id="A1WORK") is None
    assert workers.lookup(session=session, worker_id="Sam") is None


def test_lookup_by_email_never_reveals_anything(session: Session, tests_):
    add_review(session, tests_[0], "worker:A1WORKER", FULL, T0)
    assert workers.lookup(session=session, email="sam@example.com") is None
    assert workers.lookup(session=session, email="SAM@example.com ") is None


def test_two_keys_or_none_give_none(session: Session, tests_):
    add_review(session, tests_[0], "worker:A1WORKER", FULL, T0)
    assert workers.lookup(session=session, worker_id="A1WORKER", email="sam@example.com") is None
    assert workers.lookup(session=session) is None


@pytest.mark.parametrize(
    "bad", ["", "   ", "A1WORKER' OR '1'='1", "A1 WORKER", "x" * 65, 42, ["A1WORKER"], {"$ne": ""}, True]
)
def test_garbage_gives_none(session: Session, tests_, bad):
    add_review(session, tests_[0], "worker:A1WORKER", FULL, T0)
    assert workers.lookup(session=session, worker_id=bad) is None
    assert workers.lookup(session=session, email=bad) is None


def test_only_the_newest_reviews_are_searched(session: Session, tests_, monkeypatch):
    add_review(session, tests_[0], "worker:A1WORKER", FULL, T0)
    add_review(session, tests_[1], "worker:C3", {"workerId": "C3"}, T0 + timedelta(days=1))
    add_review(session, tests_[2], "worker:D4", {"workerId": "D4"}, T0 + timedelta(days=2))
    monkeypatch.setattr(workers, "LOOKUP_WINDOW", 2)
    assert workers.lookup(session=session, worker_id="A1WORKER") is None
    assert workers.lookup(session=session, worker_id="C3") == {"workerId": "C3"}
