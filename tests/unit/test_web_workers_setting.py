"""WEB_WORKERS: the backend workers with Redis, by default one per core (bench/README.md, scale_load)."""

from __future__ import annotations

from portal import settings as settings_module
from portal.settings import Settings, default_web_workers


def test_the_default_is_one_worker_per_core_at_most_eight(monkeypatch):
    monkeypatch.setattr(settings_module.os, "cpu_count", lambda: 2)
    assert default_web_workers() == 2
    monkeypatch.setattr(settings_module.os, "cpu_count", lambda: 64)
    assert default_web_workers() == 8
    monkeypatch.setattr(settings_module.os, "cpu_count", lambda: None)
    assert default_web_workers() == 1


def test_web_workers_from_the_environment(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "unit")
    monkeypatch.setenv("WEB_WORKERS", "3")
    assert Settings().web_workers == 3
    monkeypatch.delenv("WEB_WORKERS")
    assert Settings().web_workers == default_web_workers()
