"""/api/v1 invites as a caller sees them (issue 39): a batch sent to a filtered set through the invite page's service
(the invite rule, quotas and e-mails as there), with a required Idempotency-Key (50 identical requests at once send
one batch and get one answer); the test's invites in cursor pages; an open invite canceled once, audited under the
key. On SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlmodel import Session

from portal.models import AuditEntry, Invite, InviteBatch, OutboxEmail
from portal.models._base import utcnow
from portal.services.api import invites as service
from tests.integration.test_admin_services import a_test, invitee
from tests.support.api import api_client, api_key, at_once, errors_of, key_id

SENIORS = {"filters": [{"name": "seniority", "values": ["senior"]}]}


def key_header() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def invites_of(session: Session, test_id: int) -> list[Invite]:
    session.expire_all()
    return list(session.execute(select(Invite).where(Invite.test_id == test_id).order_by(Invite.id)).scalars())


def audit_rows(session: Session, action: str) -> list[AuditEntry]:
    session.expire_all()
    return list(session.execute(select(AuditEntry).where(AuditEntry.action == action)).scalars())


@pytest.fixture
def world(session: Session):
    """A running survey in the US; three US seniors, a US middle, a senior abroad."""
    test = a_test(session)
    people = {
        "seniors": [invitee(session, levels=["senior"]) for _ in range(3)],
        "middle": invitee(session, levels=["middle"]),
        "abroad": invitee(session, levels=["senior"], country="GB"),
    }
    return test, people


@pytest.fixture
def inviter(session: Session, monkeypatch: pytest.MonkeyPatch):
    key = api_key(session, "invites:write")
    with api_client(session, monkeypatch, key) as client:
        client.key = key
        yield client


# --- sending ----------------------------------------------------------------------------------------------------


def test_a_batch_invites_whom_the_filters_and_the_invite_rule_choose(session, world, inviter):
    test, people = world
    answer = inviter.post(f"/tests/{test.id}/invites", json=SENIORS, headers=key_header())

    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert (body["test_id"], body["requested"], body["sent"], body["status"], body["joined"]) == (
        test.id,
        3,
        3,
        "done",
        False,
    )
    assert body["note"] == "1 of those matching will not be invited: 1 is not in United States."
    invited = invites_of(session, test.id)
    assert sorted(i.account_id for i in invited) == sorted(p.id for p in people["seniors"])
    assert {i.status for i in invited} == {"open"} and {i.batch_id for i in invited} == {body["id"]}
    [row] = audit_rows(session, "invites.send")
    assert row.api_key_id == key_id(session, inviter.key) and row.after["participants"] == 3
    assert session.execute(select(func.count()).select_from(OutboxEmail)).scalar_one() == 3  # their e-mails


def test_a_preview_counts_without_sending(session, world, inviter):
    test, _ = world
    answer = inviter.post(f"/tests/{test.id}/invites/preview", json=SENIORS)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["matched"], body["elsewhere"], body["to_invite"]) == (4, 1, 3)
    assert body["cost_cents"] > 0 and body["country"] == "United States"
    assert invites_of(session, test.id) == []


def test_the_idempotency_key_is_required_and_kept_per_request(session, world, inviter):
    test, _ = world
    missing = inviter.post(f"/tests/{test.id}/invites", json=SENIORS)
    assert missing.status_code == 422 and [f for f, _ in errors_of(missing)] == ["Idempotency-Key"]

    headers = key_header()
    first = inviter.post(f"/tests/{test.id}/invites", json=SENIORS, headers=headers)
    again = inviter.post(f"/tests/{test.id}/invites", json=SENIORS, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
    other = inviter.post(f"/tests/{test.id}/invites", json={"search": "x"}, headers=headers)
    assert other.status_code == 422 and errors_of(other)[0][0] == "Idempotency-Key"
    assert len(invites_of(session, test.id)) == 3
    # A new key with the same criteria: everyone was invited already.
    later = inviter.post(f"/tests/{test.id}/invites", json=SENIORS, headers=key_header())
    assert later.status_code == 422 and errors_of(later) == [(None, service.staff_invites.NOBODY)]


def test_filters_the_table_does_not_know_are_refused_not_dropped(session, world, inviter):
    test, _ = world
    for body, field in (
        ({"filters": [{"name": "seniority", "values": ["wizard"]}]}, "filters.0.values"),
        ({"filters": [{"name": "shoe-size", "values": ["42"]}]}, "filters.0.name"),
        ({"filters": [{"name": "seniority", "type": "range", "values": ["senior"]}]}, "filters.0.type"),
        ({"filters": [{"name": "createdOn", "values": ["2026-01-01"]}]}, "filters.0.values"),
        (
            {"filters": [{"name": "seniority", "values": ["senior"]}, {"name": "seniority", "values": ["middle"]}]},
            "filters.1.name",
        ),
        ({"filters": [{"name": "seniority", "values": []}]}, "filters.0.values"),
        ({"participant_ids": [0]}, "participant_ids.0"),
        ({"payout_cents": 5}, "payout_cents"),
        ({"everyone": True}, "everyone"),
    ):
        answer = inviter.post(f"/tests/{test.id}/invites", json=body, headers=key_header())
        assert answer.status_code == 422, (body, answer.text)
        assert errors_of(answer)[0][0] == field, (body, answer.text)
    nul = inviter.post(f"/tests/{test.id}/invites", json={"search": "a\u0000b"}, headers=key_header())
    assert nul.status_code == 422 and errors_of(nul)[0][1].endswith(
        "contains characters that are not allowed (control characters or invalid Unicode)."
    )
    assert invites_of(session, test.id) == []


def test_picked_participants_and_an_override_are_invited_as_on_the_page(session, world, inviter):
    test, people = world
    chosen = [people["middle"].id, people["abroad"].id]
    answer = inviter.post(
        f"/tests/{test.id}/invites", json={"participant_ids": chosen, "payout_cents": 4500}, headers=key_header()
    )
    assert answer.status_code == 201 and answer.json()["sent"] == 1
    [invite] = invites_of(session, test.id)
    assert (invite.account_id, invite.amount_cents) == (people["middle"].id, 4500)


def test_a_test_not_running_is_a_conflict_and_an_unknown_one_404(session, world, inviter):
    test, _ = world
    stopped = a_test(session, status="stopped")
    answer = inviter.post(f"/tests/{stopped.id}/invites", json=SENIORS, headers=key_header())
    assert answer.status_code == 409 and errors_of(answer) == [(None, service.staff_invites.NOT_RUNNING)]
    for method, path in (
        ("POST", "/tests/99999/invites"),
        ("POST", "/tests/99999/invites/preview"),
        ("GET", "/tests/99999/invites"),
    ):
        answer = inviter.request(method, path, json=SENIORS, headers=key_header())
        assert answer.status_code == 404 and errors_of(answer) == [(None, "This test does not exist.")]


def test_a_key_without_the_invites_scope_is_refused(session, monkeypatch, world):
    test, _ = world
    with api_client(session, monkeypatch, api_key(session, "tests:read", "tests:write")) as client:
        for answer in (
            client.post(f"/tests/{test.id}/invites", json=SENIORS, headers=key_header()),
            client.get(f"/tests/{test.id}/invites"),
            client.post("/invites/1/cancel"),
        ):
            assert answer.status_code == 403
            assert errors_of(answer) == [(None, "This API key does not have the scope invites:write.")]
    assert invites_of(session, test.id) == []


def test_fifty_identical_requests_with_one_key_send_one_batch_and_get_one_answer(session, monkeypatch, world):
    test, people = world
    key = api_key(session, "invites:write")
    answers = at_once(
        session,
        monkeypatch,
        key,
        "POST",
        f"/tests/{test.id}/invites",
        n=50,
        json=SENIORS,
        headers={"Idempotency-Key": "batch-1"},
    )

    assert [a.status_code for a in answers] == [201] * 50, [a.text for a in answers if a.status_code != 201][:3]
    assert len({a.text for a in answers}) == 1
    assert sum(1 for a in answers if a.headers.get("idempotent-replayed") == "true") == 49
    session.expire_all()
    assert session.execute(select(func.count()).select_from(InviteBatch)).scalar_one() == 1
    assert sorted(i.account_id for i in invites_of(session, test.id)) == sorted(p.id for p in people["seniors"])
    assert len(audit_rows(session, "invites.send")) == 1


# --- listing ----------------------------------------------------------------------------------------------------


def test_the_list_pages_through_the_test_s_invites_and_filters_them(session, world, inviter):
    test, people = world
    everyone = [*people["seniors"], people["middle"], people["abroad"]]
    now = utcnow()
    for n, who in enumerate(everyone):
        expired = n == 0
        session.add(
            Invite(
                account_id=who.id,
                test_id=test.id,
                amount_cents=1000 + n,
                status="open" if n < 4 else "completed",
                created_at=now - timedelta(hours=30 if expired else 1),
                expires_at=now - timedelta(hours=6) if expired else now + timedelta(hours=23),
            )
        )
    session.add(Invite(account_id=people["middle"].id, test_id=a_test(session).id, amount_cents=1, expires_at=now))
    session.commit()

    seen, cursor, pages = [], None, 0
    while True:
        answer = inviter.get(f"/tests/{test.id}/invites", params={"limit": 2, **({"cursor": cursor} if cursor else {})})
        assert answer.status_code == 200, answer.text
        seen += answer.json()["data"]
        pages += 1
        cursor = answer.json()["next_cursor"]
        if not cursor:
            break
    assert pages == 3 and [i["id"] for i in seen] == sorted((i["id"] for i in seen), reverse=True)
    assert sorted(i["participant_id"] for i in seen) == sorted(p.id for p in everyone)
    first = min(seen, key=lambda i: i["id"])
    assert (first["status"], first["amount_cents"], first["test_id"]) == ("expired", 1000, test.id)  # as seen
    assert set(first) == {
        "id", "test_id", "participant_id", "status", "amount_cents", "sent_at", "expires_at", "batch_id",
    }  # fmt: skip

    def listed(**params) -> list[int]:
        answer = inviter.get(f"/tests/{test.id}/invites", params=params)
        assert answer.status_code == 200, answer.text
        return sorted(i["participant_id"] for i in answer.json()["data"])

    assert listed(status="open") == sorted(p.id for p in everyone[1:4])
    assert listed(status="expired") == [everyone[0].id]
    assert listed(status="completed") == sorted(p.id for p in everyone[4:])
    assert listed(participant_id=people["middle"].id) == [people["middle"].id]
    bad = inviter.get(f"/tests/{test.id}/invites", params={"status": "lost"})
    assert bad.status_code == 422 and [f for f, _ in errors_of(bad)] == ["status"]


# --- cancel -----------------------------------------------------------------------------------------------------


def test_an_open_invite_is_canceled_once_and_audited_under_the_key(session, world, inviter):
    test, people = world
    inviter.post(f"/tests/{test.id}/invites", json=SENIORS, headers=key_header())
    invite = invites_of(session, test.id)[0]

    canceled = inviter.post(f"/invites/{invite.id}/cancel")
    assert canceled.status_code == 200, canceled.text
    assert (canceled.json()["id"], canceled.json()["status"]) == (invite.id, "canceled")
    again = inviter.post(f"/invites/{invite.id}/cancel")
    assert again.status_code == 409 and errors_of(again) == [
        (None, "Only an open invite can be canceled: this one is canceled.")
    ]
    assert [i.status for i in invites_of(session, test.id)].count("canceled") == 1
    [row] = audit_rows(session, "invites.cancel")
    assert (row.target_type, row.target_id, row.api_key_id) == ("invite", str(invite.id), key_id(session, inviter.key))
    assert (row.before, row.after["status"]) == ({"status": "open"}, "canceled")

    unknown = inviter.post("/invites/99999/cancel")
    assert unknown.status_code == 404 and errors_of(unknown) == [(None, service.NO_INVITE)]


def test_an_expired_or_used_invite_is_not_canceled(session, world, inviter):
    test, people = world
    now = utcnow()
    expired = Invite(
        account_id=people["middle"].id, test_id=test.id, amount_cents=1, expires_at=now - timedelta(minutes=1)
    )
    used = Invite(account_id=people["abroad"].id, test_id=test.id, amount_cents=1, status="completed", expires_at=now)
    session.add_all([expired, used])
    session.commit()
    for invite, status in ((expired, "expired"), (used, "completed")):
        answer = inviter.post(f"/invites/{invite.id}/cancel")
        assert answer.status_code == 409
        assert errors_of(answer) == [(None, f"Only an open invite can be canceled: this one is {status}.")]
    assert audit_rows(session, "invites.cancel") == []


def test_fifty_cancels_of_one_invite_at_once_cancel_it_once(session, monkeypatch, world):
    test, people = world
    invite = Invite(
        account_id=people["middle"].id, test_id=test.id, amount_cents=1, expires_at=utcnow() + timedelta(hours=2)
    )
    session.add(invite)
    session.commit()
    answers = at_once(
        session, monkeypatch, api_key(session, "invites:write"), "POST", f"/invites/{invite.id}/cancel", n=50
    )
    assert sorted(a.status_code for a in answers) == [200] + [409] * 49
    assert len(audit_rows(session, "invites.cancel")) == 1
