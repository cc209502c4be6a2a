"""/api/v1/participants (issue 39) on SQLite and PostgreSQL, as a caller sees it: search as the staff table searches,
the verified filter, pages by cursor, one profile as staff read it (never a hash or a secret), and verification by the
staff service, once, audited under the key."""

from __future__ import annotations

import json
import uuid

from sqlmodel import Session

from portal.api.request_guard import BAD_CHARACTERS
from portal.domain.staff import roles
from portal.models import Account
from portal.models._base import utcnow
from portal.services.api.participants import NO_PARTICIPANT
from tests.integration.test_admin_services import audit_rows, fresh, person
from tests.support.api import api_client, api_key, key_id


def messages(answer) -> list[tuple[str | None, str]]:
    return [(e["field"], e["message"]) for e in answer.json()["errors"]]


def people(session: Session):
    tag = uuid.uuid4().hex[:6]
    ada = person(session, first_name="Ada", last_name=f"Lovelace{tag}", country="GB")
    alan = person(session, first_name="Alan", last_name=f"Turing{tag}", verified=False)
    grace = person(session, first_name="Grace", last_name=f"Hopper{tag}", email=f"grace-{tag}@navy.example")
    staff = person(session, role=roles.TEAM_MANAGER, first_name="Staff", last_name=f"Member{tag}")
    return tag, ada, alan, grace, staff


def test_search_filter_and_pages(session, monkeypatch):
    tag, ada, alan, grace, staff = people(session)
    key = api_key(session, "participants:read")
    with api_client(session, monkeypatch, key) as client:

        def ids(**params):
            answer = client.get("/participants", params=params)
            assert answer.status_code == 200, answer.json()
            return [p["id"] for p in answer.json()["data"]]

        assert ids(search=tag) == [grace.id, alan.id, ada.id]  # newest first; never the staff member
        assert ids(search=f"turing{tag}") == [alan.id]  # a last name, any case
        assert ids(search=f"Ada Lovelace{tag}") == [ada.id]  # 'first last'
        assert ids(search=f"grace-{tag}@navy") == [grace.id]  # an e-mail
        assert ids(search="no such person at all") == []
        assert ids(search=tag, verified="false") == [alan.id]
        assert ids(search=tag, verified="true") == [grace.id, ada.id]
        assert staff.id not in ids(limit=200)

        first = client.get("/participants", params={"search": tag, "limit": 2}).json()
        assert [p["id"] for p in first["data"]] == [grace.id, alan.id]
        rest = client.get("/participants", params={"search": tag, "limit": 2, "cursor": first["next_cursor"]}).json()
        assert [p["id"] for p in rest["data"]] == [ada.id] and rest["next_cursor"] is None

        row = client.get("/participants", params={"search": f"Lovelace{tag}"}).json()["data"][0]
        assert row == {
            "id": ada.id,
            "name": f"Ada Lovelace{tag}",
            "email": ada.email,
            "work_email": ada.work_email,
            "country": "GB",
            "country_name": "United Kingdom",
            "verified": True,
            "status": "active",
            "created_at": row["created_at"],
        }

        # A NUL (PostgreSQL refuses one) is refused, not dropped: the caller learns its text was not taken as sent.
        nul = client.get("/participants", params={"search": f"turing\x00{tag}"})
        assert nul.status_code == 422 and nul.json()["errors"] == [{"field": None, "message": BAD_CHARACTERS}]
        too_long = client.get("/participants", params={"search": "x" * 101})
        assert too_long.status_code == 422 and too_long.json()["errors"][0]["field"] == "search"
        bad_flag = client.get("/participants", params={"verified": "perhaps"})
        assert bad_flag.status_code == 422 and bad_flag.json()["errors"][0]["field"] == "verified"


def test_one_participant_as_staff_read_it_without_secrets(session, monkeypatch):
    tag, ada, _, _, staff = people(session)
    key = api_key(session, "participants:read")
    with api_client(session, monkeypatch, key) as client:
        found = client.get(f"/participants/{ada.id}")
        assert found.status_code == 200, found.json()
        body = found.json()
        assert (body["id"], body["email"], body["verified"], body["status"]) == (ada.id, ada.email, True, "active")
        assert body["email_verified"] is True
        assert body["profile"]["firstName"] == "Ada" and body["profile"]["country"] == "GB"
        text = json.dumps(body).lower()
        for secret in ("password", "hash", "token", "secret"):
            assert secret not in text

        missing = client.get("/participants/999999")
        assert missing.status_code == 404 and messages(missing) == [(None, NO_PARTICIPANT)]
        assert client.get(f"/participants/{staff.id}").status_code == 404  # staff are not participants


def test_verify_and_unverify_once_each_audited_under_the_key(session, monkeypatch):
    _, ada, alan, _, staff = people(session)
    key = api_key(session, "participants:read", "participants:write")
    with api_client(session, monkeypatch, key) as client:
        verified = client.post(f"/participants/{alan.id}/verify")
        assert verified.status_code == 200, verified.json()
        assert (verified.json()["id"], verified.json()["verified"], verified.json()["changed"]) == (alan.id, True, True)
        again = client.post(f"/participants/{alan.id}/verify")
        assert (again.status_code, again.json()["changed"]) == (200, False)

        keyed = client.post(f"/participants/{ada.id}/unverify", headers={"Idempotency-Key": "u-1"})
        assert keyed.status_code == 200 and keyed.json()["changed"] is True
        replay = client.post(f"/participants/{ada.id}/unverify", headers={"Idempotency-Key": "u-1"})
        assert replay.json() == keyed.json() and replay.headers["Idempotent-Replayed"] == "true"

        missing = client.post("/participants/999999/verify")
        assert missing.status_code == 404 and messages(missing) == [(None, NO_PARTICIPANT)]
        assert client.post(f"/participants/{staff.id}/verify").status_code == 404

    assert fresh(session, Account, alan.id).verified is True
    assert fresh(session, Account, ada.id).verified is False
    [row] = audit_rows(session, "participant.verify")
    assert row.target_id == str(alan.id) and row.api_key_id == key_id(session, key)
    assert [r.target_id for r in audit_rows(session, "participant.unverify")] == [str(ada.id)]


def test_a_read_key_cannot_verify_and_a_deactivated_participant_reads_so(session, monkeypatch):
    _, ada, alan, _, _ = people(session)
    account = session.get(Account, ada.id)
    account.removed_at = utcnow()
    session.add(account)
    session.commit()
    key = api_key(session, "participants:read")
    with api_client(session, monkeypatch, key) as client:
        refused = client.post(f"/participants/{alan.id}/verify")
        assert refused.status_code == 403 and "participants:write" in refused.json()["errors"][0]["message"]
        assert client.get(f"/participants/{ada.id}").json()["status"] == "deactivated"
    assert fresh(session, Account, alan.id).verified is False
