"""Migration 0007 (staff admin) on a database that already has reviews, rewards, invites and change
requests: every row kept, the decisions backfilled as the migration's docstring says, the audit log
append-only; downgrade keeps the rows, and upgrading again works.

On SQLite and PostgreSQL: migrated to 0006, filled through its own (reflected) tables.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from alembic import command
from portal.db import make_engine
from portal.services import rewards as participant_rewards
from portal.services.admin import change_requests, reviews
from tests.integration.test_migration_0005 import _config
from tests.support.services import fresh_postgres

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
PAID_ON = NOW + timedelta(days=3)
STAFF, PARTICIPANT = 1, 2
PAID_REVIEW, PENDING_REVIEW, FAILED_REVIEW = 101, 102, 103
PAID_REWARD, PENDING_REWARD, FAILED_REWARD = 201, 202, 203
STAFF_REQUEST, PARTICIPANT_REQUEST = 301, 302
OLD_TABLES = ("account", "test", "review", "reward", "invite", "review_session", "profile_change_request")
ADDED_COLUMNS = {
    "review": {"status", "decided_at", "decided_by_id", "reject_reason", "reject_note"},
    "reward": {"approved_at"},
    "profile_change_request": {"previous", "status", "decided_at", "decided_by_id"},
    "invite": {"batch_id"},
}
ADDED_INDEXES = {
    "review": {"ix_review_test_created", "ix_review_status_created"},
    "reward": {"ix_reward_status_created"},
    "review_session": {"ix_review_session_status_deadline"},
    "profile_change_request": {"ix_profile_change_request_status_created"},
    "account": {"ix_account_created_id"},
}


@pytest.fixture(params=["sqlite", "postgres"])
def url_at_0006(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'old.db'}" if request.param == "sqlite" else fresh_postgres()
    command.upgrade(_config(url), "0006")
    return url


def _fill_at_0006(engine: sa.Engine) -> None:
    """A staff member and a participant, three tests, a paid, a pending and a failed reward, an invite,
    a started test, and a staff-made and a participant-made change request."""
    meta = sa.MetaData()
    meta.reflect(engine, only=list(OLD_TABLES))
    t = meta.tables
    with engine.begin() as conn:
        for account_id, role in ((STAFF, "super-admin"), (PARTICIPANT, None)):
            conn.execute(
                t["account"]
                .insert()
                .values(
                    id=account_id,
                    email=f"old-{account_id}@example.com",
                    is_registration_complete=True,
                    stage="completed",
                    verified=True,
                    staff_role=role,
                    is_subscribed_to_referral=False,
                    created_at=NOW,
                    updated_at=NOW,
                    signup_tracking={},
                )
            )
        for test_id in (10, 11, 12):
            conn.execute(
                t["test"]
                .insert()
                .values(
                    id=test_id,
                    name=f"Old study {test_id}",
                    status="running",
                    panel="b2b",
                    product_type="survey",
                    audience_country="US",
                    welcome_modal={},
                    survey={"questions": [{"key": "q1", "type": "text", "text": "Why?"}]},
                    questions={},
                    selected_areas=[],
                    preference_test={},
                    is_freemium=False,
                    session_seconds=3600,
                    seniority_limits={},
                    is_surveys_conditional_enabled=True,
                    payout_cents=1500,
                    created_at=NOW,
                    updated_at=NOW,
                )
            )
        rows = (
            (PAID_REVIEW, PAID_REWARD, 10, "EXECUTED", PAID_ON),
            (PENDING_REVIEW, PENDING_REWARD, 11, "PENDING", None),
            (FAILED_REVIEW, FAILED_REWARD, 12, "FAILED", None),
        )
        for n, (review_id, reward_id, test_id, status, paid_on) in enumerate(rows, start=1):
            conn.execute(
                t["review"]
                .insert()
                .values(
                    id=review_id,
                    test_id=test_id,
                    account_id=PARTICIPANT,
                    respondent_key=f"account:{PARTICIPANT}",
                    kind="survey",
                    answers={"q1": {"value": f"Answer {n}"}},
                    worker_data={},
                    options_order=[],
                    signals={},
                    created_at=NOW + timedelta(hours=n),
                )
            )
            conn.execute(
                t["reward"]
                .insert()
                .values(
                    id=reward_id,
                    review_id=review_id,
                    account_id=PARTICIPANT,
                    amount_cents=1000 + n,
                    status=status,
                    paid_on=paid_on,
                    created_at=NOW + timedelta(hours=n),
                    test_id=test_id,
                    product_type="survey",
                )
            )
        conn.execute(
            t["invite"]
            .insert()
            .values(
                id=401,
                account_id=PARTICIPANT,
                test_id=10,
                status="completed",
                amount_cents=1500,
                created_at=NOW,
                expires_at=NOW + timedelta(hours=24),
            )
        )
        conn.execute(
            t["review_session"]
            .insert()
            .values(
                id=501,
                test_id=11,
                account_id=PARTICIPANT,
                respondent_key=f"account:{PARTICIPANT}",
                started_at=NOW,
                deadline_at=NOW + timedelta(hours=1),
                extensions=0,
                status="submitted",
                draft_answers={},
                draft_position={},
                updated_at=NOW,
            )
        )
        for request_id, by_admin, hours in ((STAFF_REQUEST, True, 5), (PARTICIPANT_REQUEST, False, 6)):
            conn.execute(
                t["profile_change_request"]
                .insert()
                .values(
                    id=request_id,
                    account_id=PARTICIPANT,
                    payload={"firstName": f"Name {request_id}", "updatedByAdmin": by_admin},
                    updated_by_admin=by_admin,
                    created_at=NOW + timedelta(hours=hours),
                )
            )


def _rows(engine: sa.Engine, table: str, columns: set[str] | None = None) -> dict[int, dict[str, Any]]:
    """Every row of a table by id: the given columns, or all of them."""
    with engine.connect() as conn:
        result = conn.execute(sa.text(f"SELECT * FROM {table} ORDER BY id")).mappings().all()
    return {
        row["id"]: {
            k: (_json(v) if k in ("previous", "payload") else v)
            for k, v in row.items()
            if columns is None or k in columns
        }
        for row in result
    }


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _old_columns(engine: sa.Engine) -> dict[str, set[str]]:
    inspector = sa.inspect(engine)
    return {table: {c["name"] for c in inspector.get_columns(table)} for table in OLD_TABLES}


def _snapshot(engine: sa.Engine, columns: dict[str, set[str]]) -> dict[str, dict[int, dict[str, Any]]]:
    return {table: _rows(engine, table, columns[table]) for table in OLD_TABLES}


def _check_backfill(engine: sa.Engine) -> None:
    reviews_ = _rows(engine, "review")
    rewards_ = _rows(engine, "reward")
    # A paid reward's review was accepted when it was paid; the reward was payable from then.
    assert reviews_[PAID_REVIEW]["status"] == "approved"
    assert reviews_[PAID_REVIEW]["decided_at"] == rewards_[PAID_REWARD]["paid_on"] is not None
    assert rewards_[PAID_REWARD]["approved_at"] == rewards_[PAID_REWARD]["paid_on"]
    for review_id, reward_id in ((PENDING_REVIEW, PENDING_REWARD), (FAILED_REVIEW, FAILED_REWARD)):
        assert reviews_[review_id]["status"] == "submitted" and reviews_[review_id]["decided_at"] is None
        assert rewards_[reward_id]["approved_at"] is None
    for review in reviews_.values():
        assert (review["decided_by_id"], review["reject_reason"], review["reject_note"]) == (None, None, None)
    requests = _rows(engine, "profile_change_request")
    staff, mine = requests[STAFF_REQUEST], requests[PARTICIPANT_REQUEST]
    assert (staff["status"], staff["decided_at"]) == ("approved", staff["created_at"])
    assert (mine["status"], mine["decided_at"]) == ("pending", None)
    assert staff["previous"] == mine["previous"] == {}
    assert staff["decided_by_id"] is None and mine["decided_by_id"] is None
    assert _rows(engine, "invite")[401]["batch_id"] is None
    inspector = sa.inspect(engine)
    assert {"invite_batch", "audit_log"} <= set(inspector.get_table_names())
    for table, names in ADDED_INDEXES.items():
        assert names <= {i["name"] for i in inspector.get_indexes(table)}, table


def _check_the_portal_reads_it(engine: sa.Engine) -> None:
    """The staff pages and the participant's rewards read the upgraded rows."""
    with Session(engine, expire_on_commit=False) as session:
        page = reviews.list_reviews(session=session, actor_id=STAFF, query=reviews.clean_query())
        assert {r["id"]: r["status"] for r in page.rows} == {
            str(PAID_REVIEW): "approved",
            str(PENDING_REVIEW): "submitted",
            str(FAILED_REVIEW): "submitted",
        }
        pending = change_requests.list_pending(session=session, actor_id=STAFF)
        assert [r["id"] for r in pending.rows] == [str(PARTICIPANT_REQUEST)]
        assert pending.rows[0]["changes"] == [{"field": "Changes", "old": "not recorded", "new": "see profile"}]
        rows = participant_rewards.list_rewards(
            session=session, account_id=PARTICIPANT, query=participant_rewards.clean_query()
        ).rows
        assert {r["id"]: r["stage"] for r in rows} == {
            str(PAID_REWARD): "Paid",
            str(PENDING_REWARD): "Submitted",
            str(FAILED_REWARD): "Failed",
        }
        session.rollback()


