"""The quality flags job (issue 36) from the outside, on SQLite and PostgreSQL: `python -m portal.cli quality-flags`
runs one round and says how many tests it computed; a decision on a participant's review of another test makes the
tests they reviewed due again, and the next round gives their review there the earlier-decisions flag; staff's
'Check flags now' writes nothing for anyone else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import event, func, select
from sqlmodel import Session

from portal.domain.staff import roles
from portal.models import QualityRun, Review, Test
from portal.services import quality_flags
from portal.services.admin import reviews
from portal.services.admin.guard import NOT_ALLOWED, StaffRefused
from portal.services.seeding import seed_reference
from tests.integration.test_admin_services import person
from tests.integration.test_quality_flags import keys, table
from tests.support import quality_reviews as q
from tests.support import results
from tests.support.people import demo_test

ROOT = Path(__file__).resolve().parents[2]


def quality_flags_cli(db_url: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "portal.cli", "quality-flags"],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": db_url},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def two_tests(session: Session) -> tuple[Test, Test, Review, Review]:
    """Two surveys, six honest reviews of the first; one participant reviewed both: (first test, second test,
    their review of the first, their review of the second)."""
    seed_reference(session)
    session.commit()
    first, second = demo_test(session, "01-survey.json"), demo_test(session, "01-survey.json")
    q.honest(session, first, 6)
    who = results.participant(session)
    mine = results.review(session, first, who, q.answers(q.HONEST_TEXTS[7]), kind="survey", minutes=10)
    mine.signals = {"question:last-purchase": 118.0, "typing:last-purchase": 92.0}
    session.add(mine)
    elsewhere = results.review(session, second, who, q.answers(q.HONEST_TEXTS[1]), kind="survey", minutes=9)
    session.commit()
    return first, second, mine, elsewhere


def runs(session: Session) -> dict[int, tuple[int, int]]:
    session.expire_all()
    return {t: (n, r) for t, n, r in session.execute(select(QualityRun.test_id, QualityRun.reviews, QualityRun.round))}


def test_the_cli_computes_each_due_test_once_and_says_how_many(db_url, session):
    first, second, mine, _ = two_tests(session)
    assert quality_flags.due_tests(session) == sorted([first.id, second.id])

    assert quality_flags_cli(db_url) == "Computed the quality flags of 2 tests."

    assert runs(session) == {first.id: (7, 1), second.id: (1, 1)}
    assert quality_flags.due_tests(session) == []
    assert keys(session, mine.id) == []
    assert quality_flags_cli(db_url) == "Computed the quality flags of 0 tests."
    assert runs(session) == {first.id: (7, 1), second.id: (1, 1)}  # nothing due: nothing computed again

    late = q.one(session, first, q.COPIED, minutes=1)
    assert quality_flags_cli(db_url) == "Computed the quality flags of 1 test."
    assert runs(session) == {first.id: (8, 2), second.id: (1, 1)}
    assert keys(session, late.id) == ["speeder"]


@pytest.mark.parametrize("reject", [True, False], ids=["rejected", "approved"])
def test_a_decision_on_another_test_makes_the_participants_tests_due_again(db_url, session, reject):
    first, second, mine, elsewhere = two_tests(session)
    staff = person(session, role=roles.TEAM_MANAGER)
    session.commit()
    assert quality_flags_cli(db_url) == "Computed the quality flags of 2 tests."
    assert quality_flags.due_tests(session) == []

    decided = reviews.decide(
        session=session,
        actor_id=staff.id,
        review_ids=[str(elsewhere.id)],
        approve=not reject,
        reason="low-effort" if reject else None,
    )
    session.commit()
    assert decided == 1

    # The test they reviewed besides the decided one is due again; the decided review's own test is not (its count
    # did not change and none of its participants was decided elsewhere).
    assert quality_flags.due_tests(session) == [first.id]
    assert quality_flags.due_tests(session, test_id=second.id) == []
    assert keys(session, mine.id) == []  # not until the next round

    assert quality_flags_cli(db_url) == "Computed the quality flags of 1 test."
    assert quality_flags.due_tests(session) == []
    assert runs(session) == {first.id: (7, 2), second.id: (1, 1)}
    session.expire_all()
    row = {r["id"]: r for r in table(session, staff.id, first.id).rows}[str(mine.id)]
    if reject:
        assert keys(session, mine.id) == ["earlier-decisions"]
        assert row["flags"] == [
            {
                "key": "earlier-decisions",
                "title": "Rejected or excluded before",
                "label": "Earlier reviews: 1 rejected, 0 excluded, 0 approved",
            }
        ]
        filtered = table(session, staff.id, first.id, flag=["earlier-decisions"])
        assert [r["id"] for r in filtered.rows] == [str(mine.id)]
    else:  # an approval elsewhere is no flag
        assert keys(session, mine.id) == []
        assert row["flags"] == []
    assert row["flags_pending"] == ""


@pytest.mark.parametrize("who", ["participant", "None", "unknown id"])
def test_check_flags_and_flags_checked_refuse_non_staff_and_write_nothing(session, who):
    first, _, _, _ = two_tests(session)
    participant = results.participant(session)
    actor = {"participant": participant.id, "None": None, "unknown id": 987_654_321}[who]
    for call in (reviews.check_flags, reviews.flags_checked):
        with pytest.raises(StaffRefused) as refused:
            call(session, actor_id=actor, test_id=str(first.id))
        assert refused.value.message == NOT_ALLOWED
    session.commit()
    assert session.execute(select(func.count()).select_from(QualityRun)).scalar_one() == 0
    assert quality_flags.due_tests(session) != []


def test_staff_read_when_the_flags_were_checked(session):
    first, _, _, _ = two_tests(session)
    staff = person(session, role=roles.TEAM_MANAGER)
    session.commit()
    assert reviews.flags_checked(session, actor_id=staff.id, test_id=str(first.id)) == reviews.checked_text(None)
    said = reviews.check_flags(session, actor_id=staff.id, test_id=str(first.id))
    session.commit()
    assert said.startswith("Quality flags checked ") and said.endswith(" UTC; they are checked again every minute.")
    assert reviews.flags_checked(session, actor_id=staff.id, test_id=str(first.id)) == said
    assert runs(session) == {first.id: (7, 1)}  # only the chosen test


def test_the_reviews_page_reads_the_flags_and_runs_of_all_its_tests_in_one_statement_each(session):
    """Staff's reviews page spans many tests: their flags and when each test's were computed are read once a page,
    not once a test."""
    seed_reference(session)
    staff = person(session, role=roles.TEAM_MANAGER)
    session.commit()
    found: dict[int, Review] = {}
    for _ in range(8):
        test = demo_test(session, "01-survey.json")
        found[test.id] = results.review(
            session, test, results.participant(session), q.answers(q.HONEST_TEXTS[0]), kind="survey", minutes=9
        )
    checked = sorted(found)[::2]
    for test_id in checked:
        assert quality_flags.refresh_test(session, test_id=test_id)
    session.commit()
    seen: list[str] = []
    bind = session.get_bind()

    def statement(_conn: object, _cursor: object, sql: str, *_rest: object) -> None:
        seen.append(sql)

    event.listen(bind, "before_cursor_execute", statement)
    try:
        rows = reviews.list_reviews(session, actor_id=staff.id, query=reviews.clean_query()).rows
    finally:
        event.remove(bind, "before_cursor_execute", statement)
    assert {r["id"]: r["flags_pending"] for r in rows} == {
        str(r.id): "" if t in checked else reviews.FLAGS_PENDING for t, r in found.items()
    }
    assert len([s for s in seen if "quality_run" in s]) == 1, seen
    assert len([s for s in seen if "FROM review_flag" in s]) == 1, seen
