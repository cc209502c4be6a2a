"""Who is calling: the client address (X-Forwarded-For only from trusted proxies) and same-origin checks."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

from portal.settings import settings

SESSION_COOKIE = "portal_session"


def client_ip(conn: HTTPConnection, trusted_proxies: list[str] | None = None) -> str:
    """The client's address: the peer's, or the one a trusted proxy (TRUSTED_PROXIES unless given) forwards for."""
    peer = conn.client.host if conn.client else ""
    trusted = set(settings.trusted_proxies if trusted_proxies is None else trusted_proxies)
    if peer not in trusted:
        return peer
    # Walk X-Forwarded-For from the right, skipping our own proxies.
    forwarded = [p.strip() for p in conn.headers.get("x-forwarded-for", "").split(",") if p.strip()]
    for hop in reversed(forwarded):
        if hop not in trusted:
            return hop
    return peer


def is_same_origin(conn: HTTPConnection) -> bool:
    """A state-changing request must come from our own pages (CSRF defence beside SameSite=Lax)."""
    origin = conn.headers.get("origin")
    if not origin:
        return True  # non-browser clients and same-origin GETs do not send it
    host = conn.headers.get("host", "")
    return urlsplit(origin).netloc == host or origin.rstrip("/") == settings.base_url