def _check_audit_log_is_append_only(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO audit_log (created_at, actor_id, actor_email, actor_role, action, target_type, target_id, "
                "before, after) "
                "VALUES (CURRENT_TIMESTAMP, 1, 'old-1@example.com', 'super-admin', 'participant.verify', 'account', "
                "'2', '{}', '{}')"
            )
        )
    for statement in ("UPDATE audit_log SET action = 'x'", "DELETE FROM audit_log"):
        with pytest.raises(sa.exc.DBAPIError, match="append-only"), engine.begin() as conn:
            conn.execute(sa.text(statement))
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT action FROM audit_log")).scalars().all() == ["participant.verify"]


def test_upgrade_keeps_every_row_and_backfills_the_decisions(url_at_0006: str) -> None:
    engine = make_engine(url_at_0006)
    try:
        _fill_at_0006(engine)
        old_columns = _old_columns(engine)
        before = _snapshot(engine, old_columns)
        assert [len(before[t]) for t in OLD_TABLES] == [2, 3, 3, 3, 1, 1, 2]

        command.upgrade(_config(url_at_0006), "0007")

        assert _snapshot(engine, old_columns) == before
        columns = _old_columns(engine)
        for table, added in ADDED_COLUMNS.items():
            assert columns[table] - old_columns[table] == added, table
        _check_backfill(engine)
        _check_audit_log_is_append_only(engine)
        command.upgrade(_config(url_at_0006), "head")  # the portal of today reads the rows at the newest schema
        _check_the_portal_reads_it(engine)

        command.downgrade(_config(url_at_0006), "0006")

        assert _snapshot(engine, old_columns) == before
        assert _old_columns(engine) == old_columns
        inspector = sa.inspect(engine)
        assert not {"invite_batch", "audit_log"} & set(inspector.get_table_names())
        for table, names in ADDED_INDEXES.items():
            assert not names & {i["name"] for i in inspector.get_indexes(table)}, table

        command.upgrade(_config(url_at_0006), "0007")

        assert _snapshot(engine, old_columns) == before
        _check_backfill(engine)
        _check_audit_log_is_append_only(engine)  # the triggers (and PostgreSQL's function) are made again
        command.upgrade(_config(url_at_0006), "head")
        _check_the_portal_reads_it(engine)
    finally:
        engine.dispose()


