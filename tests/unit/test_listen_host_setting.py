"""LISTEN_HOST: a local run (loopback BASE_URL) listens on this machine only unless told otherwise;
a public BASE_URL listens on every interface as before (rxconfig.py gives it to Reflex as backend_host)."""

from __future__ import annotations

import pytest

from portal.settings import Settings


@pytest.mark.parametrize(
    "base_url,address",
    [
        ("http://localhost:3000", "127.0.0.1"),
        ("http://127.0.0.1:8000", "127.0.0.1"),
        ("http://127.0.0.2:3000", "127.0.0.2"),
        ("http://[::1]:3000", "::1"),
        ("http://app.localhost:3000", "127.0.0.1"),
        ("https://portal.example.com", "0.0.0.0"),
        ("http://192.168.1.5:3000", "0.0.0.0"),
    ],
)
def test_the_default_follows_base_url(monkeypatch, base_url, address):
    monkeypatch.setenv("SECRET_KEY", "unit")
    monkeypatch.setenv("BASE_URL", base_url)
    monkeypatch.delenv("LISTEN_HOST", raising=False)
    assert Settings().listen_address == address


@pytest.mark.parametrize("value", ["0.0.0.0", "::", "192.168.1.5"])
def test_an_explicit_setting_opens_a_local_run(monkeypatch, value):
    monkeypatch.setenv("SECRET_KEY", "unit")
    monkeypatch.setenv("BASE_URL", "http://localhost:3000")
    monkeypatch.setenv("LISTEN_HOST", value)
    assert Settings().listen_address == value


def test_a_listen_host_that_is_not_an_address_stops_the_start(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "unit")
    monkeypatch.setenv("LISTEN_HOST", "everywhere")
    with pytest.raises(SystemExit, match="LISTEN_HOST must be an IP address"):
        Settings()
