"""Invites for the REST API (issue 39): a test's invites as a keyset list; a batch sent to a filtered set through the
invite page's service (admin/invites.py: `audience`, `start_batch`, then `run_chunk` until it is done, all in the
caller's one transaction, so an Idempotency-Key keeps the whole batch and its answer together); an open invite
canceled exactly once (a conditional UPDATE, its row count checked, one audit row "invites.cancel").

The filters are the participants table's (services/admin/participants.py TABLE), checked strictly here: the staff
service drops a filter it does not know, which on a page only unticks a box, but from a program would widen who is
invited; the API refuses it instead."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, or_, select
from sqlmodel import Session

from portal.api.errors import Conflict, NotFound
from portal.domain import invites as rules
from portal.domain import json_text
from portal.domain import table as table_rules
from portal.domain.ids import whole_number
from portal.domain.staff import incentives, roles
from portal.models import Invite
from portal.models._base import utcnow
from portal.services import transitions
from portal.services.admin import audit
from portal.services.admin import invites as staff_invites
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.participants import TABLE as PARTICIPANTS
from portal.services.api import keyset
from portal.services.api.tests import existing
from portal.services.errors import ServiceError

NO_INVITE = "This invite does not exist."
NOT_OPEN = "Only an open invite can be canceled: this one is {status}."
UNKNOWN_FILTER = "Unknown filter: choose one of {names}."
WRONG_TYPE = "This filter's type is {types}."
NOT_AN_OPTION = "Not an option of this filter: {values}."
TWO_DATES = "A date range is two dates, YYYY-MM-DD."
ONCE = "Each filter once: this one is given twice."
NO_VALUES = "Choose at least one value."
TOO_MANY_VALUES = f"At most {table_rules.MAX_FILTER_VALUES} values a filter."
# Refusals of the staff service that are about the test's state now, not the request (409).
STATE_REFUSALS = frozenset({staff_invites.NOT_RUNNING, staff_invites.QUOTAS_FULL})


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def _item(invite: Invite, now: datetime) -> dict[str, Any]:
    return {
        "id": invite.id,
        "test_id": invite.test_id,
        "participant_id": invite.account_id,
        "status": rules.effective_status(invite.status, _aware(invite.expires_at), now),
        "amount_cents": invite.amount_cents,
        "sent_at": _aware(invite.created_at),
        "expires_at": _aware(invite.expires_at),
        "batch_id": invite.batch_id,
    }


def _status_is(status: str, now: datetime) -> Any:
    """The invites whose status as participants see it is `status` (an open invite past its time is expired)."""
    if status == rules.OPEN:
        return and_(Invite.status == rules.OPEN, Invite.expires_at > now)
    if status == rules.EXPIRED:
        return or_(Invite.status == rules.EXPIRED, and_(Invite.status == rules.OPEN, Invite.expires_at <= now))
    return Invite.status == status


def list_invites(
    session: Session,
    *,
    actor_id: Caller,
    test_id: Any,
    after: int | None,
    limit: int,
    status: str | None = None,
    participant_id: int | None = None,
    now: datetime | None = None,
) -> keyset.Listed[dict[str, Any]]:
    """The test's invites, newest first, optionally of one status or participant."""
    require_staff(session, actor_id, roles.VIEW)
    test = existing(session, test_id)
    now = now or utcnow()
    statement = select(Invite).where(Invite.test_id == test.id)
    if status:
        statement = statement.where(_status_is(status, now))
    if participant_id is not None:
        statement = statement.where(Invite.account_id == participant_id)
    rows = keyset.page(session, statement, Invite.id, after=after, limit=limit)
    found = [_item(invite, now) for (invite,) in rows]
    return keyset.listed(found, [item["id"] for item in found], limit)


# --- who a batch is for -----------------------------------------------------------------------------------


def _refuse(field: str, message: str) -> ServiceError:
    return ServiceError(message, field=field)


