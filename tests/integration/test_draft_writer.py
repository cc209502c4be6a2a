"""The server draft written behind (portal/services/taking/draft_writer.py): batched, and never for a
session that is no longer active or past its deadline."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlmodel import Session

from portal.models import ReviewSession
from portal.services.definition_import import import_test
from portal.services.taking import review_sessions as rs
from portal.services.taking.draft_writer import Draft, write_drafts
from tests.support.factories import make_participant

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
ANSWER = {"involvement": {"type": "single-choice", "value": "decider"}}


def started(session: Session, test, *, now=NOW) -> ReviewSession:
    account = make_participant(session)
    row = rs.start_session(session=session, test_id=test.id, account_id=account.id, now=now)
    session.commit()
    return row


def test_drafts_are_written_in_one_batch_only_for_live_sessions(session: Session):
    test = import_test(session, json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text()))
    live = started(session, test)
    late = started(session, test, now=NOW - timedelta(hours=2))  # its hour ended an hour ago
    submitted = started(session, test)
    submitted.status = "submitted"
    session.add(submitted)
    session.commit()
    drafts = [Draft(row.id, row.respondent_key, ANSWER, {"index": 1, "rev": 3}) for row in (live, late, submitted)]
    assert write_drafts(session=session, drafts=drafts, now=NOW) == 1
    session.commit()
    session.expire_all()
    assert session.get(ReviewSession, live.id).draft_answers == ANSWER
    assert session.get(ReviewSession, live.id).draft_position == {"index": 1, "rev": 3}
    assert session.get(ReviewSession, late.id).draft_answers == {}
    assert session.get(ReviewSession, submitted.id).draft_answers == {}


def test_a_draft_naming_someone_elses_session_writes_nothing(session: Session):
    test = import_test(session, json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text()))
    theirs = started(session, test)
    intruder = make_participant(session)
    forged = Draft(theirs.id, rs.respondent_key(intruder.id), ANSWER, {"index": 1, "rev": 9})
    assert write_drafts(session=session, drafts=[forged], now=NOW) == 0
    session.commit()
    session.expire_all()
    assert session.get(ReviewSession, theirs.id).draft_answers == {}


def test_nothing_to_write_is_no_statement(session: Session):
    assert write_drafts(session=session, drafts=[], now=NOW) == 0