def test_decisions_made_after_the_upgrade_survive_a_downgrade_of_their_columns_only(url_at_0006: str) -> None:
    """Downgrade drops the added columns and tables, never the rows that were there before."""
    engine = make_engine(url_at_0006)
    try:
        _fill_at_0006(engine)
        command.upgrade(_config(url_at_0006), "head")
        with Session(engine, expire_on_commit=False) as session:
            assert (
                reviews.decide(
                    session=session, actor_id=STAFF, review_ids=[PENDING_REVIEW], approve=False, reason="low-effort"
                )
                == 1
            )
            assert (
                change_requests.decide(session=session, actor_id=STAFF, request_id=PARTICIPANT_REQUEST, approve=True)
                == "approved"
            )
            session.commit()
        assert _rows(engine, "reward", {"status"})[PENDING_REWARD] == {"status": "CANCELED"}

        command.downgrade(_config(url_at_0006), "0006")

        assert set(_rows(engine, "review")) == {PAID_REVIEW, PENDING_REVIEW, FAILED_REVIEW}
        assert _rows(engine, "reward", {"status"})[PENDING_REWARD] == {"status": "CANCELED"}
        assert set(_rows(engine, "profile_change_request")) == {STAFF_REQUEST, PARTICIPANT_REQUEST}
    finally:
        engine.dispose()
