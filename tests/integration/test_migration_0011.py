"""Migration 0011 on a database that already has tests, reviews (decided ones among them), rewards and an appeal:
the review_flag and quality_run tables and the index of reviews by decision time are added, nothing else changes,
the new tables hold what the flags job writes (one flag of a kind per review, one run per test) and are read back by
its readers, and the downgrade keeps every row too.

On SQLite and PostgreSQL: filled at 0004 and 0010 through their own (reflected) tables, upgraded to 0011 and
downgraded to 0010 again.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from alembic import command
from portal.db import make_engine
from portal.models import QualityRun, ReviewFlag
from portal.services import quality_flags
from tests.integration.test_migration_0005 import NOW, _config, _fill_at_0004, _rewards
from tests.integration.test_migration_0006 import _reviews
from tests.integration.test_migration_0009 import _rows
from tests.integration.test_migration_0010 import _decide_some
from tests.support.services import fresh_postgres

REVIEW_COLUMNS = (
    "test_id",
    "account_id",
    "kind",
    "answers",
    "signals",
    "status",
    "reject_reason",
    "reject_note",
    "reject_flags",
    "reject_evidence",
    "decided_at",
    "decided_by_id",
    "version_id",
)
REWARD_COLUMNS = ("review_id", "amount_cents", "status", "approved_at")
APPEALS = "SELECT id, review_id, account_id, message, status FROM review_appeal ORDER BY id"
TESTS = "SELECT id, name, status, product_type, payout_cents FROM test ORDER BY id"


@pytest.fixture(params=["sqlite", "postgres"])
def url_at_0004(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'old.db'}" if request.param == "sqlite" else fresh_postgres()
    command.upgrade(_config(url), "0004")
    return url


def _at_0010(engine: sa.Engine, url: str) -> list[int]:
    """Filled at 0004, upgraded to 0010, two reviews decided (one rejected with its evidence) and an appeal of the
    rejected one: the review ids."""
    _fill_at_0004(engine)
    command.upgrade(_config(url), "0010")
    ids = _decide_some(engine)
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "UPDATE review SET reject_flags = :flags, reject_evidence = 'Finished in 43 s', "
                "signals = :signals WHERE id = :id"
            ),
            {"flags": '["speeder"]', "signals": '{"question:q1": 12.5}', "id": ids[0]},
        )
        conn.execute(
            sa.text(
                "INSERT INTO review_appeal (review_id, account_id, message, created_at, status) "
                "SELECT id, account_id, 'I read every question.', :now, 'open' FROM review WHERE id = :id"
            ),
            {"now": NOW, "id": ids[0]},
        )
    return ids


def _snapshot(engine: sa.Engine) -> tuple:
    return (
        _reviews(engine, *REVIEW_COLUMNS),
        _rewards(engine, *REWARD_COLUMNS),
        _rows(engine, APPEALS),
        _rows(engine, TESTS),
    )


def test_the_flag_tables_are_added_and_nothing_is_lost_either_way(url_at_0004: str) -> None:
    engine = make_engine(url_at_0004)
    try:
        ids = _at_0010(engine, url_at_0004)
        before = _snapshot(engine)
        reviews, rewards, appeals, tests = before
        assert len(ids) >= 2 and rewards and tests
        assert appeals and appeals[0][1:] == (ids[0], reviews[ids[0]][1], "I read every question.", "open")
        assert reviews[ids[0]][5] == "rejected"

        command.upgrade(_config(url_at_0004), "0011")

        assert _snapshot(engine) == before
        inspector = sa.inspect(engine)
        assert {"review_flag", "quality_run"} <= set(inspector.get_table_names())
        assert "ix_review_decided_at" in {i["name"] for i in inspector.get_indexes("review")}
        assert "ix_review_flag_key_review" in {i["name"] for i in inspector.get_indexes("review_flag")}
        assert _rows(engine, "SELECT count(*) FROM review_flag") == [(0,)]
        assert _rows(engine, "SELECT count(*) FROM quality_run") == [(0,)]

        # What the flags job writes, through the models, read back by its readers.
        test_id = reviews[ids[0]][0]
        with Session(engine) as session:
            session.add(ReviewFlag(review_id=ids[0], key="speeder", label="Finished in 43 s", strength=3.0, value=43))
            session.add(
                ReviewFlag(review_id=ids[0], key="pasted", label="Pasted 90%", strength=1.5, value=90, median=None)
            )
            session.add(
                QualityRun(
                    test_id=test_id,
                    round=1,
                    reviews=len(reviews),
                    last_review_id=max(ids),
                    computed_at=NOW,
                    medians={"total": 600.0},
                )
            )
            session.commit()
            found = quality_flags.flags_of(session, [ids[0], ids[-1]])
            assert {k: [f.key for f in v] for k, v in found.items()} == {ids[0]: ["speeder", "pasted"]}
            checked = quality_flags.checked(session, test_id)
            assert (checked.at, checked.medians, checked.covers(ids[0])) == (NOW, {"total": 600.0}, True)

        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:  # one flag of a kind per review
            conn.execute(
                sa.text(
                    "INSERT INTO review_flag (review_id, key, label, strength, value) "
                    "VALUES (:id, 'speeder', 'again', 1.0, 1.0)"
                ),
                {"id": ids[0]},
            )
        with engine.begin() as conn:  # the same kind on another review is fine
            conn.execute(
                sa.text(
                    "INSERT INTO review_flag (review_id, key, label, strength, value) "
                    "VALUES (:id, 'speeder', 'Finished in 50 s', 2.0, 50.0)"
                ),
                {"id": ids[-1]},
            )
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:  # one run per test
            conn.execute(
                sa.text(
                    "INSERT INTO quality_run (test_id, round, reviews, last_review_id, medians) "
                    "VALUES (:t, 1, 0, 0, '{}')"
                ),
                {"t": test_id},
            )
        assert _rows(engine, "SELECT count(*) FROM review_flag") == [(3,)]
        assert _rows(engine, "SELECT test_id, round FROM quality_run") == [(test_id, 1)]
        assert _snapshot(engine) == before  # the flags change no review, reward or appeal

        command.downgrade(_config(url_at_0004), "0010")

        assert _snapshot(engine) == before
        inspector = sa.inspect(engine)
        assert not {"review_flag", "quality_run"} & set(inspector.get_table_names())
        assert "ix_review_decided_at" not in {i["name"] for i in inspector.get_indexes("review")}

        command.upgrade(_config(url_at_0004), "0011")  # and up again, empty
        assert _rows(engine, "SELECT count(*) FROM review_flag") == [(0,)]
        assert _snapshot(engine) == before
    finally:
        engine.dispose()
