"""The quality flags job (issue 36, item 2) on SQLite and PostgreSQL: each review's flags computed for its whole test
and stored; the reviews table shows them, the strongest first, and filters by them; the evidence card shows each
signal with the test's median; a test is computed again only when due; many workers at once write one round."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlmodel import Session

from portal.domain.staff import roles
from portal.models import QualityRun, ReviewFlag
from portal.services import quality_flags
from portal.services.admin import reviews
from portal.services.seeding import seed_reference
from tests.integration.test_admin_services import person
from tests.support import quality_reviews as q
from tests.support.people import demo_test
from tests.support.races import all_at_once


def seeded(session: Session):
    seed_reference(session)
    session.commit()
    test = demo_test(session, "01-survey.json")
    honest = q.honest(session, test, 6)
    speeder = q.one(session, test, q.HONEST_TEXTS[6] + " Fast.", minutes=1)
    paster = q.one(session, test, q.COPIED, pasted=len(q.COPIED))
    leaver = q.one(
        session,
        test,
        "We kept the old tool for a year because nobody had time to migrate the dashboards and the alerts.",
        signals={"leaves:last-purchase": 3, "away:last-purchase": 95.0},
    )
    copier = q.one(session, test, q.COPIED)
    return test, honest, {"speeder": speeder, "pasted": paster, "left-tab": leaver, "copied": copier}


def keys(session: Session, review_id: int) -> list[str]:
    return list(
        session.execute(
            select(ReviewFlag.key).where(ReviewFlag.review_id == review_id).order_by(ReviewFlag.strength.desc())
        ).scalars()
    )


def table(session: Session, staff_id: int, test_id: int, **filters: list[str]):
    query = reviews.clean_query(
        filters=[{"name": "test", "type": "list", "values": [str(test_id)]}]
        + [{"name": name, "type": "list", "values": values} for name, values in filters.items()]
    )
    return reviews.list_reviews(session, actor_id=staff_id, query=query)


def test_each_review_gets_its_own_flags_and_the_table_filters_by_them(session):
    test, honest, flagged = seeded(session)
    staff = person(session, role=roles.TEAM_MANAGER)
    assert quality_flags.due_tests(session) == [test.id]
    assert quality_flags.refresh_due(session) == 1
    session.commit()
    assert quality_flags.due_tests(session) == []

    assert keys(session, flagged["speeder"].id) == ["speeder"]
    assert keys(session, flagged["pasted"].id) == ["pasted"]  # the first of two alike texts is not the copy
    assert keys(session, flagged["left-tab"].id) == ["left-tab"]
    assert keys(session, flagged["copied"].id) == ["copied"]
    assert all(keys(session, r.id) == [] for r in honest)

    page = table(session, staff.id, test.id)
    by_id = {row["id"]: row for row in page.rows}
    assert page.total == 10
    speeder_row = by_id[str(flagged["speeder"].id)]
    assert [f["title"] for f in speeder_row["flags"]] == ["Speeder"]
    assert speeder_row["flags"][0]["label"].startswith("Finished in 1 min — the median is 10 min")
    assert speeder_row["flags_pending"] == ""
    assert by_id[str(honest[0].id)]["flags"] == []

    only = table(session, staff.id, test.id, flag=["copied", "speeder"])
    assert {row["id"] for row in only.rows} == {str(flagged["copied"].id), str(flagged["speeder"].id)}
    assert table(session, staff.id, test.id, flag=["echo"]).total == 0

    detail = reviews.review_detail(session, actor_id=staff.id, review_id=flagged["left-tab"].id)
    assert [f["key"] for f in detail["flags"]] == ["left-tab"]
    assert detail["flags"][0]["label"] == "Left the tab 3 times during a text answer, 1 min 35 s away"
    card = {line["label"]: (line["value"], line["median"]) for line in detail["card"]}
    assert card["Time on the whole test"] == ("10 min", "10 min")
    question = "'Tell us about the last time your team bought an analytics t…'"
    assert card[f"Time on {question}"] == ("1 min 50 s", "2 min")
    # Nobody else left the tab: their typing was measured, so the test's median is 0.
    assert card[f"Left the tab or window while answering {question}"] == ("3 times", "0 times")
    assert card[f"Time away from the tab while answering {question}"] == ("1 min 35 s", "0 s")

    pasted = reviews.review_detail(session, actor_id=staff.id, review_id=flagged["pasted"].id)
    lines = {line["label"]: line["value"] for line in pasted["card"]}
    assert lines[f"Pasted into {question}"] == f"{len(q.COPIED)} of {len(q.COPIED)} characters (100%)"
    assert pasted["flags"][0]["label"].startswith("Pasted ")


def test_a_new_review_makes_the_test_due_and_its_row_says_not_checked_yet(session):
    test, honest, _ = seeded(session)
    staff = person(session, role=roles.TEAM_MANAGER)
    quality_flags.refresh_due(session)
    session.commit()
    late = q.one(session, test, q.COPIED)
    assert quality_flags.due_tests(session) == [test.id]
    rows = {row["id"]: row for row in table(session, staff.id, test.id).rows}
    assert rows[str(late.id)]["flags_pending"] == reviews.FLAGS_PENDING
    assert "checked" in reviews.check_flags(session, actor_id=staff.id, test_id=test.id)
    session.commit()
    assert keys(session, late.id) == ["copied"]


def test_workers_computing_the_same_test_at_once_write_one_round(db_url, session):
    test, _, flagged = seeded(session)
    results = all_at_once(db_url, [lambda s: quality_flags.refresh_test(s, test_id=test.id) for _ in range(50)])
    assert results.count(True) == 1, results
    session.expire_all()
    run = session.execute(select(QualityRun).where(QualityRun.test_id == test.id)).scalar_one()
    assert (run.round, run.reviews) == (1, 10)
    total = session.execute(select(func.count()).select_from(ReviewFlag)).scalar_one()
    assert total == 4
    assert keys(session, flagged["speeder"].id) == ["speeder"]
