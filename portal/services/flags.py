"""Feature flags for a user: per-user overrides in the flags table first, then GrowthBook (when
GROWTHBOOK_CLIENT_KEY is set, through its official SDK) for the flags it defines, else the table's
on/off and percentage rollout.

GrowthBook's features come from this process's store (services/growthbook_features.py: fetched once,
refreshed in the background, the last known kept through an outage); each evaluation is a GrowthBook SDK
instance of its own, with the user's attributes (domain/flag_attributes.py) and no network access.
With GrowthBook configured but no features ever fetched, its flags count as off. A failure is logged.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from growthbook import GrowthBook
from sqlalchemy import bindparam
from sqlmodel import Session, select

from portal.domain.flag_attributes import growthbook_attributes
from portal.domain.flags import FLAGS, in_rollout
from portal.models import Account, FeatureFlag, FeatureFlagUser, ParticipantProfile, ProfileRole, Role
from portal.services import growthbook_features
from portal.services.growthbook_features import Snapshot
from portal.services.sessions import resolve_user

log = logging.getLogger(__name__)


def user_attributes(session: Session, account_id: int) -> dict[str, Any] | None:
    """GrowthBook's attributes for the account (None when there is no such account)."""
    account = session.get(Account, account_id)
    if account is None:
        return None
    profile = session.get(ParticipantProfile, account_id)
    roles = session.exec(
        select(Role.name).join(ProfileRole, ProfileRole.role_id == Role.id).where(ProfileRole.account_id == account_id)
    ).all()
    return growthbook_attributes(account, profile, roles)


def growthbook_values(snapshot: Snapshot, attributes: dict[str, Any], keys: Iterable[str]) -> dict[str, bool]:
    """Each of `keys` that GrowthBook defines, on or off for a user with these attributes (the SDK's `is_on`)."""
    gb = GrowthBook(attributes=attributes, features=snapshot.features, saved_groups=snapshot.saved_groups)
    values = {}
    for key in keys:
        if key not in snapshot.features:
            continue
        try:
            values[key] = bool(gb.is_on(key))
        except Exception as exc:  # a rule the SDK cannot evaluate: this flag off, the others still decided
            log.warning("GrowthBook could not evaluate %s: %s: %s; counting it as off", key, type(exc).__name__, exc)
            values[key] = False
    return values


def _growthbook_decisions(session: Session, account_id: int, keys: tuple[str, ...]) -> dict[str, bool] | None:
    """GrowthBook's answer per flag it defines; None when GrowthBook is not configured. Configured with no
    features ever fetched: every flag off (not the table's answer)."""
    store = growthbook_features.store()
    if store is None:
        return None
    snapshot = store.snapshot()
    if snapshot is None:
        return dict.fromkeys(keys, False)
    attributes = user_attributes(session, account_id)
    if attributes is None:
        return dict.fromkeys(keys, False)
    return growthbook_values(snapshot, attributes, keys)


def enabled_flags(
    session: Session,
    *,
    account_id: int | None,
    keys: tuple[str, ...],
    growthbook: bool = True,
) -> dict[str, bool]:
    """Each requested flag on or off for the user; signed out (no account) everything is off.

    `growthbook=False` decides by the table alone; otherwise GrowthBook is used when GROWTHBOOK_CLIENT_KEY is set.
    """
    result = dict.fromkeys(keys, False)
    if account_id is None:
        return result
    try:
        rows = session.execute(_FLAGS_AND_OVERRIDES, {"account_id": account_id, "keys": list(keys)}).all()
        decided = _growthbook_decisions(session, account_id, keys) if growthbook else None
    except Exception:
        log.exception("feature flags could not be read; treating them as off")
        return result
    flags = {key: (enabled, percentage) for key, enabled, percentage, _ in rows}
    overrides = {key: override for key, _, _, override in rows if override is not None}
    for key in keys:
        if key in overrides:
            result[key] = bool(overrides[key])
        elif decided is not None and key in decided:
            result[key] = decided[key]
        elif key in flags and flags[key][0]:
            result[key] = in_rollout(key, account_id, flags[key][1])
    return result


# Each asked flag with the account's override, if any (an override exists only for a flag in the table:
# its foreign key): one statement, built once.
_FLAGS_AND_OVERRIDES = (
    select(FeatureFlag.key, FeatureFlag.enabled, FeatureFlag.percentage, FeatureFlagUser.enabled)
    .outerjoin(
        FeatureFlagUser,
        (FeatureFlagUser.flag_key == FeatureFlag.key) & (FeatureFlagUser.account_id == bindparam("account_id")),
    )
    .where(FeatureFlag.key.in_(bindparam("keys", expanding=True)))
)


def user_and_flags(session: Session, *, token: str | None) -> tuple[Any, dict[str, bool]]:
    """The signed-in user of a session token (None when signed out) and every flag of the spec for them."""
    user = resolve_user(session=session, token=token)
    return user, enabled_flags(session=session, account_id=user.account_id if user else None, keys=FLAGS)


def header_of(session: Session, *, token: str | None) -> tuple[Any, dict[str, bool], int]:
    """What the header shows, in one transaction: the user, their flags, and their unread messages (issue 38)."""
    from portal.services import messages

    user, flags = user_and_flags(session, token=token)
    unread = messages.unread_count(session, account_id=user.account_id) if user and not user.is_staff else 0
    return user, flags, unread
