"""STATE_LEASE_SECONDS: with Redis, a worker keeps a tab's state and lock that long after an event
(rxconfig.py turns on Reflex's opportunistic lock with it); 0 turns it off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from portal.settings import MAX_STATE_LEASE_SECONDS, STATE_LEASE_SECONDS, Settings

ROOT = Path(__file__).resolve().parents[2]


def _reflex_lease_env(**env: str) -> str:
    """What rxconfig.py leaves in the environment Reflex reads, in a fresh interpreter."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_OPLOCK", "STATE_LEASE", "REDIS_URL"))}
    code = (
        "import os, rxconfig; print(os.environ.get('REFLEX_OPLOCK_ENABLED'), os.environ.get('REFLEX_OPLOCK_HOLD_TIME'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "SECRET_KEY": "unit", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_the_lease_is_on_by_default_with_redis_and_off_without():
    assert _reflex_lease_env(REDIS_URL="redis://127.0.0.1:6379/0") == f"true {STATE_LEASE_SECONDS * 1000}ms"
    assert _reflex_lease_env(REDIS_URL="redis://127.0.0.1:6379/0", STATE_LEASE_SECONDS="7") == "true 7000ms"
    assert _reflex_lease_env(REDIS_URL="redis://127.0.0.1:6379/0", STATE_LEASE_SECONDS="0") == "None None"
    assert _reflex_lease_env() == "None None"


def test_a_lease_must_stay_under_the_lock_expiration(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "unit")
    monkeypatch.setenv("STATE_LEASE_SECONDS", str(MAX_STATE_LEASE_SECONDS))
    assert Settings().state_lease_seconds == MAX_STATE_LEASE_SECONDS
    for bad in (str(MAX_STATE_LEASE_SECONDS + 1), "-1"):
        monkeypatch.setenv("STATE_LEASE_SECONDS", bad)
        with pytest.raises(SystemExit, match="STATE_LEASE_SECONDS must be 0 to 50"):
            Settings()
    monkeypatch.setenv("STATE_LEASE_SECONDS", "soon")
    with pytest.raises(SystemExit, match="whole number"):
        Settings()
