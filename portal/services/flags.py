"""Feature flags for a user: per-user overrides in the flags table, then GrowthBook (when
GROWTHBOOK_CLIENT_KEY is set) or the table's on/off and percentage rollout.

A failure is logged and the flags it concerns count as off.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
from sqlmodel import Session, select

from portal.domain.flags import in_rollout
from portal.domain.growthbook import evaluate, is_on
from portal.models import FeatureFlag, FeatureFlagUser
from portal.settings import settings

log = logging.getLogger(__name__)

Fetch = Callable[[], dict[str, Any]]

_cache_lock = threading.Lock()
_cache: dict[str, Any] = {"at": 0.0, "features": None, "key": "", "failed_at": None}


def fetch_growthbook_features(*, client: httpx.Client | None = None) -> dict[str, Any]:
    """GET {GROWTHBOOK_API_HOST}/api/features/{GROWTHBOOK_CLIENT_KEY}: the feature definitions."""
    url = f"{settings.growthbook_api_host.rstrip('/')}/api/features/{settings.growthbook_client_key}"
    own = client is None
    client = client or httpx.Client(timeout=settings.growthbook_timeout_seconds)
    try:
        response = client.get(url, headers={"Accept": "application/json"})
        response.raise_for_status()
        data = response.json()
    finally:
        if own:
            client.close()
    if not isinstance(data, dict) or not isinstance(data.get("features"), dict):
        # Encrypted payloads (encryptedFeatures) are not supported without the SDK.
        raise ValueError("GrowthBook answered without a 'features' object")
    return data["features"]


def growthbook_features(fetch: Fetch | None = None) -> dict[str, Any]:
    """The features, cached for GROWTHBOOK_CACHE_SECONDS per process. Raises on failure."""
    now = time.monotonic()
    with _cache_lock:
        fresh = _cache["features"] is not None and _cache["key"] == settings.growthbook_client_key \
            and now - _cache["at"] < settings.growthbook_cache_seconds
        if fresh and fetch is None:
            return _cache["features"]
        failed_at = _cache["failed_at"]
        if fetch is None and failed_at is not None and now - failed_at < settings.growthbook_cache_seconds:
            # Do not wait for a GrowthBook that just failed on every page load: retry after the cache time.
            raise RuntimeError("GrowthBook failed recently; not retrying yet")
    try:
        features = (fetch or fetch_growthbook_features)()
    except Exception:
        if fetch is None:
            with _cache_lock:
                _cache["failed_at"] = now
        raise
    if fetch is None:
        with _cache_lock:
            _cache.update(at=now, features=features, key=settings.growthbook_client_key, failed_at=None)
    return features


def clear_growthbook_cache() -> None:
    with _cache_lock:
        _cache.update(at=0.0, features=None, key="", failed_at=None)


def enabled_flags(
    *,
    session: Session,
    account_id: int | None,
    keys: tuple[str, ...],
    growthbook: bool | None = None,
    fetch: Fetch | None = None,
) -> dict[str, bool]:
    """Each requested flag on or off for the user. A failure is logged and counts as off.

    `growthbook` defaults to whether GROWTHBOOK_CLIENT_KEY is set; `fetch` replaces the HTTP call (tests).
    """
    result = dict.fromkeys(keys, False)
    use_growthbook = bool(settings.growthbook_client_key) if growthbook is None else growthbook
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
    except Exception:
        log.exception("feature flags could not be read; treating them as off")
        return result
    features: dict[str, Any] | None = None
    if use_growthbook and account_id is not None:
        try:
            features = growthbook_features(fetch)
        except Exception:
            log.exception("GrowthBook features could not be fetched; treating the flags as off")
            features = {}
            flags = {}  # a failure counts as off, not as the table's answer
    for key in keys:
        if key in overrides:
            result[key] = overrides[key]
        elif features is not None and key in features:
            result[key] = is_on(evaluate(key, features[key], {"id": str(account_id)}))
        elif key in flags and flags[key].enabled and account_id is not None:
            result[key] = in_rollout(key, account_id, flags[key].percentage)
    return result
