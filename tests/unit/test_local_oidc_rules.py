"""When the local sign-in stand-in runs (portal/domain/local_oidc.py)."""

from __future__ import annotations

import pytest

from portal.domain.local_oidc import LocalOidcRefused, active, is_loopback


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:3000",
        "http://127.0.0.1:8000",
        "http://[::1]:3000",
        "http://127.8.9.10",
        "http://portal.localhost:3000",
    ],
)
def test_loopback_addresses(url):
    assert is_loopback(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://portal.example.com",
        "http://10.0.0.5:3000",
        "http://192.168.1.2",
        "http://localhost.example.com",
        "http://0.0.0.0:3000",
        "",
    ],
)
def test_other_addresses_are_not_loopback(url):
    assert not is_loopback(url)


def test_auto_runs_on_loopback_without_providers_only():
    assert active("auto", "http://localhost:3000", ())
    assert active("", "http://localhost:3000", ())
    assert not active("auto", "https://portal.example.com", ())
    assert not active("auto", "http://localhost:3000", ("linkedin",))
    assert not active("auto", "http://localhost:3000", ("google",))


def test_off_never_runs():
    assert not active("off", "http://localhost:3000", ())


def test_on_refuses_where_auto_would_not_run():
    assert active("on", "http://localhost:3000", ())
    with pytest.raises(LocalOidcRefused, match="loopback"):
        active("on", "https://portal.example.com", ())
    with pytest.raises(LocalOidcRefused, match="never replaces a configured provider"):
        active("on", "http://localhost:3000", ("linkedin", "google"))


def test_an_unknown_mode_is_refused():
    with pytest.raises(LocalOidcRefused, match="LOCAL_OIDC"):
        active("sometimes", "http://localhost:3000", ())
