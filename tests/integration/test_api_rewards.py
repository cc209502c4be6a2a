"""/api/v1/rewards (issue 39) on SQLite and PostgreSQL, as a caller sees it: the list and its filters and pages, one
reward, marking paid, failed or canceled by the staff rules (409 where they refuse), and bonuses: who may get one,
for what, how much, and that it is a payable reward of its own, audited under the key."""

from __future__ import annotations

import uuid

from sqlmodel import Session

from portal.api.request_guard import BAD_CHARACTERS as REQUEST_BAD_CHARACTERS
from portal.domain import bonuses
from portal.domain.staff import roles
from portal.models import Account, Reward
from portal.models._base import utcnow
from portal.services.admin.rewards import CANNOT_CHANGE, NOT_PAYABLE
from portal.services.api.rewards import NO_REWARD
from tests.integration.test_admin_services import (
    a_review,
    a_test,
    audit_rows,
    fresh,
    participant_reward_row,
    person,
)
from tests.support.api import api_client, api_key, key_id
from tests.support.people import Person
from tests.support.people import invite as make_invite

BOTH = ("rewards:read", "rewards:write")


def idem() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def messages(answer) -> list[tuple[str | None, str]]:
    return [(e["field"], e["message"]) for e in answer.json()["errors"]]


def rewards_world(session: Session):
    """Two tests; an approved unpaid reward, a pending one (review undecided) and a paid one."""
    test, other = a_test(session), a_test(session)
    alice, bob = person(session), person(session)
    _, approved = a_review(session, test, alice, status="approved", approved=True)
    _, pending = a_review(session, test, bob)
    _, paid = a_review(session, other, alice, status="approved", approved=True, reward_status="EXECUTED")
    return test, other, alice, bob, approved, pending, paid


def test_the_list_filters_and_pages(session, monkeypatch):
    test, other, alice, bob, approved, pending, paid = rewards_world(session)
    key = api_key(session, "rewards:read")
    with api_client(session, monkeypatch, key) as client:
        page = client.get("/rewards", params={"limit": 2})
        assert page.status_code == 200, page.json()
        assert [r["id"] for r in page.json()["data"]] == [paid.id, pending.id]
        rest = client.get("/rewards", params={"limit": 2, "cursor": page.json()["next_cursor"]}).json()
        assert [r["id"] for r in rest["data"]] == [approved.id] and rest["next_cursor"] is None

        def ids(**params):
            answer = client.get("/rewards", params=params)
            assert answer.status_code == 200, answer.json()
            return [r["id"] for r in answer.json()["data"]]

        assert ids(test_id=test.id) == [pending.id, approved.id]
        assert ids(participant_id=alice.id) == [paid.id, approved.id]
        assert ids(status="EXECUTED") == [paid.id]
        assert ids(kind="bonus") == []
        bad = client.get("/rewards", params={"status": "PAID"})
        assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "status"

        one = client.get(f"/rewards/{approved.id}")
        assert one.status_code == 200
        body = one.json()
        assert (body["kind"], body["participant_id"], body["test_id"], body["amount_cents"]) == (
            "review",
            alice.id,
            test.id,
            2000,
        )
        assert (body["status"], body["state"], body["payable"]) == ("PENDING", "Approved", True)
        assert body["participant"] == alice.email and body["test_name"] == test.name

        missing = client.get("/rewards/999999")
        assert missing.status_code == 404 and messages(missing) == [(None, NO_REWARD)]