def criteria(search: Any, filters: Any, participant_ids: Any) -> dict[str, Any]:
    """The criteria of the invite page ({search, filters, ids}) from the API's body, every filter checked against
    the participants table's: an unknown name, type or value is refused with its place in the body."""
    allowed = PARTICIPANTS.filters_allowed
    chosen: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, item in enumerate(filters if isinstance(filters, list) else []):
        at = f"filters.{index}"
        name, kind, values = item.get("name"), item.get("type"), item.get("values")
        if name not in allowed:
            raise _refuse(f"{at}.name", UNKNOWN_FILTER.format(names=", ".join(allowed)))
        if name in seen:
            raise _refuse(f"{at}.name", ONCE)
        seen.add(name)
        spec = allowed[name]
        types = ("range",) if spec["type"] == "range" else ("list", "exclude")
        kind = kind or types[0]
        if kind not in types:
            raise _refuse(f"{at}.type", WRONG_TYPE.format(types=" or ".join(types)))
        if not isinstance(values, list) or not values:
            raise _refuse(f"{at}.values", NO_VALUES)
        if len(values) > table_rules.MAX_FILTER_VALUES:
            raise _refuse(f"{at}.values", TOO_MANY_VALUES)
        if kind == "range":
            dates = [table_rules.parse_iso_date(v) for v in values]
            if len(values) != 2 or None in dates or any(len(str(v)) != 10 for v in values):
                raise _refuse(f"{at}.values", TWO_DATES)
        else:
            unknown = [str(v) for v in values if not isinstance(v, str) or v not in spec["options"]]
            if unknown:
                raise _refuse(f"{at}.values", NOT_AN_OPTION.format(values=", ".join(unknown[:5])))
        chosen.append({"name": name, "type": kind, "values": list(values)})
    search = search if isinstance(search, str) else ""
    if not json_text.is_clean(search):
        raise _refuse("search", json_text.bad_characters("search"))
    out: dict[str, Any] = {"search": search, "filters": chosen}
    if participant_ids:
        out["ids"] = [i for i in dict.fromkeys(participant_ids) if whole_number(i)]
    return out


def _audience(audience: staff_invites.Audience) -> dict[str, Any]:
    return {**asdict(audience), "cost_text": audience.cost_text}


def preview(
    session: Session, *, actor_id: Caller, test_id: Any, chosen: dict[str, Any], override_cents: int | None
) -> dict[str, Any]:
    """Who a batch with these criteria would invite now, who not and why, and what it would cost (nothing sent)."""
    require_staff(session, actor_id, roles.INVITE)
    test = existing(session, test_id)
    problem = incentives.override_problem(override_cents)
    if problem:
        raise ServiceError(problem, field="payout_cents")
    found = staff_invites.audience(
        session, actor_id=actor_id, test_id=test.id, criteria=chosen, override_cents=override_cents
    )
    return _audience(found)


def send(
    session: Session, *, actor_id: Caller, test_id: Any, chosen: dict[str, Any], override_cents: int | None
) -> dict[str, Any]:
    """Start a batch (the invite page's `start_batch`: the test's lock, one batch and one audit row; the same request
    while that batch runs joins it) and send every chunk of it in this transaction; the batch as it ends."""
    require_staff(session, actor_id, roles.INVITE)
    test = existing(session, test_id)
    problem = incentives.override_problem(override_cents)
    if problem:
        raise ServiceError(problem, field="payout_cents")
    try:
        started = staff_invites.start_batch(
            session, actor_id=actor_id, test_id=test.id, criteria=chosen, override_cents=override_cents
        )
    except ServiceError as e:
        if e.message in STATE_REFUSALS:
            raise Conflict(e.message) from None
        raise
    batch = started
    while batch["status"] == "running":
        batch = staff_invites.run_chunk(session, actor_id=actor_id, batch_id=started["id"])
    return {
        **batch,
        "test_id": test.id,
        "joined": bool(started.get("joined")),
        "note": str(started.get("problem") or ""),
    }


# --- cancel -----------------------------------------------------------------------------------------------


def cancel(session: Session, *, actor_id: Caller, invite_id: Any, now: datetime | None = None) -> dict[str, Any]:
    """Cancel an open invite (not yet used or expired): its place in the test's quota is free again, and the
    participant can no longer start the test by it. Exactly once: the write names the state it expects."""
    staff = require_staff(session, actor_id, roles.INVITE)
    number = whole_number(invite_id)
    invite = session.get(Invite, number) if number else None
    if invite is None:
        raise NotFound(NO_INVITE)
    now = now or utcnow()
    moved = transitions.move(
        session,
        Invite,
        Invite.id == invite.id,
        Invite.status == rules.OPEN,
        Invite.expires_at > now,
        values={"status": rules.CANCELED},
    )
    session.refresh(invite)
    if len(moved) != 1:
        status = rules.effective_status(invite.status, _aware(invite.expires_at), now)
        raise Conflict(NOT_OPEN.format(status=status))
    audit.record(
        session,
        staff,
        "invites.cancel",
        "invite",
        invite.id,
        before={"status": rules.OPEN},
        after={"status": rules.CANCELED, "test": invite.test_id, "participant": invite.account_id},
    )
    return _item(invite, now)
