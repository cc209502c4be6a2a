"""Staff: the feature flags (on/off, percentage of users, per-user overrides), every change audited.

Flags are read from the database on every evaluation (portal/services/flags.py: each page load
refreshes the user's flags), with no per-process cache of the table: a change made here reaches every
backend worker at once, and each user at their next page load. With GrowthBook configured, a flag that
GrowthBook defines takes its on/off and rollout from GrowthBook (its SDK, the features kept per process and
refreshed every GROWTHBOOK_CACHE_SECONDS); per-user overrides made here still win over it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, select

from portal.domain.accounts import normalize_email
from portal.domain.flags import FLAGS
from portal.domain.ids import whole_number
from portal.domain.staff import flag_rules as rules
from portal.domain.staff import roles
from portal.models import Account, FeatureFlag, FeatureFlagUser
from portal.services import growthbook_features
from portal.services.admin import audit
from portal.services.admin.guard import Caller, Staff, require_staff
from portal.services.errors import ServiceError

MAX_EMAIL_LENGTH = 320
ENTER_EMAIL = "Enter the e-mail address of the person's account."
MAX_OVERRIDES_SHOWN = 200  # per flag; more are counted


@dataclass
class FlagView:
    key: str
    label: str
    description: str
    enabled: bool
    percentage: int
    summary: str
    source: str  # "table", or "growthbook" when GrowthBook defines the flag
    overrides: list[dict[str, str]] = field(default_factory=list)  # account_id, email, override (on/off)
    override_total: int = 0


@dataclass
class FlagsPage:
    flags: list[FlagView]
    growthbook: (
        str  # "" (not configured), "on", "stale" (last fetch failed: last known in force), "unreachable" (none yet)
    )


def _flag_key(value: Any) -> str:
    if not rules.is_flag(value):
        raise ServiceError(rules.UNKNOWN_FLAG)
    return value


def _flag_row(session: Session, key: str, *, lock: bool = False) -> FeatureFlag:
    """The flag's row (made, off, when the database has none: seed-demo adds them, a bare migration not)."""
    row = session.get(FeatureFlag, key, with_for_update=lock)
    if row is None:
        row = FeatureFlag(key=key, enabled=False, percentage=100, description=rules.flag_label(key))
        session.add(row)
        session.flush()
    return row


def _growthbook_keys() -> tuple[str, set[str]]:
    """GrowthBook's state for the page and the flags it defines (from this process's last known features)."""
    store = growthbook_features.store()
    if store is None:
        return "", set()
    snapshot = store.snapshot()
    if snapshot is None:  # the portal counts GrowthBook's flags as off; the page says so
        return "unreachable", set()
    return ("stale" if store.failing else "on"), set(snapshot.features)


def list_flags(session: Session, *, actor_id: Caller) -> FlagsPage:
    require_staff(session, actor_id, roles.FLAGS)
    stored = {f.key: f for f in session.exec(select(FeatureFlag).where(FeatureFlag.key.in_(FLAGS))).all()}
    found = session.exec(
        select(FeatureFlagUser.flag_key, FeatureFlagUser.account_id, FeatureFlagUser.enabled, Account.email)
        .join(Account, Account.id == FeatureFlagUser.account_id)
        .where(FeatureFlagUser.flag_key.in_(FLAGS))
        .order_by(FeatureFlagUser.flag_key, Account.email, FeatureFlagUser.account_id)
    ).all()
    overrides: dict[str, list[dict[str, str]]] = {key: [] for key in FLAGS}
    totals = dict.fromkeys(FLAGS, 0)
    for key, account_id, enabled, email in found:
        totals[key] += 1
        if len(overrides[key]) < MAX_OVERRIDES_SHOWN:
            overrides[key].append(
                {
                    "account_id": str(account_id),
                    "email": email or f"account {account_id}",
                    "override": rules.override_label(enabled),
                }
            )
    growthbook, defined = _growthbook_keys()
    flags = []
    for key in FLAGS:
        row = stored.get(key)
        enabled, percentage = (row.enabled, row.percentage) if row is not None else (False, 100)
        label = rules.flag_label(key)
        description = (row.description if row is not None else None) or ""
        flags.append(
            FlagView(
                key=key,
                label=label,
                description="" if description.lower() == label.lower() else description,
                enabled=enabled,
                percentage=percentage,
                summary=rules.flag_summary(enabled, percentage),
                source="growthbook" if key in defined else "table",
                overrides=overrides[key],
                override_total=totals[key],
            )
        )
    return FlagsPage(flags=flags, growthbook=growthbook)


