"""One door for staff, tried as a hostile script would: a team manager and a team owner send raw websocket
events to every public handler that could change another account (the staff profile page, the participants
table, the change-request queue, and the old `/profile?participant=` address), and plain HTTP requests, against
accounts of their own and of higher roles. Nothing changes and no audit row is written; the same actions on a
participant, which the roles table allows, change exactly what they should, each with one audit row."""

from __future__ import annotations

import uuid

import pytest
from sqlmodel import select

from portal.domain.staff import roles
from portal.models import Account, AuditEntry, ParticipantProfile, ProfileChangeRequest
from portal.states.admin.participants import AdminParticipantsState, ChangeRequestsState
from portal.states.admin.profile import AdminProfileState
from portal.states.profile import ProfileState
from tests.support.people import Person, caller, person
from tests.support.raw_tab import RawTab, run, tracebacks

ADMIN_PROFILE, PARTICIPANTS, REQUESTS, OWN_PROFILE = (
    s.get_full_name() for s in (AdminProfileState, AdminParticipantsState, ChangeRequestsState, ProfileState)
)
ACTORS = (roles.TEAM_MANAGER, roles.TEAM_OWNER)


def _targets(actor_role: str) -> list[str]:
    """The roles of the same rank as the actor's or higher."""
    return [r for r in roles.ROLES if roles.rank(r) >= roles.rank(actor_role)]


def _snapshot(db, account_id: int) -> tuple:
    db.expire_all()
    account = db.get(Account, account_id)
    profile = db.get(ParticipantProfile, account_id)
    return (
        account.email,
        account.work_email,
        account.verified,
        account.removed_at,
        account.staff_role,
        profile.first_name if profile else None,
        account.password_hash,
    )


def _audit(db, account_id: int) -> list[AuditEntry]:
    db.expire_all()
    return list(
        db.exec(
            select(AuditEntry).where(AuditEntry.target_type == "account", AuditEntry.target_id == str(account_id))
        ).all()
    )


def _pending_request(db, account_id: int) -> int:
    request = ProfileChangeRequest(
        account_id=account_id, payload={"firstName": "Changed"}, previous={"firstName": "Before"}, status="pending"
    )
    db.add(request)
    db.commit()
    return request.id


async def _every_path(base: str, actor: Person, target_id: int, target_email: str, request_id: int) -> tuple[str, str]:
    """Every handler that could change the target, in the order a page would send them: (the e-mail tried, what the
    tabs received)."""
    new_email = f"taken-over-{uuid.uuid4().hex[:8]}@example.com"
    tab = RawTab(base, cookie=actor.cookie)
    # The staff page of the target.
    await tab.open(f"/admin/participants/{target_id}", {"admin_participant_id": str(target_id)})
    await tab.answer(f"{ADMIN_PROFILE}.load")
    for key, value in (("firstName", "Mallory"), ("email", new_email), ("workEmail", new_email)):
        await tab.answer(f"{ADMIN_PROFILE}.set_text", {"key": key, "value": value})
    await tab.answer(f"{ADMIN_PROFILE}.check_email", {"key": "email", "value": new_email})
    await tab.answer(f"{ADMIN_PROFILE}.save", {"verify": True}, settle=0.5)
    await tab.answer(f"{ADMIN_PROFILE}.save", {"verify": False}, settle=0.5)
    await tab.close()
    texts = [tab.text()]
    # The participants table's actions on the target (its row loaded, as the table shows it).
    tab = RawTab(base, cookie=actor.cookie)
    await tab.open("/admin/participants")
    await tab.answer(f"{PARTICIPANTS}.search", {"text": target_email}, settle=0.5)
    await tab.answer(f"{PARTICIPANTS}.toggle_selected", {"row_id": str(target_id)})
    for action in ("verify", "unverify"):
        await tab.answer(f"{PARTICIPANTS}.ask", {"action": action})
        await tab.answer(f"{PARTICIPANTS}.confirm", settle=0.4)
    await tab.answer(f"{PARTICIPANTS}.ask_deactivate", {"account_id": str(target_id)})
    await tab.answer(f"{PARTICIPANTS}.confirm_deactivate", settle=0.4)
    await tab.answer(f"{PARTICIPANTS}.reactivate", {"account_id": str(target_id)})
    await tab.answer(f"{PARTICIPANTS}.open_role", {"account_id": str(target_id), "current": "participant"})
    await tab.answer(f"{PARTICIPANTS}.choose_role", {"role": "participant"})
    await tab.answer(f"{PARTICIPANTS}.save_role", settle=0.4)
    # The change-request queue: declining puts old values back.
    await tab.answer(f"{REQUESTS}.decide", {"request_id": str(request_id), "approve": False}, settle=0.4)
    await tab.close()
    texts.append(tab.text())
    # The old second path: /profile?participant=<id> is the caller's own profile now.
    tab = RawTab(base, cookie=actor.cookie)
    await tab.open("/profile", {"participant": str(target_id)})
    await tab.answer(f"{OWN_PROFILE}.load")
    await tab.answer(f"{OWN_PROFILE}.set_text", {"key": "email", "value": new_email})
    await tab.answer(f"{OWN_PROFILE}.save", {"verify": True}, settle=0.5)
    await tab.close()
    texts.append(tab.text())
    return new_email, "\n".join(texts)


