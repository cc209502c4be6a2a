"""The invite page's figures are what the sender does: 'will be invited' counts exactly who a batch then
invites (verified, in the test's audience country, not invited or reviewed yet, within the quotas), and
the cost is the sum of their invites. Picked rows are invited alone, with the reasons of those who
cannot be. Starting or sending one batch many times at once invites each person once, with one batch
and one audit row. On SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from portal.domain.staff import roles
from portal.models import AuditEntry, Invite, InviteBatch, OutboxEmail
from portal.models._base import utcnow
from portal.services.admin import invites
from portal.services.errors import ServiceError
from tests.integration.test_admin_services import a_review, a_test, bulk_participants, factory_of
from tests.integration.test_admin_services import invitee as person

TM = roles.TEAM_MANAGER


def world(session) -> dict[str, Any]:
    """Everyone the rule must tell apart, in one test's audience (US)."""
    manager = person(session, role=TM)
    test = a_test(session)  # survey, launched an hour ago: day-1 rates (specialist $10, middle $20, senior $35)
    p: dict[str, Any] = {
        "senior1": person(session, levels=["senior"]),
        "senior2": person(session, levels=["senior"]),
        "middle": person(session, levels=["middle"]),
        "specialist": person(session, levels=["specialist"]),
        "none": person(session, levels=[]),
        "unverified": person(session, verified=False, levels=["senior"]),
        "email_unconfirmed": person(session, email_verified=False),
        "elsewhere": person(session, country="GB", levels=["senior"]),
        "no_country": person(session, country=None),
        "invited": person(session),
        "reviewed": person(session),
        "staff": person(session, role=roles.TEAM_OWNER),
        "gone": person(session),
        "unfinished": person(session, registration_complete=False),
    }
    p["gone"].removed_at = utcnow()
    session.add(p["gone"])
    session.add(
        Invite(
            account_id=p["invited"].id,
            test_id=test.id,
            amount_cents=1000,
            status="expired",
            expires_at=utcnow() - timedelta(hours=1),
        )
    )
    session.commit()
    a_review(session, test, p["reviewed"])
    return {"manager": manager, "test": test, "people": p}


def audience(session, w, criteria: Any = None, override: Any = None) -> invites.Audience:
    return invites.audience(
        session=session,
        actor_id=w["manager"].id,
        test_id=w["test"].id,
        criteria=criteria or {},
        override_cents=override,
    )


def send(session, w, criteria: Any = None, override: Any = None) -> dict[str, Any]:
    batch = invites.start_batch(
        session=session,
        actor_id=w["manager"].id,
        test_id=w["test"].id,
        criteria=criteria or {},
        override_cents=override,
    )
    session.commit()
    return invites.send_all(session_factory=factory_of(session), actor_id=w["manager"].id, batch_id=batch["id"])


def sent_invites(session, test_id: int) -> dict[int, int]:
    session.expire_all()
    return dict(
        session.execute(
            select(Invite.account_id, Invite.amount_cents).where(
                Invite.test_id == test_id, Invite.batch_id.is_not(None)
            )
        ).all()
    )


QUOTAS = {
    "no quotas": ({}, {"senior1": 3500, "senior2": 3500, "middle": 2000, "specialist": 1000, "none": 1000}, 0),
    "participant limit": ({"participant_limit": 4}, {"senior1": 3500, "senior2": 3500, "middle": 2000}, 2),
    "seniority limit": (
        {"seniority_limits": {"senior": 1}},
        {"senior1": 3500, "middle": 2000, "specialist": 1000, "none": 1000},
        1,
    ),
}


@pytest.mark.parametrize("quota", QUOTAS, ids=list(QUOTAS))
def test_will_be_invited_is_exactly_who_the_sender_invites_and_the_cost_their_sum(session, quota):
    w = world(session)
    settings, expected, over = QUOTAS[quota]
    for key, value in settings.items():
        setattr(w["test"], key, value)
    session.add(w["test"])
    session.commit()
    p = w["people"]
    # The review counts towards the participant limit: 4 - 1 leaves 3 places.

    found = audience(session, w)

    assert (
        found.matched == 11
    )  # staff, the deactivated account and the unfinished sign-up are not participants to invite
    assert (found.invited, found.reviewed, found.unverified, found.elsewhere, found.over_quota) == (1, 1, 2, 2, over)
    assert found.to_invite == len(expected)
    assert found.cost_cents == sum(expected.values())
    assert found.cost_text == f"${sum(expected.values()) // 100:,}"
    assert found.country == "United States"

    result = send(session, w)

    invited = sent_invites(session, w["test"].id)
    assert invited == {p[name].id: cents for name, cents in expected.items()}
    assert (result["sent"], result["requested"], result["skipped"], result["status"]) == (
        len(expected),
        len(expected),
        0,
        "done",
    )
    assert session.execute(
        select(func.count()).select_from(OutboxEmail).where(OutboxEmail.kind == "invite")
    ).scalar_one() == len(expected)
    [entry] = session.execute(select(AuditEntry).where(AuditEntry.action == "invites.send")).scalars().all()
    assert (entry.after["participants"], entry.after["cost_cents"]) == (len(expected), sum(expected.values()))
    # Afterwards the page counts nobody left (apart from those over a quota, still over it).
    again = audience(session, w)
    assert (again.to_invite, again.cost_cents, again.invited) == (0, 0, 1 + len(expected))