def _change(session: Session, staff: Staff, key: str, field: str, value: bool | int) -> bool:
    """Set the flag's `field` ('enabled' or 'percentage') with the row locked, audited; False when it already was."""
    row = _flag_row(session, key, lock=True)
    if getattr(row, field) == value:
        return False
    before = {"enabled": row.enabled, "percentage": row.percentage}
    setattr(row, field, value)
    session.add(row)
    audit.record(
        session, staff, "flag.change", "flag", row.key, before, {"enabled": row.enabled, "percentage": row.percentage}
    )
    return True


def set_enabled(session: Session, *, actor_id: Caller, flag_key: Any, enabled: Any) -> bool:
    """Turn a flag on or off; False when it already was."""
    staff = require_staff(session, actor_id, roles.FLAGS)
    key = _flag_key(flag_key)
    if not isinstance(enabled, bool):
        raise ServiceError("Choose on or off.")
    return _change(session, staff, key, "enabled", enabled)


def set_percentage(session: Session, *, actor_id: Caller, flag_key: Any, percentage: Any) -> bool:
    """The share of users (0-100) that get a flag that is on; False when it already was that."""
    staff = require_staff(session, actor_id, roles.FLAGS)
    key = _flag_key(flag_key)
    number = rules.parse_percentage(percentage)
    if number is None:
        raise ServiceError(rules.PERCENTAGE_MESSAGE, field="percentage")
    return _change(session, staff, key, "percentage", number)


def _account_by_email(session: Session, email: Any) -> Account:
    address = normalize_email(email if isinstance(email, str) else "")[:MAX_EMAIL_LENGTH]
    if not address or "@" not in address:
        raise ServiceError(ENTER_EMAIL, field="email")
    account = session.exec(select(Account).where(Account.email == address)).first()
    if account is None:
        raise ServiceError(f"No account has the e-mail address {address}.", field="email")
    return account


def set_override(session: Session, *, actor_id: Caller, flag_key: Any, email: Any, override: Any) -> str:
    """Turn a flag on or off for one person (found by their account's e-mail), whatever the flag's
    setting or rollout says; returns the account's e-mail."""
    staff = require_staff(session, actor_id, roles.FLAGS)
    key = _flag_key(flag_key)
    enabled = rules.parse_override(override)
    if enabled is None:
        raise ServiceError("Choose on or off for this person.", field="override")
    account = _account_by_email(session, email)
    _flag_row(session, key)
    row = session.get(FeatureFlagUser, (key, account.id), with_for_update=True)
    before = rules.override_label(row.enabled if row is not None else None)
    if row is None:
        row = FeatureFlagUser(flag_key=key, account_id=account.id, enabled=enabled)
    elif row.enabled == enabled:
        return account.email or ""
    row.enabled = enabled
    session.add(row)
    audit.record(
        session,
        staff,
        "flag.user",
        "flag",
        key,
        {"account": account.email, "override": before},
        {"account": account.email, "override": rules.override_label(enabled)},
    )
    return account.email or ""


def remove_override(session: Session, *, actor_id: Caller, flag_key: Any, account_id: Any) -> bool:
    """The person follows the flag's setting again; False when they had no override."""
    staff = require_staff(session, actor_id, roles.FLAGS)
    key = _flag_key(flag_key)
    target = whole_number(account_id)
    if target is None:
        return False
    row = session.get(FeatureFlagUser, (key, target), with_for_update=True)
    if row is None:
        return False
    account = session.get(Account, target)
    email = account.email if account is not None else None
    audit.record(
        session,
        staff,
        "flag.user",
        "flag",
        key,
        {"account": email, "override": rules.override_label(row.enabled)},
        {"account": email, "override": "none"},
    )
    session.delete(row)
    return True
