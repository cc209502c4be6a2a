"""The invites and rewards table queries (portal/services/invites.py, rewards.py) on a migrated database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session

from portal.models import Invite, Review, Reward, Test
from portal.services import invites, rewards
from tests.support.factories import make_participant

NOW = datetime.now(UTC)


def _test(session: Session, name: str, product_type: str = "survey", payout: int = 2000) -> Test:
    test = Test(
        name=name, product_type=product_type, status="running", payout_cents=payout, url="https://example.com/p"
    )
    session.add(test)
    session.flush()
    return test


def _invite(session: Session, account_id: int, test: Test, status: str = "open", age_hours: float = 1) -> Invite:
    created = NOW - timedelta(hours=age_hours)
    invite = Invite(
        account_id=account_id,
        test_id=test.id,
        status=status,
        amount_cents=test.payout_cents,
        created_at=created,
        expires_at=created + timedelta(hours=24),
    )
    session.add(invite)
    session.flush()
    return invite


def _reward(session: Session, account_id: int, test: Test, status: str = "PENDING", age_hours: float = 1) -> Reward:
    created = NOW - timedelta(hours=age_hours)
    review = Review(
        test_id=test.id,
        account_id=account_id,
        respondent_key=f"account:{account_id}",
        kind="survey",
        created_at=created,
    )
    session.add(review)
    session.flush()
    reward = Reward(
        review_id=review.id,
        account_id=account_id,
        amount_cents=test.payout_cents,
        status=status,
        paid_on=created + timedelta(days=2) if status == "EXECUTED" else None,
        created_at=created,
    )
    session.add(reward)
    session.flush()
    return reward


@pytest.fixture
def two(session: Session):
    a = make_participant(session)
    b = make_participant(session)
    tests = [_test(session, f"Pricing study {i}", "pricing-test" if i % 2 else "survey") for i in range(12)]
    for i, t in enumerate(tests[:7]):
        _invite(
            session,
            a.id,
            t,
            ("open", "open", "filled", "completed", "expired", "canceled", "open")[i],
            age_hours=[1, 30, 50, 60, 70, 80, 2][i],
        )
    for i, t in enumerate(tests[7:12]):
        _invite(session, b.id, t, "open", age_hours=i + 1)
    for i, t in enumerate(tests[3:6]):
        _reward(session, a.id, t, ("EXECUTED", "FAILED", "WEIRD")[i], age_hours=10 * (i + 1))
    for t in tests[7:9]:
        _reward(session, b.id, t, "PENDING")
    session.commit()
    return a, b, tests


def test_invites_page_totals_and_rows(session: Session, two):
    a, _b, tests = two
    page = invites.list_invites(session=session, account_id=a.id, query=invites.clean_query())
    assert page.total == 7
    assert page.total_open == 2  # the 30-hour-old open invite has expired
    dates = [r["id"] for r in page.rows]
    assert len(dates) == 7
    first = page.rows[0]
    assert first["test_id"] == str(tests[0].id) and first["open"] == "1" and first["status_label"] == "Open"
    expired = next(r for r in page.rows if r["test_id"] == str(tests[1].id))
    assert expired["status"] == "expired" and expired["open"] == ""
    assert all(set(r.values()) <= {v for v in r.values() if isinstance(v, str)} for r in page.rows)


def test_an_open_invite_to_a_paused_or_removed_test_offers_no_start(session: Session, two):
    a, _b, tests = two
    tests[0].status, tests[6].status = "paused", "removed"
    session.add_all([tests[0], tests[6]])
    session.commit()
    rows = {
        r["test_id"]: r
        for r in invites.list_invites(session=session, account_id=a.id, query=invites.clean_query()).rows
    }
    assert (rows[str(tests[0].id)]["status_label"], rows[str(tests[0].id)]["open"]) == ("Paused", "")
    assert (rows[str(tests[6].id)]["status_label"], rows[str(tests[6].id)]["open"]) == ("No longer available", "")
    assert rows[str(tests[2].id)]["status_label"] == "Filled"


def test_invites_sort_page_and_filters(session: Session, two):
    a, _b, tests = two
    asc = invites.list_invites(session=session, account_id=a.id, query=invites.clean_query(sort_direction=1))
    assert asc.rows[0]["test_id"] == str(tests[5].id)  # the oldest first
    p2 = invites.list_invites(session=session, account_id=a.id, query=invites.clean_query(page=2, page_size=10))
    assert p2.rows == [] and p2.total == 7
    opened = invites.list_invites(
        session=session,
        account_id=a.id,
        query=invites.clean_query(filters=[{"name": "status", "type": "list", "values": ["open"]}]),
    )
    assert {r["test_id"] for r in opened.rows} == {str(tests[0].id), str(tests[6].id)}
    expired = invites.list_invites(
        session=session,
        account_id=a.id,
        query=invites.clean_query(filters=[{"name": "status", "type": "list", "values": ["expired"]}]),
    )
    assert {r["test_id"] for r in expired.rows} == {str(tests[1].id), str(tests[4].id)}
    not_open = invites.list_invites(
        session=session,
        account_id=a.id,
        query=invites.clean_query(filters=[{"name": "status", "type": "exclude", "values": ["open"]}]),
    )
    assert not_open.total == 5
    day = (NOW - timedelta(hours=50)).date().isoformat()
    ranged = invites.list_invites(
        session=session,
        account_id=a.id,
        query=invites.clean_query(filters=[{"name": "createdOn", "type": "range", "values": [day, day]}]),
    )
    assert str(tests[2].id) in {r["test_id"] for r in ranged.rows}


def test_invites_search(session: Session, two):
    a, _b, tests = two
    none = invites.list_invites(session=session, account_id=a.id, query=invites.clean_query(search="zzz-no-such-test"))
    assert none.total == 0 and none.rows == []
    by_id = invites.list_invites(session=session, account_id=a.id, query=invites.clean_query(search=str(tests[2].id)))
    assert str(tests[2].id) in {r["test_id"] for r in by_id.rows}
    by_type = invites.list_invites(session=session, account_id=a.id, query=invites.clean_query(search="PRICING test"))
    assert by_type.total == 3  # tests 1, 3, 5 are pricing tests
    by_name = invites.list_invites(session=session, account_id=a.id, query=invites.clean_query(search="pricing study"))
    assert by_name.total == 7
    wild = invites.list_invites(session=session, account_id=a.id, query=invites.clean_query(search="%"))
    assert wild.total == 0


ATTACKS = [
    {},
    {"sort_by": "account_id", "sort_direction": 1},
    {"sort_by": "1; DROP TABLE invite", "page": -4, "page_size": 10**9},
    {"search": "' OR 1=1 --"},
    {"search": {"$ne": None}, "filters": [{"name": "account_id", "type": "list", "values": ["1", "2"]}]},
    {"filters": [{"name": "status", "type": "exclude", "values": ["nothing"]}]},
    {"filters": "account_id=2", "page": "2", "page_size": "10"},
]


@pytest.mark.parametrize("raw", ATTACKS)
def test_participant_a_cannot_see_b_rows_whatever_arguments(session: Session, two, raw):
    a, b, _tests = two
    b_invites = {i.id for i in session.exec(__import__("sqlmodel").select(Invite).where(Invite.account_id == b.id))}
    b_rewards = {r.id for r in session.exec(__import__("sqlmodel").select(Reward).where(Reward.account_id == b.id))}
    for kind, service, b_ids in (
        ("invites", invites.list_invites, b_invites),
        ("rewards", rewards.list_rewards, b_rewards),
    ):
        module = invites if kind == "invites" else rewards
        page = service(session=session, account_id=a.id, query=module.clean_query(**raw))
        assert not {int(r["id"]) for r in page.rows} & b_ids
    # and a click on B's invite from A's session is refused
    for invite_id in b_invites:
        outcome = invites.invite_click(session=session, account_id=a.id, invite_id=invite_id)
        assert outcome.redirect is None and outcome.message == "This invite is no longer valid."


def test_invite_click(session: Session, two):
    a, _b, tests = two
    rows = {
        r["test_id"]: r["id"]
        for r in invites.list_invites(session=session, account_id=a.id, query=invites.clean_query()).rows
    }
    assert (
        invites.invite_click(session=session, account_id=a.id, invite_id=rows[str(tests[0].id)]).redirect
        == f"/test/{tests[0].id}/rate"
    )
    assert (
        invites.invite_click(session=session, account_id=a.id, invite_id=rows[str(tests[1].id)]).message
        == "This invite is no longer valid."
    )
    assert (
        invites.invite_click(session=session, account_id=a.id, invite_id=rows[str(tests[2].id)]).message
        == "This test has already been filled."
    )
    assert (
        invites.invite_click(session=session, account_id=a.id, invite_id=rows[str(tests[3].id)]).message
        == "This test has already been completed."
    )
    assert (
        invites.invite_click(session=session, account_id=a.id, invite_id="abc").message
        == "This invite is no longer valid."
    )


def test_rewards_rows_sort_and_filter(session: Session, two):
    a, _b, tests = two
    page = rewards.list_rewards(session=session, account_id=a.id, query=rewards.clean_query())
    assert page.total == 3
    assert [r["payment_label"] for r in page.rows] == ["Paid", "Failed", ""]
    first = page.rows[0]
    assert first["status_label"] == "Complete" and first["test_id"] == str(tests[3].id) and first["paid_on"] != ""
    assert first["payout"] == "$20"
    by_type = rewards.list_rewards(
        session=session, account_id=a.id, query=rewards.clean_query(sort_by="testType", sort_direction=1)
    )
    assert [r["test_type"] for r in by_type.rows] == sorted(r["test_type"] for r in page.rows)
    paid = rewards.list_rewards(
        session=session,
        account_id=a.id,
        query=rewards.clean_query(filters=[{"name": "paymentStatus", "type": "list", "values": ["EXECUTED"]}]),
    )
    assert paid.total == 1
    searched = rewards.list_rewards(session=session, account_id=a.id, query=rewards.clean_query(search="no such"))
    assert searched.total == 0


def test_rewards_search_and_sort_by_type_use_the_reward_own_test_columns(session: Session, two):
    a, _b, tests = two
    # Rewards made through the ORM without test_id/product_type get their review's (migration 0005).
    stored = session.exec(__import__("sqlmodel").select(Reward).where(Reward.account_id == a.id)).all()
    assert sorted((r.test_id, r.product_type) for r in stored) == sorted((t.id, t.product_type) for t in tests[3:6])
    by_type = rewards.list_rewards(session=session, account_id=a.id, query=rewards.clean_query(search="PRICING test"))
    assert (
        sorted(r["test_id"] for r in by_type.rows) == sorted([str(tests[3].id), str(tests[5].id)])
        and by_type.total == 2
    )
    by_name = rewards.list_rewards(
        session=session, account_id=a.id, query=rewards.clean_query(search="Pricing study 4")
    )
    assert [r["test_id"] for r in by_name.rows] == [str(tests[4].id)] and by_name.total == 1
    by_id = rewards.list_rewards(session=session, account_id=a.id, query=rewards.clean_query(search=str(tests[5].id)))
    assert str(tests[5].id) in {r["test_id"] for r in by_id.rows}
    desc = rewards.list_rewards(
        session=session, account_id=a.id, query=rewards.clean_query(sort_by="testType", page_size=10)
    )
    assert [r["test_type"] for r in desc.rows] == ["Survey", "Pricing test", "Pricing test"]
    assert [r["test_id"] for r in desc.rows][1:] == [str(tests[5].id), str(tests[3].id)]  # ties: newest id first
    assert all(r["test_url"] == "https://example.com/p" for r in desc.rows)


def test_a_search_of_non_ascii_digits_matches_nothing_without_error(session: Session, two):
    a, _b, _tests = two
    for module, service in ((invites, invites.list_invites), (rewards, rewards.list_rewards)):
        page = service(session=session, account_id=a.id, query=module.clean_query(search="²"))
        assert page.rows == [] and page.total == 0
