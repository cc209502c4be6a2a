"""Feature flags for a user, from the flags table (per-user overrides, then a percentage rollout)."""

from __future__ import annotations

import logging

from sqlmodel import Session, select

from portal.domain.flags import in_rollout
from portal.models import FeatureFlag, FeatureFlagUser

log = logging.getLogger(__name__)


def enabled_flags(*, session: Session, account_id: int | None, keys: tuple[str, ...]) -> dict[str, bool]:
    """Each requested flag on or off for the user. A failure is logged and counts as off."""
    result = dict.fromkeys(keys, False)
    try:
        flags = {f.key: f for f in session.exec(select(FeatureFlag).where(FeatureFlag.key.in_(keys))).all()}
        overrides = {}
        if account_id is not None:
            overrides = {
                o.flag_key: o.enabled
                for o in session.exec(
                    select(FeatureFlagUser).where(
                        FeatureFlagUser.account_id == account_id, FeatureFlagUser.flag_key.in_(keys)
                    )
                ).all()
            }
        for key, flag in flags.items():
            if key in overrides:
                result[key] = overrides[key]
            elif flag.enabled and account_id is not None:
                result[key] = in_rollout(key, account_id, flag.percentage)
    except Exception:
        log.exception("feature flags could not be read; treating them as off")
    return result
