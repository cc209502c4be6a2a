"""/api/v1/reviews (issue 39) on SQLite and PostgreSQL, as a caller sees it: the list with answers, the version and
quality flags, pages by cursor, one review, and the decisions (approve, exclude, reject with a reason, bulk) made
through the staff service, each once, audited under the key."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlmodel import Session

from portal.api.pagination import BAD_CURSOR
from portal.api.request_guard import BAD_CHARACTERS as REQUEST_BAD_CHARACTERS
from portal.domain import api_keys as key_rules
from portal.domain.staff import reviews as decisions
from portal.domain.staff import roles
from portal.models import Account, ApiKey, Review, ReviewFlag, ReviewSession, Reward, TestVersion
from portal.services.admin.reviews import ALREADY_DECIDED
from portal.services.api.reviews import NO_REVIEW
from tests.integration.test_admin_services import a_review, a_test, audit_rows, fresh, person
from tests.support.api import api_client, api_key, key_id

WRITE = ("reviews:read", "reviews:write")


def idem() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def messages(answer) -> list[tuple[str | None, str]]:
    return [(e["field"], e["message"]) for e in answer.json()["errors"]]


def three_reviews(session: Session):
    """A test on its second version with three reviews of three participants (the newest flagged)."""
    test = a_test(session)
    version = TestVersion(test_id=test.id, number=2, columns={}, sealed=True)
    session.add(version)
    session.commit()
    made = []
    for n in range(3):
        review, reward = a_review(
            session, test, person(session), answers={"q1": {"value": f"Answer {n} is long enough"}, "q2": "b"}
        )
        run = ReviewSession(
            test_id=test.id,
            account_id=review.account_id,
            respondent_key=review.respondent_key,
            started_at=review.created_at - timedelta(seconds=95),
            deadline_at=review.created_at + timedelta(hours=1),
            status="submitted",
        )
        session.add(run)
        session.flush()
        review.version_id, review.session_id = version.id, run.id
        session.add(review)
        made.append((review, reward))
    session.add(ReviewFlag(review_id=made[-1][0].id, key="speeder", label="Finished in 20 s", strength=1.0, value=20.0))
    session.commit()
    return test, made


def test_the_list_gives_answers_version_flags_and_pages_by_cursor(session, monkeypatch):
    test, made = three_reviews(session)
    other = a_test(session)
    a_review(session, other, person(session))
    key = api_key(session, "reviews:read")
    with api_client(session, monkeypatch, key) as client:
        first = client.get("/reviews", params={"test_id": test.id, "limit": 2})
        assert first.status_code == 200, first.json()
        page = first.json()
        assert [r["id"] for r in page["data"]] == [made[2][0].id, made[1][0].id]  # newest first
        assert page["next_cursor"]
        second = client.get("/reviews", params={"test_id": test.id, "limit": 2, "cursor": page["next_cursor"]})
        assert [r["id"] for r in second.json()["data"]] == [made[0][0].id]
        assert second.json()["next_cursor"] is None

        newest = page["data"][0]
        assert newest["test_id"] == test.id and newest["test_name"] == test.name
        assert newest["version"] == 2
        assert newest["status"] == "submitted"
        assert newest["answers"][0] == {
            "question": "What do you think of the page?",
            "text": "Answer 2 is long enough",
            "words": 5,
            "pasted": False,
        }
        assert newest["answers"][1]["text"] == "Pro"  # a choice by its label
        assert newest["words"] >= 5 and newest["time_taken_seconds"] == 95
        assert [f["key"] for f in newest["flags"]] == ["speeder"]
        assert newest["reward"] == {"id": made[2][1].id, "amount_cents": 2000, "status": "PENDING", "payable": False}

        everything = client.get("/reviews").json()["data"]
        assert len(everything) == 4
        assert client.get("/reviews", params={"status": "approved"}).json() == {"data": [], "next_cursor": None}

        bad = client.get("/reviews", params={"status": "maybe"})
        assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "status"
        bad_cursor = client.get("/reviews", params={"cursor": "not-ours"})
        assert bad_cursor.status_code == 422 and messages(bad_cursor) == [("cursor", BAD_CURSOR)]
        too_many = client.get("/reviews", params={"limit": 1000})
        assert too_many.status_code == 422 and too_many.json()["errors"][0]["field"] == "limit"


def test_one_review_reads_as_staff_read_it_and_an_unknown_one_is_404(session, monkeypatch):
    test, made = three_reviews(session)
    review = made[2][0]
    key = api_key(session, "reviews:read")
    with api_client(session, monkeypatch, key) as client:
        found = client.get(f"/reviews/{review.id}")
        assert found.status_code == 200, found.json()
        body = found.json()
        assert body["id"] == review.id and body["status_label"] == "Submitted"
        assert body["version"] == 2
        assert body["answers"][0]["text"] == "Answer 2 is long enough"
        assert body["signals"][0] == {"label": "Time on the whole test", "value": "1 min 35 s", "median": "—"}
        assert body["reject_reason"] is None and body["evidence"] is None

        missing = client.get("/reviews/999999")
        assert missing.status_code == 404 and messages(missing) == [(None, NO_REVIEW)]
        assert client.get("/reviews/0").status_code == 422
        assert client.get("/reviews/99999999999999").status_code == 422
        assert client.get("/reviews/abc").status_code == 422


def test_approve_makes_the_reward_payable_once_audited_under_the_key(session, monkeypatch):
    _, made = three_reviews(session)
    review, reward = made[0]
    key = api_key(session, *WRITE)
    with api_client(session, monkeypatch, key) as client:
        no_key = client.post(f"/reviews/{review.id}/approve")
        assert no_key.status_code == 422 and no_key.json()["errors"][0]["field"] == "Idempotency-Key"

        approved = client.post(f"/reviews/{review.id}/approve", headers=idem())
        assert approved.status_code == 200, approved.json()
        assert approved.json() == {
            "decided": 1,
            "reviews": [{"id": review.id, "status": "approved", "reward_id": reward.id, "reward_status": "PENDING"}],
        }
        assert "Idempotent-Replayed" not in approved.headers

        again = client.post(f"/reviews/{review.id}/approve", headers=idem())  # a new key: a new request
        assert again.status_code == 409 and messages(again) == [(None, ALREADY_DECIDED)]
        rejected_after = client.post(f"/reviews/{review.id}/reject", json={"reason": "low-effort"}, headers=idem())
        assert rejected_after.status_code == 409

        missing = client.post("/reviews/999999/approve", headers=idem())
        assert missing.status_code == 404 and messages(missing) == [(None, NO_REVIEW)]

    assert fresh(session, Review, review.id).status == decisions.APPROVED
    assert fresh(session, Reward, reward.id).approved_at is not None
    [row] = [r for r in audit_rows(session, "review.approve") if r.target_id == str(review.id)]
    assert row.api_key_id == key_id(session, key)
    assert row.after["status"] == "approved"


def test_reject_needs_a_listed_reason_and_cancels_the_reward(session, monkeypatch):
    _, made = three_reviews(session)
    review, reward = made[0]
    key = api_key(session, *WRITE)
    with api_client(session, monkeypatch, key) as client:
        bad = client.post(f"/reviews/{review.id}/reject", json={"reason": "boring"}, headers=idem())
        assert bad.status_code == 422 and messages(bad) == [("reason", decisions.REASON_REQUIRED)]
        long_note = client.post(
            f"/reviews/{review.id}/reject", json={"reason": "low-effort", "note": "x" * 1001}, headers=idem()
        )
        assert long_note.status_code == 422 and messages(long_note) == [("reason", decisions.NOTE_TOO_LONG)]
        nul = client.post(
            f"/reviews/{review.id}/reject", json={"reason": "low-effort", "note": "a\x00b"}, headers=idem()
        )
        assert nul.status_code == 422 and messages(nul) == [(None, REQUEST_BAD_CHARACTERS)]
        no_body = client.post(f"/reviews/{review.id}/reject", headers=idem())
        assert no_body.status_code == 422
        assert fresh(session, Review, review.id).status == decisions.SUBMITTED  # nothing changed by refusals

        done = client.post(
            f"/reviews/{review.id}/reject",
            json={"reason": "low-effort", "note": "One word answers.", "flags": ["speeder"], "evidence": "20 s"},
            headers=idem(),
        )
        assert done.status_code == 200, done.json()
        assert done.json()["reviews"][0]["status"] == "rejected"
        assert done.json()["reviews"][0]["reward_status"] == "CANCELED"

        detail = client.get(f"/reviews/{review.id}").json()
        assert detail["reject_reason"] == "low-effort"
        assert detail["reject_reason_label"] == decisions.REJECTION_REASONS["low-effort"]
        assert detail["reject_note"] == "One word answers."
        assert "Finished far faster" in detail["evidence"]
    assert fresh(session, Reward, reward.id).status == "CANCELED"


def test_exclude_pays_like_an_approval(session, monkeypatch):
    _, made = three_reviews(session)
    review, reward = made[1]
    key = api_key(session, *WRITE)
    with api_client(session, monkeypatch, key) as client:
        done = client.post(f"/reviews/{review.id}/exclude", headers=idem())
    assert done.status_code == 200, done.json()
    assert done.json()["reviews"] == [
        {"id": review.id, "status": "excluded", "reward_id": reward.id, "reward_status": "PENDING"}
    ]
    assert fresh(session, Reward, reward.id).approved_at is not None
    assert [r.target_id for r in audit_rows(session, "review.exclude")] == [str(review.id)]


def test_bulk_decides_the_undecided_and_refuses_unknown_ids(session, monkeypatch):
    _, made = three_reviews(session)
    ids = [review.id for review, _ in made]
    key = api_key(session, *WRITE)
    with api_client(session, monkeypatch, key) as client:
        client.post(f"/reviews/{ids[0]}/approve", headers=idem())

        unknown = client.post(
            "/reviews/decisions", json={"review_ids": [*ids, 999998, 999999], "decision": "approve"}, headers=idem()
        )
        assert unknown.status_code == 404
        assert messages(unknown) == [("review_ids", "No review has the id 999998, 999999.")]

        no_reason = client.post("/reviews/decisions", json={"review_ids": ids, "decision": "reject"}, headers=idem())
        assert no_reason.status_code == 422 and messages(no_reason) == [("reason", decisions.REASON_REQUIRED)]
        bad_decision = client.post("/reviews/decisions", json={"review_ids": ids, "decision": "maybe"}, headers=idem())
        assert bad_decision.status_code == 422 and bad_decision.json()["errors"][0]["field"] == "decision"
        empty = client.post("/reviews/decisions", json={"review_ids": [], "decision": "approve"}, headers=idem())
        assert empty.status_code == 422 and empty.json()["errors"][0]["field"] == "review_ids"

        done = client.post(
            "/reviews/decisions",
            json={"review_ids": ids, "decision": "reject", "reason": "off-topic"},
            headers=idem(),
        )
        assert done.status_code == 200, done.json()
        assert done.json()["decided"] == 2
        assert [(r["id"], r["status"]) for r in done.json()["reviews"]] == [
            (ids[0], "approved"),
            (ids[1], "rejected"),
            (ids[2], "rejected"),
        ]
    assert len(audit_rows(session, "review.reject")) == 2


def test_a_read_key_cannot_decide_nor_a_key_whose_creator_lost_the_role(session, monkeypatch):
    _, made = three_reviews(session)
    review = made[0][0]
    read_only = api_key(session, "reviews:read")
    with api_client(session, monkeypatch, read_only) as client:
        refused = client.post(f"/reviews/{review.id}/approve", headers=idem())
        assert refused.status_code == 403
        assert "reviews:write" in refused.json()["errors"][0]["message"]
    writer = api_key(session, "reviews:write")
    with api_client(session, monkeypatch, writer) as client:
        assert client.get("/reviews").status_code == 403  # reviews:read is its own scope
        # The key's creator is a team manager now: the key acts no more.
        creator = fresh(session, ApiKey, key_id(session, writer)).created_by_id
        account = session.get(Account, creator)
        account.staff_role = roles.TEAM_MANAGER
        session.add(account)
        session.commit()
        demoted = client.post(f"/reviews/{review.id}/approve", headers=idem())
        assert demoted.status_code == 401 and messages(demoted) == [(None, key_rules.BAD_KEY)]
    assert fresh(session, Review, review.id).status == decisions.SUBMITTED
