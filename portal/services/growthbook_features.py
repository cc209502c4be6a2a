"""GrowthBook's feature definitions for this process, fetched with the official SDK and kept.

The SDK's own `FeatureRepository` does the request (`{GROWTHBOOK_API_HOST}/api/features/{GROWTHBOOK_CLIENT_KEY}`,
ETag, decryption of `encryptedFeatures` / `encryptedSavedGroups` with GROWTHBOOK_DECRYPTION_KEY). Around it:

- the first use in a process fetches once, bounded by GROWTHBOOK_TIMEOUT_SECONDS (one request, no retries);
  after that a daemon thread refetches every GROWTHBOOK_CACHE_SECONDS and the event path never waits on the
  network;
- a failed refetch (host down, an error status, a body that is not JSON or has no features, a payload that
  cannot be decrypted) keeps the LAST KNOWN features in force. The outage is logged once as a warning with
  the SDK's reason (no traceback), its end once as info; the SDK's own line per failed attempt is folded
  into that warning (later attempts: debug), so a long outage is not an error line every refresh;
- with no features ever fetched, `snapshot()` is None and the caller counts GrowthBook's flags as off.

The store is rebuilt when the settings change or the process was forked (threads do not survive a fork).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from growthbook import Feature, FeatureRepository
from growthbook.common_types import features_from_dict
from urllib3 import PoolManager, Retry, Timeout

from portal.settings import settings

log = logging.getLogger(__name__)
SDK_LOGGER = "growthbook"


class _SdkMessages(logging.Filter):
    """While this thread fetches, the SDK's own log lines about the attempt are kept as the failure's cause
    (for our one warning per outage) instead of being logged: an outage is not an error line per refresh."""

    def __init__(self) -> None:
        super().__init__()
        self.local = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        caught = getattr(self.local, "caught", None)
        if caught is None or record.levelno < logging.WARNING:
            return True
        caught.append(record.getMessage())
        return False

    def capture(self) -> list[str]:
        caught: list[str] = []
        self.local.caught = caught
        return caught

    def release(self) -> None:
        self.local.caught = None


_sdk_messages = _SdkMessages()
logging.getLogger(SDK_LOGGER).addFilter(_sdk_messages)


@dataclass(frozen=True)
class Snapshot:
    """One good payload: its features parsed for the SDK, its saved groups, and when it was fetched."""

    features: dict[str, Feature]
    saved_groups: dict[str, Any]
    fetched_at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class Config:
    api_host: str
    client_key: str
    decryption_key: str
    refresh_seconds: float
    timeout_seconds: float


def _parse(payload: Any) -> Snapshot | None:
    """The payload as a snapshot, or None when it holds no usable features (the SDK already decrypted it)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("features"), dict):
        return None
    groups = payload.get("savedGroups")
    try:
        features = features_from_dict(payload["features"])
    except (TypeError, AttributeError, ValueError):
        return None
    return Snapshot(features=features, saved_groups=groups if isinstance(groups, dict) else {})


class FeatureStore:
    """The last good features of one GrowthBook connection, refreshed in the background."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.repository = FeatureRepository()
        # One request per attempt, bounded as a whole; a refused connection or a timeout is not retried
        # here (the next refresh is the retry). Redirects (a self-hosted proxy) are followed.
        self.repository.http = PoolManager(
            timeout=Timeout(total=config.timeout_seconds),
            retries=Retry(total=3, connect=0, read=0, status=0, other=0, redirect=3),
        )
        self._snapshot: Snapshot | None = None
        self._fetch_lock = threading.Lock()
        self._tried = False
        self._failing = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- reading -------------------------------------------------------------------------

    def snapshot(self) -> Snapshot | None:
        """The last good features; the process's first call fetches them (bounded), later calls never wait."""
        if self._thread is None:
            self._first_use()
        return self._snapshot

    def _first_use(self) -> None:
        with self._fetch_lock:
            if not self._tried:
                self._tried = True
                self._fetch()
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._refresh_loop, name="growthbook-refresh", daemon=True)
                self._thread.start()

    @property
    def failing(self) -> bool:
        """Whether the latest attempt failed (the last known features, if any, are in force)."""
        return self._failing

    # --- fetching ------------------------------------------------------------------------

    def refresh(self) -> bool:
        """Fetch the features now; False (logged, the last known kept) when that failed."""
        with self._fetch_lock:
            self._tried = True
            return self._fetch()

    def _fetch(self) -> bool:
        c = self.config
        caught = _sdk_messages.capture()
        try:
            payload = self.repository.load_features(c.api_host, c.client_key, c.decryption_key, force_refresh=True)
        except Exception as exc:  # the SDK raises e.g. ValueError for an encrypted payload without a key
            payload = None
            caught.append(f"{type(exc).__name__}: {exc}")
        finally:
            _sdk_messages.release()
        found = _parse(payload)
        if found is None:
            self._failed("; ".join(caught) or "the answer holds no features")
            return False
        self._snapshot = found
        if self._failing:
            log.info("GrowthBook features fetched again from %s", c.api_host)
        self._failing = False
        return True

    def _failed(self, problem: str) -> None:
        if self._failing:  # once per outage, not once per attempt
            log.debug("GrowthBook features still cannot be fetched: %s", problem)
            return
        self._failing = True
        kept = (
            (
                "the features fetched at "
                + time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self._snapshot.fetched_at))
                + " stay in force"
            )
            if self._snapshot
            else "GrowthBook's flags count as off until a fetch succeeds"
        )
        log.warning("GrowthBook features could not be fetched from %s (%s); %s", self.config.api_host, problem, kept)

    # --- background refresh --------------------------------------------------------------

    def _refresh_loop(self) -> None:
        while not self._stop.wait(self.config.refresh_seconds):
            try:
                self.refresh()
            except Exception as exc:  # never let the thread die; the next round tries again
                log.warning("GrowthBook refresh failed unexpectedly: %s: %s", type(exc).__name__, exc)

    def stop(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=self.config.timeout_seconds + 1)


_lock = threading.Lock()
_current: tuple[int, FeatureStore] | None = None


def _config() -> Config | None:
    if not settings.growthbook_client_key:
        return None
    return Config(
        api_host=settings.growthbook_api_host,
        client_key=settings.growthbook_client_key,
        decryption_key=settings.growthbook_decryption_key,
        refresh_seconds=max(settings.growthbook_cache_seconds, 0.05),
        timeout_seconds=settings.growthbook_timeout_seconds,
    )


def store() -> FeatureStore | None:
    """This process's store, or None when GrowthBook is not configured (no GROWTHBOOK_CLIENT_KEY)."""
    global _current
    config = _config()
    if config is None:
        return None
    with _lock:
        if _current is not None and _current[0] == os.getpid() and _current[1].config == config:
            return _current[1]
        if _current is not None and _current[0] == os.getpid():
            _current[1].stop()
        _current = (os.getpid(), FeatureStore(config))
        return _current[1]


def reset() -> None:
    """Forget the store (its thread stopped): the next use fetches again. For tests and settings changes."""
    global _current
    with _lock:
        if _current is not None and _current[0] == os.getpid():
            _current[1].stop()
        _current = None
