"""When the local sign-in stand-in runs: the rule, with no I/O.

`make run` on a fresh clone has no LinkedIn or Google client, and the portal's main way in (the
LinkedIn and Google buttons) would not be shown at all. So on a loopback BASE_URL with neither
provider configured, the portal serves a local OpenID Connect stand-in (portal/http/local_oidc_routes.py)
and points both providers at it. It must never run where real people sign in: not on any other
address, and never in place of a configured provider.

LOCAL_OIDC: 'auto' (default: on exactly in that case), 'off' (never), 'on' (required: the portal
refuses to start where the rule does not allow it, instead of silently running without it).

Where it runs it stays a local tool: it answers clients on this machine only (`is_loopback_client`;
`make run` also listens on loopback only, settings.listen_address), and it never signs anyone in to a
staff account (STAFF_REFUSED: staff sign in with their password).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

TENANTS = ("linkedin", "google")
PREFIX = "/local-oidc"
MODES = ("auto", "on", "off")
LABELS = {"linkedin": "LinkedIn", "google": "Google"}


NOT_LOCAL = "The local sign-in stand-in only answers this computer."
STAFF_REFUSED = (
    "This e-mail belongs to a staff account. The local sign-in stand-in never signs in to a staff "
    "account: sign in with its e-mail and password instead."
)


class LocalOidcRefused(RuntimeError):
    """The stand-in was asked for where it may not run."""


def is_loopback(base_url: str) -> bool:
    """Whether BASE_URL names this machine only (localhost, 127.0.0.0/8, ::1)."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_loopback_client(*addresses: str) -> bool:
    """Whether every address a request came through (the connection's peer, the client behind a trusted
    proxy) is this machine's."""
    for address in addresses:
        try:
            if not ipaddress.ip_address(address).is_loopback:
                return False
        except ValueError:
            return False
    return bool(addresses)


def refusal(base_url: str, configured: tuple[str, ...]) -> str | None:
    """Why the stand-in may not run here (None: it may)."""
    if not is_loopback(base_url):
        return (
            f"The local sign-in stand-in only runs on a loopback BASE_URL (localhost), not on {base_url}: "
            "configure LinkedIn and Google (LINKEDIN_CLIENT_ID, GOOGLE_CLIENT_ID) instead."
        )
    if configured:
        names = " and ".join(LABELS[p] for p in configured)
        return f"The local sign-in stand-in never replaces a configured provider ({names} is configured)."
    return None


def active(mode: str, base_url: str, configured: tuple[str, ...]) -> bool:
    """Whether the stand-in runs. 'on' where it may not: LocalOidcRefused (the portal does not start)."""
    mode = (mode or "auto").strip().lower()
    if mode not in MODES:
        raise LocalOidcRefused(f"LOCAL_OIDC must be one of {', '.join(MODES)}, not {mode!r}.")
    if mode == "off":
        return False
    reason = refusal(base_url, configured)
    if reason is None:
        return True
    if mode == "on":
        raise LocalOidcRefused(reason)
    return False


def metadata_url(base_url: str, tenant: str) -> str:
    return f"{base_url.rstrip('/')}{PREFIX}/{tenant}/.well-known/openid-configuration"


def client_id(tenant: str) -> str:
    return f"local-{tenant}-client"