def test_marks_follow_the_staff_rules_once_audited_under_the_key(session, monkeypatch):
    _, _, _, _, approved, pending, paid = rewards_world(session)
    key = api_key(session, *BOTH)
    with api_client(session, monkeypatch, key) as client:
        done = client.post(f"/rewards/{approved.id}/paid", headers=idem())
        assert done.status_code == 200, done.json()
        assert (done.json()["status"], done.json()["state"]) == ("EXECUTED", "Paid")
        assert done.json()["paid_on"] is not None

        twice = client.post(f"/rewards/{approved.id}/paid", headers=idem())
        assert twice.status_code == 409 and messages(twice) == [(None, NOT_PAYABLE)]
        unapproved = client.post(f"/rewards/{pending.id}/failed", headers=idem())
        assert unapproved.status_code == 409 and messages(unapproved) == [(None, CANNOT_CHANGE)]
        paid_cancel = client.post(f"/rewards/{paid.id}/canceled", headers=idem())
        assert paid_cancel.status_code == 409 and messages(paid_cancel) == [(None, CANNOT_CHANGE)]
        missing = client.post("/rewards/999999/paid", headers=idem())
        assert missing.status_code == 404 and messages(missing) == [(None, NO_REWARD)]
        no_key = client.post(f"/rewards/{pending.id}/canceled")
        assert no_key.status_code == 422 and no_key.json()["errors"][0]["field"] == "Idempotency-Key"

        canceled = client.post(f"/rewards/{pending.id}/canceled", headers=idem())
        assert canceled.status_code == 200 and canceled.json()["status"] == "CANCELED"

    assert fresh(session, Reward, approved.id).status == "EXECUTED"
    assert fresh(session, Reward, paid.id).status == "EXECUTED"
    [row] = audit_rows(session, "reward.pay")
    assert row.target_id == str(approved.id) and row.api_key_id == key_id(session, key)
    assert [r.target_id for r in audit_rows(session, "reward.cancel")] == [str(pending.id)]


def test_a_read_key_cannot_mark_or_give(session, monkeypatch):
    _, _, alice, _, approved, _, _ = rewards_world(session)
    key = api_key(session, "rewards:read")
    with api_client(session, monkeypatch, key) as client:
        assert client.post(f"/rewards/{approved.id}/paid", headers=idem()).status_code == 403
        bonus = {"participant_id": alice.id, "test_id": approved.test_id, "amount_cents": 500}
        assert client.post("/rewards/bonuses", json=bonus, headers=idem()).status_code == 403
    assert fresh(session, Reward, approved.id).status == "PENDING"


def test_a_bonus_is_a_payable_reward_of_its_own_for_a_review_or_a_test(session, monkeypatch):
    test, other, alice, bob, approved, _, _ = rewards_world(session)
    invited_test = a_test(session)
    make_invite(session, Person(bob.id, ""), invited_test)
    key = api_key(session, *BOTH)
    with api_client(session, monkeypatch, key) as client:
        for_review = client.post(
            "/rewards/bonuses",
            json={"participant_id": alice.id, "review_id": approved.review_id, "amount_cents": 250, "note": " Thanks "},
            headers=idem(),
        )
        assert for_review.status_code == 201, for_review.json()
        body = for_review.json()
        assert (body["kind"], body["participant_id"], body["test_id"], body["review_id"]) == (
            "bonus",
            alice.id,
            test.id,
            None,
        )
        assert (body["amount_cents"], body["status"], body["payable"], body["state"]) == (
            250,
            "PENDING",
            True,
            "Approved",
        )
        assert client.get(f"/rewards/{body['id']}").json() == body
        assert [r["id"] for r in client.get("/rewards", params={"kind": "bonus"}).json()["data"]] == [body["id"]]

        invited = client.post(
            "/rewards/bonuses",
            json={"participant_id": bob.id, "test_id": invited_test.id, "amount_cents": 100},
            headers=idem(),
        )
        assert invited.status_code == 201, invited.json()
        assert invited.json()["test_id"] == invited_test.id

    row = [r for r in audit_rows(session, "reward.bonus") if r.target_id == str(body["id"])][0]
    assert row.api_key_id == key_id(session, key)
    assert row.after == {
        "participant": alice.id,
        "review": approved.review_id,
        "test": test.id,
        "amount_cents": 250,
        "note": "Thanks",
    }
    # The participant's own rewards page lists it like any other reward.
    row = participant_reward_row(session, alice.id, body["id"])
    assert (row["payout"], row["test_type"]) == ("$2.50", "Survey (bonus)")