def test_an_override_prices_every_invite_of_the_batch(session):
    w = world(session)
    found = audience(session, w, override=4250)
    assert (found.to_invite, found.cost_cents, found.cost_text) == (5, 5 * 4250, "$212.50")
    assert found.payout_range == "$42.50"
    send(session, w, override=4250)
    assert sorted(sent_invites(session, w["test"].id).values()) == [4250] * 5


def test_picked_rows_are_invited_alone_and_the_others_are_named_with_their_reason(session):
    w = world(session)
    p = w["people"]
    picked = {
        "ids": [str(p[n].id) for n in ("middle", "unverified", "elsewhere", "staff", "invited")],
        "search": "nobody-matches-this",
        "filters": [],
    }  # picking rows sets the search and filters aside

    found = audience(session, w, picked)

    assert (found.picked, found.matched, found.to_invite, found.cost_cents) == (5, 4, 1, 2000)
    assert found.problem == (
        "4 of the 5 selected cannot be invited: 1 is staff, deactivated or without a finished sign-up, "
        "1 is already invited, 1 is not verified, 1 is not in United States."
    )
    result = send(session, w, picked)
    assert result["sent"] == 1
    assert sent_invites(session, w["test"].id) == {p["middle"].id: 2000}

    with pytest.raises(ServiceError) as nobody:
        invites.start_batch(
            session=session,
            actor_id=w["manager"].id,
            test_id=w["test"].id,
            criteria={"ids": [p["unverified"].id, p["middle"].id]},
        )
    assert nobody.value.message == invites.NOBODY_PICKED
    with pytest.raises(ServiceError) as too_many:
        audience(session, w, {"ids": list(range(1, invites.MAX_PICKED + 2))})
    assert too_many.value.message == invites.TOO_MANY_PICKED
    # Junk in the list is not an id; nothing else changes.
    junk = audience(session, w, {"ids": ["x", None, -3, "²", True, str(p["specialist"].id)]})
    assert (junk.picked, junk.to_invite) == (1, 1)


def test_without_picks_the_message_names_who_will_not_be_invited(session):
    w = world(session)
    w["test"].participant_limit = 4
    session.add(w["test"])
    session.commit()
    found = audience(session, w)
    assert found.problem == (
        "8 of those matching will not be invited: 1 is already invited, 1 already reviewed the test, "
        "2 are not verified, 2 are not in United States, 2 would exceed the test's quotas."
    )


def _at_once(count: int, call) -> list[Any]:
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(n: int) -> None:
        barrier.wait(timeout=30)
        try:
            results[n] = call()
        except ServiceError as err:
            results[n] = err.message
        except Exception as err:  # noqa: BLE001 - reported by the assertions
            results[n] = err

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)
    return results


def test_fifty_identical_starts_make_one_batch_and_one_audit_row(session):
    manager = person(session, role=TM)
    test = a_test(session)
    bulk_participants(session, 40)
    factory = factory_of(session)

    def start() -> dict[str, Any]:
        with factory() as s:
            batch = invites.start_batch(session=s, actor_id=manager.id, test_id=test.id, criteria={})
            s.commit()
            return batch

    results = _at_once(50, start)

    assert all(isinstance(r, dict) for r in results), [r for r in results if not isinstance(r, dict)][:3]
    assert len({r["id"] for r in results}) == 1
    assert sorted(r["joined"] for r in results) == [False] + [True] * 49
    session.expire_all()
    assert session.execute(select(func.count()).select_from(InviteBatch)).scalar_one() == 1
    assert (
        session.execute(
            select(func.count()).select_from(AuditEntry).where(AuditEntry.action == "invites.send")
        ).scalar_one()
        == 1
    )
    assert session.execute(select(func.count()).select_from(Invite)).scalar_one() == 0  # recorded, not sent yet


def test_fifty_senders_of_one_batch_invite_each_person_once(session, monkeypatch):
    monkeypatch.setattr(invites, "CHUNK", 7)
    manager = person(session, role=TM)
    test = a_test(session)
    bulk_participants(session, 60)
    batch = invites.start_batch(session=session, actor_id=manager.id, test_id=test.id, criteria={})
    session.commit()
    factory = factory_of(session)

    def chunk() -> dict[str, Any]:
        with factory() as s:
            progress = invites.run_chunk(session=s, actor_id=manager.id, batch_id=batch["id"])
            s.commit()
            return progress

    results = _at_once(50, chunk)

    lost = [r for r in results if not isinstance(r, dict)]
    assert all(r == "This batch is not being sent." for r in lost), lost[:3]
    assert len(lost) == 50 - 9  # 60 people in chunks of 7: 9 chunks, the ninth finds nobody left and ends the batch
    session.expire_all()
    invited = session.execute(select(Invite.account_id).where(Invite.test_id == test.id)).scalars().all()
    assert len(invited) == len(set(invited)) == 60
    assert (
        session.execute(select(func.count()).select_from(OutboxEmail).where(OutboxEmail.kind == "invite")).scalar_one()
        == 60
    )
    stored = session.get(InviteBatch, batch["id"])
    assert (stored.sent, stored.status, stored.skipped) == (60, "done", 0)
    assert (
        session.execute(
            select(func.count()).select_from(AuditEntry).where(AuditEntry.action == "invites.send")
        ).scalar_one()
        == 1
    )