@pytest.mark.parametrize("actor_role", ACTORS)
def test_no_path_changes_an_account_of_the_same_or_a_higher_role(app_server, http, actor_role):
    with app_server.db() as db:
        actor = caller(db, actor_role)
        for target_role in _targets(actor_role):
            target = person(db)
            account = db.get(Account, target.account_id)
            account.staff_role = target_role
            db.add(account)
            db.commit()
            request_id = _pending_request(db, target.account_id)
            before = _snapshot(db, target.account_id)
            new_email, received = run(_every_path(app_server.url, actor, target.account_id, target.email, request_id))
            # HTTP: the staff page and the old address are pages; they carry none of the target's data.
            for path in (f"/admin/participants/{target.account_id}", f"/profile?participant={target.account_id}"):
                answer = http.get(path, headers={"Cookie": actor.cookie})
                assert answer.status_code in (200, 404) and target.email not in answer.text
            assert _snapshot(db, target.account_id) == before, f"{actor_role} changed a {target_role}"
            assert _audit(db, target.account_id) == []
            db.expire_all()
            assert db.get(ProfileChangeRequest, request_id).status == "pending"
            # Only the caller's own account may carry the e-mail tried (their own /profile, whatever the query said).
            assert {a.id for a in db.exec(select(Account).where(Account.email == new_email))} <= {actor.account_id}
            assert roles.HIGHER_ROLE in received
    assert tracebacks(app_server.log_path.read_text()) == []


@pytest.mark.parametrize("actor_role", ACTORS)
def test_what_the_roles_table_allows_changes_exactly_that(app_server, actor_role):
    with app_server.db() as db:
        actor = caller(db, actor_role)
        target = person(db, verified=False)
        before = _snapshot(db, target.account_id)

    async def verify_by_events() -> RawTab:
        tab = RawTab(app_server.url, cookie=actor.cookie)
        await tab.open(f"/admin/participants/{target.account_id}", {"admin_participant_id": str(target.account_id)})
        await tab.answer(f"{ADMIN_PROFILE}.load", settle=0.5)
        await tab.answer(f"{ADMIN_PROFILE}.set_text", {"key": "firstName", "value": "Verified"})
        await tab.answer(f"{ADMIN_PROFILE}.set_flag", {"key": "hasExperience", "on": True})
        await tab.answer(f"{ADMIN_PROFILE}.toggle_language", {"key": "english"})
        await tab.answer(f"{ADMIN_PROFILE}.save", {"verify": True}, settle=0.8)
        await tab.close()
        return tab

    tab = run(verify_by_events())
    assert "Profile saved. The participant is verified." in tab.text()
    with app_server.db() as db:
        after = _snapshot(db, target.account_id)
        assert after[2] is True and after[5] == "Verified"
        assert (after[0], after[1], after[3], after[4], after[6]) == (
            before[0],
            before[1],
            before[3],
            before[4],
            before[6],
        )
        rows = _audit(db, target.account_id)
        assert [(r.action, r.actor_id, r.actor_role) for r in rows] == [
            ("participant.verify-profile", actor.account_id, actor_role)
        ]
        assert rows[0].after["firstName"] == "Verified" and rows[0].after["verified"] is True
