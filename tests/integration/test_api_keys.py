"""API keys (portal/services/admin/api_keys.py) on a migrated database, SQLite and PostgreSQL: what the form is told,
a key shown once and kept only as its hash, revoking once under 50 concurrent calls, the audit rows, and a key that
stops working when it is revoked or its creator is demoted or removed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import inspect, select, text
from sqlmodel import Session

from portal.domain import api_keys as rules
from portal.domain.staff import roles
from portal.models import Account, ApiKey, AuditEntry
from portal.models._base import utcnow
from portal.services.admin import api_keys, participants
from portal.services.admin.api_keys import KeyRefused
from portal.services.admin.guard import NOT_ALLOWED, ApiKeyCaller, StaffRefused
from portal.services.errors import ServiceError
from tests.integration.test_admin_services import audit_rows, fresh, person
from tests.support.races import all_at_once

SA = roles.SUPER_ADMIN


def make(session: Session, admin: Account, scopes: list[str] | None = None, **kwargs) -> api_keys.CreatedKey:
    made = api_keys.create_key(
        session, actor_id=admin.id, name=kwargs.pop("name", "Customer app"), scopes=scopes or ["tests:read"], **kwargs
    )
    session.commit()
    return made


@pytest.mark.parametrize(
    ("name", "scopes", "rate", "expected"),
    [
        ("", ["tests:read"], None, {"name": rules.NAME_REQUIRED}),
        ("   ", ["tests:read"], None, {"name": rules.NAME_REQUIRED}),
        ("x" * (rules.NAME_MAX + 1), ["tests:read"], None, {"name": rules.NAME_TOO_LONG}),
        (["a list"], ["tests:read"], None, {"name": rules.NAME_REQUIRED}),
        ("App", [], None, {"scopes": rules.SCOPES_REQUIRED}),
        ("App", None, None, {"scopes": rules.SCOPES_REQUIRED}),
        ("App", ["tests:read", "admin:everything"], None, {"scopes": "Unknown scope: admin:everything."}),
        ("App", ["tests:read"], "0", {"rate_per_minute": rules.RATE_INVALID}),
        ("App", ["tests:read"], "100001", {"rate_per_minute": rules.RATE_INVALID}),
        ("App", ["tests:read"], "ten", {"rate_per_minute": rules.RATE_INVALID}),
        ("App", ["tests:read"], "1.5", {"rate_per_minute": rules.RATE_INVALID}),
        (
            "",
            [],
            "-1",
            {"name": rules.NAME_REQUIRED, "scopes": rules.SCOPES_REQUIRED, "rate_per_minute": rules.RATE_INVALID},
        ),
    ],
)
def test_the_form_is_told_what_is_wrong_under_each_field_and_nothing_is_made(session, name, scopes, rate, expected):
    admin = person(session, role=SA)
    with pytest.raises(KeyRefused) as refused:
        api_keys.create_key(session, actor_id=admin.id, name=name, scopes=scopes, rate_per_minute=rate)
    session.rollback()
    assert refused.value.errors == expected
    assert (refused.value.field, refused.value.message) == next(iter(expected.items()))
    assert session.execute(select(ApiKey)).first() is None
    assert audit_rows(session, "api-key.create") == []


def test_a_key_is_made_with_its_scopes_in_order_and_the_default_rate_and_shown_only_in_the_answer(session):
    admin = person(session, role=SA)
    made = make(session, admin, ["results:read", "tests:read"], name="  Customer   web app ")
    assert made.name == "Customer web app"
    assert rules.looks_like_key(made.key) and made.key.startswith(rules.KEY_PREFIX) and len(made.key) >= 40
    stored = fresh(session, ApiKey, made.id)
    assert stored.scopes == ["tests:read", "results:read"]  # the table's order
    assert stored.rate_per_minute == rules.DEFAULT_RATE_PER_MINUTE
    assert stored.key_hash == rules.key_hash(made.key) != made.key
    assert stored.prefix == made.key[: rules.PREFIX_SHOWN]
    (row,) = api_keys.list_keys(session, actor_id=admin.id)
    assert row == {
        "id": str(made.id),
        "name": "Customer web app",
        "prefix": f"{made.key[: rules.PREFIX_SHOWN]}…",
        "scopes": "tests:read, results:read",
        "rate": "600/min",
        "created": row["created"],
        "creator": admin.email,
        "last_used": "Never",
        "status": "Active",
        "revoked": "",
    }
    assert made.key not in repr(api_keys.list_keys(session, actor_id=admin.id))
    other = make(session, admin, rate_per_minute="1200")
    assert other.key != made.key and fresh(session, ApiKey, other.id).rate_per_minute == 1200
    # The newest first; revoked keys after the active ones.
    assert [r["id"] for r in api_keys.list_keys(session, actor_id=admin.id)] == [str(other.id), str(made.id)]
    api_keys.revoke_key(session, actor_id=admin.id, key_id=other.id)
    session.commit()
    listed = api_keys.list_keys(session, actor_id=admin.id)
    assert [(r["id"], r["status"]) for r in listed] == [(str(made.id), "Active"), (str(other.id), "Revoked")]
    assert listed[1]["revoked"] != ""


def _every_stored_text(session: Session) -> str:
    """Every row of every table, as text."""
    parts = []
    for table in inspect(session.get_bind()).get_table_names():
        for row in session.execute(text(f'SELECT * FROM "{table}"')):
            parts.append(repr(tuple(row)))
    return "\n".join(parts)


def test_the_key_itself_is_nowhere_in_the_database_only_its_hash(session):
    admin = person(session, role=SA)
    made = make(session, admin, ["participants:write"])
    # A write made with it, and its use noted, put its id in more rows.
    target = person(session, verified=False)
    assert participants.set_verified(session, actor_id=ApiKeyCaller(made.key), account_ids=[target.id], verified=True)
    assert api_keys.authenticate(session, key=made.key) is not None
    session.commit()
    everything = _every_stored_text(session)
    assert rules.key_hash(made.key) in everything
    assert made.key not in everything
    assert made.key[rules.PREFIX_SHOWN :] not in everything
    assert made.key[rules.PREFIX_SHOWN : rules.PREFIX_SHOWN + 16] not in everything


def test_creating_and_revoking_are_audited_and_a_write_with_the_key_is_audited_under_it(session):
    admin = person(session, role=SA)
    made = make(session, admin, ["participants:write", "tests:read"], name="Partner sync")
    (created,) = audit_rows(session, "api-key.create")
    assert (created.actor_id, created.actor_role, created.target_type, created.target_id) == (
        admin.id,
        SA,
        "api-key",
        str(made.id),
    )
    assert created.after == {"name": "Partner sync", "scopes": "tests:read, participants:write"}
    assert created.api_key_id is None  # made by a person at the page
    assert made.key not in repr(created.after)

    target = person(session, verified=False)
    participants.set_verified(session, actor_id=ApiKeyCaller(made.key), account_ids=[target.id], verified=True)
    session.commit()
    by_key = [row for row in audit_rows(session) if row.api_key_id == made.id]
    assert by_key and all(row.actor_id == admin.id for row in by_key)

    assert api_keys.revoke_key(session, actor_id=admin.id, key_id=str(made.id)) == (
        "Key revoked. Requests made with it are refused from now on."
    )
    session.commit()
    (revoked,) = audit_rows(session, "api-key.revoke")
    assert (revoked.actor_id, revoked.target_id, revoked.api_key_id) == (admin.id, str(made.id), None)
    stored = fresh(session, ApiKey, made.id)
    assert stored.revoked_at is not None and stored.revoked_by_id == admin.id


def test_revoking_a_key_happens_once_under_fifty_concurrent_calls(session, db_url):
    admin, other_admin = person(session, role=SA), person(session, role=SA)
    made = make(session, admin)
    actors = [admin.id, other_admin.id] * 25
    results = all_at_once(db_url, [lambda s, a=a: api_keys.revoke_key(s, actor_id=a, key_id=made.id) for a in actors])
    won = [r for r in results if isinstance(r, str)]
    lost = [r for r in results if isinstance(r, KeyRefused)]
    assert len(won) == 1 and len(lost) == 49, results
    assert {r.message for r in lost} == {rules.ALREADY_REVOKED}
    session.expire_all()
    assert len([r for r in audit_rows(session, "api-key.revoke") if r.target_id == str(made.id)]) == 1
    stored = fresh(session, ApiKey, made.id)
    revoker = next(a for a, r in zip(actors, results, strict=True) if isinstance(r, str))
    assert stored.revoked_by_id == revoker


def test_revoking_what_is_not_a_live_key_says_so(session):
    admin = person(session, role=SA)
    made = make(session, admin)
    for key_id in (None, "", "abc", "1e3", -1, 10**30, [made.id], made.id + 1000):
        with pytest.raises(ServiceError) as refused:
            api_keys.revoke_key(session, actor_id=admin.id, key_id=key_id)
        assert refused.value.message == rules.KEY_NOT_FOUND, key_id
    api_keys.revoke_key(session, actor_id=admin.id, key_id=made.id)
    with pytest.raises(KeyRefused, match=rules.ALREADY_REVOKED):
        api_keys.revoke_key(session, actor_id=admin.id, key_id=made.id)
    session.commit()
    assert len(audit_rows(session, "api-key.revoke")) == 1


@pytest.mark.parametrize("role", [None, *[r for r in roles.ROLES if r != SA]])
def test_only_a_super_admin_lists_makes_and_revokes_keys(session, role):
    admin = person(session, role=SA)
    made = make(session, admin)
    someone = person(session, role=role)
    for call in (
        lambda: api_keys.list_keys(session, actor_id=someone.id),
        lambda: api_keys.create_key(session, actor_id=someone.id, name="Mine", scopes=["tests:read"]),
        lambda: api_keys.revoke_key(session, actor_id=someone.id, key_id=made.id),
    ):
        with pytest.raises(StaffRefused, match=NOT_ALLOWED):
            call()
    session.rollback()
    assert len(session.execute(select(ApiKey)).all()) == 1
    assert fresh(session, ApiKey, made.id).revoked_at is None


def test_a_key_does_not_make_list_or_revoke_keys_whatever_its_scopes(session):
    admin = person(session, role=SA)
    made = make(session, admin, list(rules.SCOPES))
    caller = ApiKeyCaller(made.key)
    for call in (
        lambda: api_keys.list_keys(session, actor_id=caller),
        lambda: api_keys.create_key(session, actor_id=caller, name="Child", scopes=["tests:read"]),
        lambda: api_keys.revoke_key(session, actor_id=caller, key_id=made.id),
    ):
        with pytest.raises(StaffRefused):
            call()
    session.rollback()
    assert len(session.execute(select(ApiKey)).all()) == 1


def test_authenticate_knows_a_live_key_and_notes_its_use_at_most_once_a_minute(session):
    admin = person(session, role=SA)
    made = make(session, admin, ["tests:read", "rewards:read"], rate_per_minute=90)
    for nothing in (None, "", 42, "pk_short", "sk_" + made.key[3:], made.key + "x", made.key.upper()):
        assert api_keys.authenticate(session, key=nothing) is None, nothing
    start = utcnow()
    info = api_keys.authenticate(session, key=made.key, now=start)
    assert info == api_keys.KeyInfo(id=made.id, scopes=("tests:read", "rewards:read"), rate_per_minute=90)
    session.commit()
    assert fresh(session, ApiKey, made.id).last_used_at is not None
    api_keys.authenticate(session, key=made.key, now=start + timedelta(seconds=30))
    session.commit()
    noted = fresh(session, ApiKey, made.id).last_used_at
    assert abs((noted.replace(tzinfo=start.tzinfo) - start).total_seconds()) < 1  # not written again
    later = start + timedelta(seconds=rules.LAST_USE_EVERY_SECONDS + 5)
    api_keys.authenticate(session, key=made.key, now=later)
    session.commit()
    noted = fresh(session, ApiKey, made.id).last_used_at
    assert abs((noted.replace(tzinfo=later.tzinfo) - later).total_seconds()) < 1


@pytest.mark.parametrize("change", ["revoked", "demoted", "removed", "demoted-to-owner"])
def test_a_key_stops_working_when_revoked_or_when_its_creator_no_longer_holds_keys(session, change):
    admin = person(session, role=SA)
    made = make(session, admin, ["participants:write"])
    target = person(session, verified=False)
    caller = ApiKeyCaller(made.key)
    assert api_keys.authenticate(session, key=made.key) is not None
    if change == "revoked":
        api_keys.revoke_key(session, actor_id=person(session, role=SA).id, key_id=made.id)
    else:
        account = session.get(Account, admin.id)
        if change == "removed":
            account.removed_at = utcnow()
        else:
            account.staff_role = None if change == "demoted" else roles.TEAM_OWNER
        session.add(account)
    session.commit()
    assert api_keys.authenticate(session, key=made.key) is None
    with pytest.raises(StaffRefused):
        participants.set_verified(session, actor_id=caller, account_ids=[target.id], verified=True)
    session.rollback()
    assert fresh(session, Account, target.id).verified is False
    assert [row for row in audit_rows(session) if row.api_key_id == made.id] == []
    assert session.execute(select(AuditEntry).where(AuditEntry.api_key_id.is_not(None))).first() is None
