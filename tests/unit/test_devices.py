"""How a signed-in session is described on the account settings page (portal/domain/devices.py)."""

from __future__ import annotations

import pytest

from portal.domain import devices

CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.0 Mobile/15E148 Safari/604.1"
)
FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0"


@pytest.mark.parametrize(
    ("agent", "described", "mobile"),
    [
        (CHROME, "Chrome 156 on Linux", False),
        (IPHONE, "Mobile Safari 17 on iPhone (iOS 17)", True),
        (FIREFOX_WINDOWS, "Firefox 140 on Windows 10", False),
        ("python-httpx/0.28.1", devices.UNKNOWN_BROWSER, False),
        ("", devices.UNKNOWN_BROWSER, False),
        (None, devices.UNKNOWN_BROWSER, False),
    ],
)
def test_the_browser_and_device(agent, described, mobile):
    assert devices.describe(agent) == described
    assert devices.is_mobile(agent) is mobile


@pytest.mark.parametrize(
    ("address", "place"),
    [
        ("127.0.0.1", devices.THIS_COMPUTER),
        ("::1", devices.THIS_COMPUTER),
        ("192.168.1.20", devices.LOCAL_NETWORK),
        ("10.1.2.3", devices.LOCAL_NETWORK),
        ("fd00::1", devices.LOCAL_NETWORK),
        ("198.51.100.20", "Address 198.51.100.20"),
        ("8.8.8.8", "Address 8.8.8.8"),
        ("", devices.UNKNOWN_PLACE),
        ("not an address", devices.UNKNOWN_PLACE),
        (None, devices.UNKNOWN_PLACE),
    ],
)
def test_the_place_from_the_address_alone(address, place):
    assert devices.place(address) == place
