"""The audit log: one row per staff action, written in the transaction of the change; and its table."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import String, bindparam, or_, select
from sqlmodel import Session

from portal.domain.staff import roles
from portal.models import AuditEntry
from portal.services.admin.guard import Caller, Staff, require_staff
from portal.services.tables import Dates, Options, TablePage, TableQuery, TableSpec, contains, like_pattern

# Actions (what the log shows).
ACTIONS: dict[str, str] = {
    "participant.verify": "Verified participant",
    "participant.unverify": "Unverified participant",
    "participant.deactivate": "Deactivated account",
    "participant.reactivate": "Reactivated account",
    "account.deleted": "Deleted own account (participant)",
    "change-request.approve": "Approved change request",
    "change-request.decline": "Declined change request",
    "invites.send": "Sent invites",
    "review.approve": "Approved review",
    "review.exclude": "Excluded review",
    "review.reject": "Rejected review",
    "review.auto-approve": "Approved review automatically",
    "appeal.create": "Appealed a rejection (participant)",
    "appeal.overturn": "Overturned appeal",
    "appeal.uphold": "Upheld appeal",
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
    "test.create": "Made a new test",
    "test.duplicate": "Duplicated test",
    "test.launch": "Launched scheduled test",
    "flag.change": "Changed feature flag",
    "flag.user": "Changed feature flag override",
    "outbox.retry": "Retried e-mail",
    # The REST API (issue 39).
    "api-key.create": "Created API key",
    "api-key.revoke": "Revoked API key",
    "invites.cancel": "Canceled invites",
    "reward.bonus": "Gave a bonus",
    "webhook.subscribe": "Subscribed to webhooks",
    "webhook.unsubscribe": "Ended webhook subscription",
    "webhook.replay": "Replayed webhook delivery",
    "partner.callback": "Reported to a partner platform",
}
SYSTEM = Staff(account_id=0, email="system", role="")

TABLE = TableSpec(
    key=AuditEntry.id,
    sortable={"createdOn": AuditEntry.created_at},
    filters=(
        Options("action", AuditEntry.action, tuple(ACTIONS)),
        Options("role", AuditEntry.actor_role, roles.ROLES),
        Dates("createdOn", AuditEntry.created_at),
    ),
    search=lambda _: or_(
        contains(AuditEntry.actor_email),
        AuditEntry.target_id == bindparam("exact", type_=String),
        contains(AuditEntry.target_type),
    ),
    search_values=lambda text: {"exact": text},  # a target id, compared whole
)
clean_query = TABLE.clean


def _plain(values: dict[str, Any] | None) -> dict[str, Any]:
    """JSON-safe copies (dates as ISO text)."""
    out: dict[str, Any] = {}
    for key, value in (values or {}).items():
        out[key] = value.isoformat() if isinstance(value, datetime) else value
    return out


def record(
    session: Session,
    staff: Staff,
    action: str,
    target_type: str,
    target_id: Any,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> None:
    """Add the audit row to the current transaction (it commits, or rolls back, with the change)."""
    session.add(
        AuditEntry(
            actor_id=staff.account_id or None,
            actor_email=staff.email,
            actor_role=staff.role,
            action=action,
            target_type=target_type,
            target_id=str(target_id),
            before=_plain(before),
            after=_plain(after),
            api_key_id=staff.api_key_id,
        )
    )


def list_audit(session: Session, *, actor_id: Caller, query: TableQuery) -> TablePage:
    require_staff(session, actor_id, roles.AUDIT)
    values, chosen = TABLE.values(query), TABLE.select(query)
    total = session.execute(chosen.total(), values).scalar_one()
    rows = session.execute(chosen.page(select(AuditEntry)), values).scalars().all()
    return TablePage(rows=[_row(r) for r in rows], total=int(total))


def _short(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in values.items())[:300]


def _row(entry: AuditEntry) -> dict[str, str]:
    return {
        "id": str(entry.id),
        "when": entry.created_at.strftime("%Y-%m-%d %H:%M:%S") if entry.created_at else "",
        "actor": f"{entry.actor_email} (API key #{entry.api_key_id})" if entry.api_key_id else entry.actor_email,
        "role": roles.role_label(entry.actor_role) or "System",
        "action": ACTIONS.get(entry.action, entry.action),
        "target": f"{entry.target_type} {entry.target_id}".strip(),
        "before": _short(entry.before or {}),
        "after": _short(entry.after or {}),
    }


__all__ = ["ACTIONS", "SYSTEM", "TABLE", "clean_query", "like_pattern", "list_audit", "record"]
