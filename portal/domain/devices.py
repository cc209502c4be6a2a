"""A signed-in session as its owner recognises it: the browser and device from the user agent (the `user-agents`
library, ua-parser's data) and where the address is, as far as the address alone tells without a lookup."""

from __future__ import annotations

import ipaddress

from user_agents import parse

UNKNOWN_BROWSER = "Unknown browser"
THIS_COMPUTER = "This computer"
LOCAL_NETWORK = "A local network"
UNKNOWN_PLACE = "Unknown"
# Home and office networks (RFC 1918, link-local, IPv6 unique-local and link-local): not the wider 'is_private'
# of the ipaddress module, which counts the documentation ranges too.
_LOCAL_NETWORKS = tuple(
    ipaddress.ip_network(net)
    for net in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "fc00::/7", "fe80::/10")
)


def _major(version: str) -> str:
    return version.split(".", 1)[0] if version else ""


def describe(user_agent: str | None) -> str:
    """'Chrome 156 on Linux', 'Mobile Safari 17 on iPhone (iOS 17)', or 'Unknown browser'."""
    agent = parse(user_agent or "")
    browser = agent.browser.family if agent.browser.family != "Other" else ""
    if not browser:
        return UNKNOWN_BROWSER
    name = " ".join(part for part in (browser, _major(agent.browser.version_string)) if part)
    system = " ".join(part for part in (agent.os.family, _major(agent.os.version_string)) if part and part != "Other")
    device = agent.device.family if agent.device.family not in ("Other", "", None) else ""
    if device and system and not agent.is_pc:
        return f"{name} on {device} ({system})"
    if system:
        return f"{name} on {system}"
    return name


def is_mobile(user_agent: str | None) -> bool:
    agent = parse(user_agent or "")
    return bool(agent.is_mobile or agent.is_tablet)


def place(ip_address: str | None) -> str:
    """What the address says without a geolocation database: this computer, a local network, or the address."""
    try:
        address = ipaddress.ip_address((ip_address or "").strip())
    except ValueError:
        return UNKNOWN_PLACE
    if address.is_loopback:
        return THIS_COMPUTER
    if any(address.version == net.version and address in net for net in _LOCAL_NETWORKS):
        return LOCAL_NETWORK
    return f"Address {address}"
