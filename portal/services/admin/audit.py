"""The audit log: one row per staff action, written in the transaction of the change; and its table."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import String, and_, bindparam, func, or_, select, true
from sqlmodel import Session

from portal.domain import table as rules
from portal.domain.staff import roles
from portal.models import AuditEntry
from portal.services.admin.guard import Caller, Staff, require_staff
from portal.services.admin.filters import conditions as filter_conditions
from portal.services.tables import TablePage, TableQuery, bound_values, clean, like_pattern

# Actions (what the log shows).
ACTIONS: dict[str, str] = {
    "participant.verify": "Verified participant",
    "participant.unverify": "Unverified participant",
    "participant.deactivate": "Deactivated account",
    "participant.reactivate": "Reactivated account",
    "change-request.approve": "Approved change request",
    "change-request.decline": "Declined change request",
    "invites.send": "Sent invites",
    "review.approve": "Approved review",
    "review.reject": "Rejected review",
    "review.auto-approve": "Approved review automatically",
    "reviews.export": "Exported reviews",
    "pending-reviews.clear": "Cleared expired pending reviews",
    "reward.pay": "Marked reward paid",
    "reward.fail": "Marked reward failed",
    "reward.cancel": "Canceled reward",
    "rewards.export": "Exported payouts",
    "staff.role": "Changed staff role",
    "staff.create": "Made a staff account (command line)",
    "participant.profile": "Changed participant's profile",
    "participant.verify-profile": "Changed and verified participant's profile",
    "test.import": "Imported test",
    "test.edit": "Edited test",
    "test.status": "Changed test status",
    "test.image": "Uploaded test image",
    "test.areas": "Changed highlight areas",
    "test.export": "Exported test",
    "flag.change": "Changed feature flag",
    "flag.user": "Changed feature flag override",
    "outbox.retry": "Retried e-mail",
}
SYSTEM = Staff(account_id=0, email="system", role="")

SORTABLE = {"createdOn": AuditEntry.created_at}
FILTERS: dict[str, dict[str, Any]] = {
    "action": {"type": "list", "options": tuple(ACTIONS)},
    "role": {"type": "list", "options": roles.ROLES},
    "createdOn": {"type": "range"},
}


def _plain(values: dict[str, Any] | None) -> dict[str, Any]:
    """JSON-safe copies (dates as ISO text)."""
    out: dict[str, Any] = {}
    for key, value in (values or {}).items():
        out[key] = value.isoformat() if isinstance(value, datetime) else value
    return out


def record(session: Session, staff: Staff, action: str, target_type: str, target_id: Any,
           before: dict[str, Any] | None = None, after: dict[str, Any] | None = None) -> None:
    """Add the audit row to the current transaction (it commits, or rolls back, with the change)."""
    session.add(AuditEntry(
        actor_id=staff.account_id or None, actor_email=staff.email, actor_role=staff.role, action=action,
        target_type=target_type, target_id=str(target_id), before=_plain(before), after=_plain(after),
    ))


def clean_query(**raw: Any) -> TableQuery:
    return clean(sortable=tuple(SORTABLE), filters_allowed=FILTERS, **raw)


def list_audit(session: Session, *, actor_id: Caller, query: TableQuery) -> TablePage:
    require_staff(session, actor_id, roles.AUDIT)
    values = bound_values(query)
    conditions = []
    if query.search:
        pattern = bindparam("pattern", type_=String)
        conditions.append(or_(AuditEntry.actor_email.ilike(pattern, escape="\\"),
                              AuditEntry.target_id == bindparam("exact", type_=String),
                              AuditEntry.target_type.ilike(pattern, escape="\\")))
        values["exact"] = query.search
    conditions += filter_conditions(query, lists={"action": AuditEntry.action, "role": AuditEntry.actor_role},
                                    dates={"createdOn": AuditEntry.created_at})
    where = and_(*conditions) if conditions else true()
    total = session.execute(select(func.count()).select_from(AuditEntry).where(where), values).scalar_one()
    order = AuditEntry.created_at.asc() if query.sort_direction == rules.ASCENDING else AuditEntry.created_at.desc()
    tie = AuditEntry.id.asc() if query.sort_direction == rules.ASCENDING else AuditEntry.id.desc()
    rows = session.execute(
        select(AuditEntry).where(where).order_by(order, tie).limit(query.page_size).offset(query.offset), values
    ).scalars().all()
    return TablePage(rows=[_row(r) for r in rows], total=int(total))


def _short(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in values.items())[:300]


def _row(entry: AuditEntry) -> dict[str, str]:
    return {
        "id": str(entry.id),
        "when": entry.created_at.strftime("%Y-%m-%d %H:%M:%S") if entry.created_at else "",
        "actor": entry.actor_email,
        "role": roles.role_label(entry.actor_role) or "System",
        "action": ACTIONS.get(entry.action, entry.action),
        "target": f"{entry.target_type} {entry.target_id}".strip(),
        "before": _short(entry.before or {}),
        "after": _short(entry.after or {}),
    }


__all__ = ["ACTIONS", "FILTERS", "SORTABLE", "SYSTEM", "clean_query", "like_pattern", "list_audit", "record"]