def test_a_bonus_refuses_bad_amounts_targets_and_participants(session, monkeypatch):
    test, other, alice, bob, approved, pending, _ = rewards_world(session)
    staff = person(session, role=roles.TEAM_MANAGER)
    gone = person(session)
    a_review(session, test, gone)
    account = session.get(Account, gone.id)
    account.removed_at = utcnow()
    session.add(account)
    session.commit()
    key = api_key(session, *BOTH)

    def give(**body):
        return client.post("/rewards/bonuses", json=body, headers=idem())

    with api_client(session, monkeypatch, key) as client:
        for cents in (0, 99, bonuses.MAX_CENTS + 1, -5):
            answer = give(participant_id=alice.id, test_id=test.id, amount_cents=cents)
            assert answer.status_code == 422 and messages(answer) == [("amount_cents", bonuses.AMOUNT_OUT_OF_RANGE)]
        not_cents = give(participant_id=alice.id, test_id=test.id, amount_cents="five")
        assert not_cents.status_code == 422 and not_cents.json()["errors"][0]["field"] == "amount_cents"

        no_target = give(participant_id=alice.id, amount_cents=500)
        assert no_target.status_code == 422 and messages(no_target) == [("review_id", bonuses.TARGET_REQUIRED)]
        long_note = give(participant_id=alice.id, test_id=test.id, amount_cents=500, note="x" * 501)
        assert long_note.status_code == 422 and messages(long_note) == [("note", bonuses.NOTE_TOO_LONG)]

        nul = give(participant_id=alice.id, test_id=test.id, amount_cents=500, note="a\x00b")
        assert nul.status_code == 422 and messages(nul) == [(None, REQUEST_BAD_CHARACTERS)]
        unknown = give(participant_id=999999, test_id=test.id, amount_cents=500)
        assert unknown.status_code == 404 and messages(unknown) == [("participant_id", bonuses.NO_PARTICIPANT)]
        to_staff = give(participant_id=staff.id, test_id=test.id, amount_cents=500)
        assert to_staff.status_code == 404
        deactivated = give(participant_id=gone.id, test_id=test.id, amount_cents=500)
        assert deactivated.status_code == 409 and messages(deactivated) == [("participant_id", bonuses.NOT_ACTIVE)]

        not_theirs = give(participant_id=alice.id, review_id=pending.review_id, amount_cents=500)
        assert not_theirs.status_code == 422 and messages(not_theirs) == [("review_id", bonuses.NOT_THEIR_REVIEW)]
        wrong_test = give(participant_id=alice.id, review_id=approved.review_id, test_id=other.id, amount_cents=500)
        assert wrong_test.status_code == 422 and messages(wrong_test) == [("test_id", bonuses.REVIEW_NOT_OF_TEST)]
        not_in = give(participant_id=bob.id, test_id=other.id, amount_cents=500)
        assert not_in.status_code == 422 and messages(not_in) == [("test_id", bonuses.NOT_IN_TEST)]
        no_review = give(participant_id=alice.id, review_id=999999, amount_cents=500)
        assert no_review.status_code == 404 and messages(no_review) == [("review_id", bonuses.NO_REVIEW)]
        no_test = give(participant_id=alice.id, test_id=999999, amount_cents=500)
        assert no_test.status_code == 404 and messages(no_test) == [("test_id", bonuses.NO_TEST)]
        huge_id = give(participant_id=2**40, test_id=test.id, amount_cents=500)
        assert huge_id.status_code == 422 and huge_id.json()["errors"][0]["field"] == "participant_id"

    session.expire_all()
    assert session.query(Reward).filter(Reward.kind == bonuses.BONUS).count() == 0
    assert audit_rows(session, "reward.bonus") == []
