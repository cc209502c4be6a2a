"""Staff admin part 2, flags and outbox (portal/services/admin/flags.py, outbox.py) on a migrated database,
SQLite and PostgreSQL: every cell of the permission matrix for every public function, and what each
action does and records in the audit log."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import Session

from portal.domain.flags import FLAGS, in_rollout
from portal.domain.staff import outbox_status as statuses
from portal.domain.staff import roles
from portal.models import AuditEntry, FeatureFlag, FeatureFlagUser, OutboxEmail
from portal.models._base import utcnow
from portal.services.admin import flags, outbox
from portal.services.admin.guard import NOT_ALLOWED, StaffRefused
from portal.services.errors import ServiceError
from portal.services.flags import enabled_flags
from portal.services.mail_sender import claim_due
from portal.settings import settings
from tests.integration.test_admin_services import _actors, audit_rows, count, fresh, person
from tests.support.factories import unique_email

SA, TO, TM = roles.SUPER_ADMIN, roles.TEAM_OWNER, roles.TEAM_MANAGER
FLAG = "pricing-test"


# --- the permission matrix -------------------------------------------------------------------------


@dataclass
class World:
    """What _actors needs (staff, participant, removed_staff), and a target for each action."""

    staff: dict[str, int]
    participant: int
    removed_staff: int
    target_email: str
    override_account: int
    email_id: int


def build_world(session: Session) -> World:
    staff = {role: person(session, role=role).id for role in roles.ROLES}
    removed = person(session, role=SA)
    removed.removed_at = utcnow()
    session.add(removed)
    participant = person(session)
    target = person(session)
    overridden = person(session)
    session.add(FeatureFlag(key=FLAG, enabled=False, percentage=100))
    session.flush()
    session.add(FeatureFlagUser(flag_key=FLAG, account_id=overridden.id, enabled=True))
    email = OutboxEmail(
        to_address=target.email,
        subject="Verify your e-mail",
        body_text="secret body",
        kind="verify-email",
        attempts=2,
        last_error="Connection refused",
        next_attempt_at=utcnow() + timedelta(hours=1),
    )
    session.add(email)
    session.commit()
    return World(
        staff=staff,
        participant=participant.id,
        removed_staff=removed.id,
        target_email=target.email,
        override_account=overridden.id,
        email_id=email.id,
    )


CALLS: list[tuple[str, str, Callable[[Session, Any, World], Any]]] = [
    ("flags.list_flags", roles.FLAGS, lambda s, a, w: flags.list_flags(session=s, actor_id=a)),
    (
        "flags.set_enabled",
        roles.FLAGS,
        lambda s, a, w: flags.set_enabled(session=s, actor_id=a, flag_key=FLAG, enabled=True),
    ),
    (
        "flags.set_percentage",
        roles.FLAGS,
        lambda s, a, w: flags.set_percentage(session=s, actor_id=a, flag_key=FLAG, percentage="40"),
    ),
    (
        "flags.set_override",
        roles.FLAGS,
        lambda s, a, w: flags.set_override(session=s, actor_id=a, flag_key=FLAG, email=w.target_email, override="on"),
    ),
    (
        "flags.remove_override",
        roles.FLAGS,
        lambda s, a, w: flags.remove_override(session=s, actor_id=a, flag_key=FLAG, account_id=str(w.override_account)),
    ),
    (
        "outbox.list_outbox",
        roles.OUTBOX,
        lambda s, a, w: outbox.list_outbox(session=s, actor_id=a, query=outbox.clean_query()),
    ),
    (
        "outbox.retry_now",
        roles.OUTBOX,
        lambda s, a, w: outbox.retry_now(session=s, actor_id=a, email_id=str(w.email_id)),
    ),
]


def test_the_calls_name_every_public_function_of_both_services():
    public = {
        f"{module.__name__.rsplit('.', 1)[1]}.{name}"
        for module in (flags, outbox)
        for name, fn in vars(module).items()
        if inspect.isfunction(fn)
        and fn.__module__ == module.__name__
        and not name.startswith("_")
        and "actor_id" in inspect.signature(fn).parameters
    }
    assert public == {name for name, _permission, _call in CALLS}
    assert {permission for _name, permission, _call in CALLS} == {roles.FLAGS, roles.OUTBOX}


@pytest.mark.parametrize("name,permission,call", CALLS, ids=[c[0] for c in CALLS])
def test_every_cell_of_the_matrix_for_every_flags_and_outbox_function(session, name, permission, call):
    world = build_world(session)
    audit_before = count(session, AuditEntry)
    cases = [*_actors(world), *((role, world.staff[role], role in roles.MATRIX[permission]) for role in roles.ROLES)]
    checked = []
    for who, actor, works in cases:
        session.rollback()
        if works:
            assert call(session, actor, world) is not None, (name, who)
            session.flush()
            if name not in ("flags.list_flags", "outbox.list_outbox"):  # every change is audited
                assert count(session, AuditEntry) == audit_before + 1, (name, who)
        else:
            with pytest.raises(StaffRefused) as refused:
                call(session, actor, world)
            assert refused.value.message == NOT_ALLOWED
            assert count(session, AuditEntry) == audit_before, (name, who)
        checked.append((who, works))
    session.rollback()
    assert [w for w, _ in checked[-3:]] == list(roles.ROLES)
    assert [ok for _, ok in checked[-3:]] == [role in roles.MATRIX[permission] for role in roles.ROLES]
    # Only the super-admin changes flags; the outbox is for super-admins and team owners.
    expected = {roles.FLAGS: [True, False, False], roles.OUTBOX: [True, True, False]}[permission]
    assert [ok for _, ok in checked[-3:]] == expected


# --- flags -----------------------------------------------------------------------------------------


def _flag_audit(session: Session, action: str) -> list[tuple[str, dict, dict]]:
    return [(r.target_id, r.before, r.after) for r in audit_rows(session, action)]


def test_all_eight_flags_are_listed_even_before_any_row_exists(session):
    admin = person(session, role=SA)
    page = flags.list_flags(session=session, actor_id=admin.id)
    assert [f.key for f in page.flags] == list(FLAGS) and len(FLAGS) == 8
    assert all(f.summary == "Off for everyone" and f.percentage == 100 and f.overrides == [] for f in page.flags)
    assert page.growthbook == ""  # not configured here


def test_turning_a_flag_on_and_off_is_audited_and_reaches_users_at_once(session):
    admin, user = person(session, role=SA), person(session)
    assert enabled_flags(session=session, account_id=user.id, keys=(FLAG,), growthbook=False)[FLAG] is False

    assert flags.set_enabled(session=session, actor_id=admin.id, flag_key=FLAG, enabled=True) is True
    session.commit()
    assert enabled_flags(session=session, account_id=user.id, keys=(FLAG,), growthbook=False)[FLAG] is True
    assert (
        flags.set_enabled(session=session, actor_id=admin.id, flag_key=FLAG, enabled=True) is False
    )  # no change, no row
    assert flags.set_enabled(session=session, actor_id=admin.id, flag_key=FLAG, enabled=False) is True
    session.commit()
    assert enabled_flags(session=session, account_id=user.id, keys=(FLAG,), growthbook=False)[FLAG] is False
    assert _flag_audit(session, "flag.change") == [
        (FLAG, {"enabled": False, "percentage": 100}, {"enabled": True, "percentage": 100}),
        (FLAG, {"enabled": True, "percentage": 100}, {"enabled": False, "percentage": 100}),
    ]
    row = audit_rows(session, "flag.change")[0]
    assert (row.actor_id, row.actor_role, row.target_type) == (admin.id, SA, "flag")
    summary = {f.key: f.summary for f in flags.list_flags(session=session, actor_id=admin.id).flags}
    assert summary[FLAG] == "Off for everyone"


@pytest.mark.parametrize(
    "bad", [150, "150", 101, -1, "-5", "2.5", 2.5, "", "  ", "abc", None, True, [50], {"x": 1}, "1e2"]
)
def test_a_percentage_outside_0_to_100_gets_the_message_and_changes_nothing(session, bad):
    admin = person(session, role=SA)
    flags.set_enabled(session=session, actor_id=admin.id, flag_key=FLAG, enabled=True)
    session.commit()
    rows_before = count(session, AuditEntry)
    with pytest.raises(ServiceError) as refused:
        flags.set_percentage(session=session, actor_id=admin.id, flag_key=FLAG, percentage=bad)
    assert refused.value.message == "Enter the percentage as a whole number from 0 to 100."
    assert refused.value.field == "percentage"
    session.rollback()
    assert fresh(session, FeatureFlag, FLAG).percentage == 100
    assert count(session, AuditEntry) == rows_before


def test_a_percentage_rolls_the_flag_out_to_that_share_of_users(session):
    admin = person(session, role=SA)
    users = [person(session) for _ in range(12)]
    flags.set_enabled(session=session, actor_id=admin.id, flag_key=FLAG, enabled=True)
    assert flags.set_percentage(session=session, actor_id=admin.id, flag_key=FLAG, percentage=" 30% ") is True
    session.commit()
    assert fresh(session, FeatureFlag, FLAG).percentage == 30
    for user in users:  # the same stable rule as every page load uses
        got = enabled_flags(session=session, account_id=user.id, keys=(FLAG,), growthbook=False)[FLAG]
        assert got is in_rollout(FLAG, user.id, 30)
    assert _flag_audit(session, "flag.change")[-1] == (
        FLAG,
        {"enabled": True, "percentage": 100},
        {"enabled": True, "percentage": 30},
    )
    assert flags.set_percentage(session=session, actor_id=admin.id, flag_key=FLAG, percentage=30) is False
    view = next(f for f in flags.list_flags(session=session, actor_id=admin.id).flags if f.key == FLAG)
    assert view.summary == "On for 30% of users"


def test_overrides_by_email_win_over_the_setting_and_are_audited(session):
    admin, chosen, other = person(session, role=SA), person(session), person(session)
    flag_key = "live-interviews"

    email = flags.set_override(
        session=session, actor_id=admin.id, flag_key=flag_key, email=f"  {chosen.email.upper()} ", override="on"
    )
    session.commit()
    assert email == chosen.email
    on = enabled_flags(session=session, account_id=chosen.id, keys=(flag_key,), growthbook=False)
    off = enabled_flags(session=session, account_id=other.id, keys=(flag_key,), growthbook=False)
    assert (on[flag_key], off[flag_key]) == (True, False)  # the flag itself is off
    view = next(f for f in flags.list_flags(session=session, actor_id=admin.id).flags if f.key == flag_key)
    assert view.overrides == [{"account_id": str(chosen.id), "email": chosen.email, "override": "on"}]

    # Off for one person while the flag is on for everyone.
    flags.set_enabled(session=session, actor_id=admin.id, flag_key=flag_key, enabled=True)
    flags.set_override(session=session, actor_id=admin.id, flag_key=flag_key, email=other.email, override="off")
    flags.set_override(
        session=session, actor_id=admin.id, flag_key=flag_key, email=other.email, override="off"
    )  # no change
    session.commit()
    assert enabled_flags(session=session, account_id=other.id, keys=(flag_key,), growthbook=False)[flag_key] is False

    assert (
        flags.remove_override(session=session, actor_id=admin.id, flag_key=flag_key, account_id=str(other.id)) is True
    )
    assert (
        flags.remove_override(session=session, actor_id=admin.id, flag_key=flag_key, account_id=str(other.id)) is False
    )
    assert flags.remove_override(session=session, actor_id=admin.id, flag_key=flag_key, account_id="x") is False
    session.commit()
    assert enabled_flags(session=session, account_id=other.id, keys=(flag_key,), growthbook=False)[flag_key] is True
    assert _flag_audit(session, "flag.user") == [
        (flag_key, {"account": chosen.email, "override": "none"}, {"account": chosen.email, "override": "on"}),
        (flag_key, {"account": other.email, "override": "none"}, {"account": other.email, "override": "off"}),
        (flag_key, {"account": other.email, "override": "off"}, {"account": other.email, "override": "none"}),
    ]


@pytest.mark.parametrize(
    "email,message",
    [
        ("nobody-here@example.com", "No account has the e-mail address nobody-here@example.com."),
        ("", "Enter the e-mail address of the person's account."),
        ("not an address", "Enter the e-mail address of the person's account."),
        (None, "Enter the e-mail address of the person's account."),
        (["a@b.c"], "Enter the e-mail address of the person's account."),
    ],
)
def test_an_override_for_an_unknown_email_gets_a_clear_message_and_changes_nothing(session, email, message):
    admin = person(session, role=SA)
    with pytest.raises(ServiceError) as refused:
        flags.set_override(session=session, actor_id=admin.id, flag_key=FLAG, email=email, override="on")
    assert (refused.value.message, refused.value.field) == (message, "email")
    session.rollback()
    assert count(session, FeatureFlagUser) == 0 and count(session, AuditEntry) == 0


@pytest.mark.parametrize(
    "call",
    [
        lambda s, a, e: flags.set_enabled(session=s, actor_id=a, flag_key="no-such-flag", enabled=True),
        lambda s, a, e: flags.set_enabled(session=s, actor_id=a, flag_key=["pricing-test"], enabled=True),
        lambda s, a, e: flags.set_enabled(session=s, actor_id=a, flag_key=FLAG, enabled="yes"),
        lambda s, a, e: flags.set_percentage(session=s, actor_id=a, flag_key="__class__", percentage=10),
        lambda s, a, e: flags.set_override(session=s, actor_id=a, flag_key=FLAG, email=e, override="maybe"),
        lambda s, a, e: flags.set_override(session=s, actor_id=a, flag_key="x", email=e, override="on"),
        lambda s, a, e: flags.remove_override(session=s, actor_id=a, flag_key={"k": 1}, account_id="1"),
    ],
)
def test_bad_flag_keys_and_choices_are_refused(session, call):
    admin, user = person(session, role=SA), person(session)
    with pytest.raises(ServiceError):
        call(session, admin.id, user.email)
    session.rollback()
    assert count(session, FeatureFlagUser) == 0 and count(session, AuditEntry) == 0


def test_a_flag_change_and_its_audit_row_share_one_transaction(session):
    admin = person(session, role=SA)
    flags.set_enabled(session=session, actor_id=admin.id, flag_key=FLAG, enabled=True)
    flags.set_percentage(session=session, actor_id=admin.id, flag_key=FLAG, percentage=10)
    session.flush()
    assert len(audit_rows(session, "flag.change")) == 2
    session.rollback()
    assert audit_rows(session) == [] and fresh(session, FeatureFlag, FLAG) is None


# --- outbox ----------------------------------------------------------------------------------------


def _email(
    session: Session,
    address: str,
    *,
    minutes_ago: int,
    attempts: int = 0,
    sent: bool = False,
    error: str | None = None,
    due_in: timedelta = timedelta(hours=1),
) -> OutboxEmail:
    now = utcnow()
    row = OutboxEmail(
        to_address=address,
        subject=f"Subject for {address}",
        kind="reset-password",
        body_text="Reset here: https://portal.example/reset?token=SECRET-TOKEN",
        link="https://portal.example/reset?token=SECRET-TOKEN",
        created_at=now - timedelta(minutes=minutes_ago),
        attempts=attempts,
        last_error=error,
        next_attempt_at=now + due_in if attempts else now - timedelta(minutes=minutes_ago),
        sent_at=now - timedelta(minutes=1) if sent else None,
    )
    session.add(row)
    session.commit()
    return row


def test_status_is_derived_from_sent_attempts_and_the_retry_limit(session):
    owner = person(session, role=TO)
    tag = unique_email().split("@")[0]
    most = settings.mail_max_attempts
    made = {
        "sent": _email(session, f"sent-{tag}@example.com", minutes_ago=4, attempts=1, sent=True),
        "waiting": _email(session, f"waiting-{tag}@example.com", minutes_ago=3),
        "retrying": _email(
            session, f"retrying-{tag}@example.com", minutes_ago=2, attempts=2, error="Connection refused"
        ),
        "failed": _email(session, f"failed-{tag}@example.com", minutes_ago=1, attempts=most, error="550 No such user"),
    }
    page = outbox.list_outbox(session=session, actor_id=owner.id, query=outbox.clean_query(search=tag))
    assert page.total == 4
    rows = {r["id"]: r for r in page.rows}
    assert [r["id"] for r in page.rows] == [
        str(made[k].id) for k in ("failed", "retrying", "waiting", "sent")
    ]  # newest first
    assert {k: rows[str(v.id)]["status_label"] for k, v in made.items()} == {
        "sent": "Sent",
        "waiting": "Waiting",
        "retrying": "Retrying",
        "failed": "Failed",
    }
    retrying = rows[str(made["retrying"].id)]
    assert (retrying["attempts"], retrying["last_error"], retrying["kind"], retrying["retry"]) == (
        "2",
        "Connection refused",
        "Password reset",
        "yes",
    )
    assert retrying["next_try"] and retrying["next_try"] != "due now"
    assert rows[str(made["waiting"].id)]["next_try"] == "due now"
    assert rows[str(made["sent"].id)]["retry"] == "" and rows[str(made["failed"].id)]["retry"] == "yes"
    # Neither the body nor the link (a sign-in token) ever leaves the service.
    assert "SECRET-TOKEN" not in repr(page.rows)
    # The same rule in the query: each status filter finds exactly its e-mail.
    for key in ("sent", "waiting", "retrying", "failed"):
        query = outbox.clean_query(search=tag, filters=[{"name": "status", "type": "list", "values": [key]}])
        found = outbox.list_outbox(session=session, actor_id=owner.id, query=query)
        assert [r["id"] for r in found.rows] == [str(made[key].id)], key
        assert statuses.status(sent_at=made[key].sent_at, attempts=made[key].attempts, max_attempts=most) == key
    unsent = outbox.clean_query(search=tag, filters=[{"name": "status", "type": "exclude", "values": ["sent"]}])
    assert outbox.list_outbox(session=session, actor_id=owner.id, query=unsent).total == 3
    both = outbox.clean_query(search=tag, filters=[{"name": "status", "type": "list", "values": ["failed", "waiting"]}])
    assert outbox.list_outbox(session=session, actor_id=owner.id, query=both).total == 2


def test_the_address_search_finds_only_that_address(session):
    owner = person(session, role=SA)
    tag = unique_email().split("@")[0]
    mine = _email(session, f"Jo.{tag}@example.com", minutes_ago=2)
    _email(session, f"someone-else-{tag}@example.org", minutes_ago=1)
    page = outbox.list_outbox(session=session, actor_id=owner.id, query=outbox.clean_query(search=f"jo.{tag}"))
    assert [r["address"] for r in page.rows] == [mine.to_address]
    percent = outbox.list_outbox(session=session, actor_id=owner.id, query=outbox.clean_query(search="%"))
    assert percent.total == 0  # a LIKE wildcard is text here


def test_retry_now_makes_an_email_due_so_the_sender_takes_it(session):
    owner = person(session, role=TO)
    tag = unique_email().split("@")[0]
    most = settings.mail_max_attempts
    retrying = _email(session, f"r-{tag}@example.com", minutes_ago=5, attempts=3, error="timed out")
    failed = _email(session, f"f-{tag}@example.com", minutes_ago=4, attempts=most, error="550 No such user")
    sent = _email(session, f"s-{tag}@example.com", minutes_ago=3, attempts=1, sent=True)
    assert {r.id for r in claim_due(session=session, limit=500)} & {retrying.id, failed.id} == set()
    session.rollback()

    before = utcnow()
    assert outbox.retry_now(session=session, actor_id=owner.id, email_id=str(retrying.id)) is True
    assert outbox.retry_now(session=session, actor_id=owner.id, email_id=failed.id) is True
    session.commit()
    again = fresh(session, OutboxEmail, retrying.id)
    assert (
        again.attempts == 3
        and again.next_attempt_at <= utcnow()
        and again.next_attempt_at >= before - timedelta(seconds=1)
    )
    assert fresh(session, OutboxEmail, failed.id).attempts == most - 1  # one more attempt
    page = outbox.list_outbox(session=session, actor_id=owner.id, query=outbox.clean_query(search=tag))
    labels = {r["id"]: (r["status_label"], r["next_try"]) for r in page.rows}
    assert labels[str(retrying.id)] == ("Retrying", "due now") and labels[str(failed.id)] == ("Retrying", "due now")
    assert {retrying.id, failed.id} <= {
        r.id for r in claim_due(session=session, limit=500)
    }  # the sender takes both now
    session.commit()

    rows = audit_rows(session, "outbox.retry")
    assert [(r.target_type, r.target_id, r.actor_id) for r in rows] == [
        ("email", str(retrying.id), owner.id),
        ("email", str(failed.id), owner.id),
    ]
    assert rows[1].before["attempts"] == most and rows[1].after["attempts"] == most - 1

    for bad, message in (
        (sent.id, "This e-mail was sent already."),
        (987654321, "This e-mail is not in the outbox."),
        ("x", "This e-mail is not in the outbox."),
        (None, "This e-mail is not in the outbox."),
    ):
        with pytest.raises(ServiceError) as refused:
            outbox.retry_now(session=session, actor_id=owner.id, email_id=bad)
        assert refused.value.message == message
        session.rollback()
    assert len(audit_rows(session, "outbox.retry")) == 2
