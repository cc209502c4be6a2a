"""Where a user is sent: return paths, the sign-in redirect, and which paths hide navigation."""

from __future__ import annotations

import re
from urllib.parse import urlencode, urlsplit

SIGN_IN_PATH = "/sign-in"
SIGN_UP_PATH = "/sign-up"
VERIFY_ACCOUNT_PATH = "/verify-account"
HOME_PATH = "/"

# /test/{id}/rate[/{word}][/{number}]: the rating flow, shown without navigation.
# Also run in the browser (states/auth.navigation_hidden): plain syntax both regex engines read alike.
RATING_PATH_PATTERN = r"^\/test\/[^/]+\/rate(\/[^/]+)?(\/\d+)?\/?$"
_RATING_PATH = re.compile(RATING_PATH_PATTERN)


def is_rating_path(path: str) -> bool:
    return bool(_RATING_PATH.match(path or ""))


def normalize_path(path: str | None) -> str:
    """'/profile/' and '/profile' are one page; the static server adds the slash."""
    return (path or "").rstrip("/") or HOME_PATH


def safe_return_path(target: str | None, default: str = HOME_PATH) -> str:
    """A same-site path to go to after sign-in; anything else (other hosts, schemes) gives the default."""
    if not target:
        return default
    target = target.strip()
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    if parts.path.startswith(SIGN_IN_PATH):
        return default
    return target


def sign_in_redirect(path: str, query: dict[str, str] | None = None) -> str:
    """The sign-in URL for a private route: the path in 'to', the existing query parameters kept."""
    params = {k: v for k, v in (query or {}).items() if k != "to"}
    params = {"to": normalize_path(path), **params}
    return f"{SIGN_IN_PATH}?{urlencode(params)}"


def after_password_sign_in(*, to: str | None, registration_complete: bool, email_verified: bool) -> str:
    """Unfinished registration: sign-up; unverified e-mail: verify-account (a sign-in flow); else `to` or home."""
    if not registration_complete:
        return SIGN_UP_PATH
    if not email_verified:
        return f"{VERIFY_ACCOUNT_PATH}?from_sign_in=true"
    return safe_return_path(to)


# A tab that showed another person's page is loaded again (states/tab_owner.py), with this word (issue 40).
RELOADED_PARAM = "reloaded"
RELOADED_FOR_NEW_PERSON = "This page was reloaded for the person now signed in."


def reload_for_new_person_js(*, signed_in: bool) -> str:
    """The browser script that loads the page again: marked for the notice when someone is signed in now (a
    signed-out visitor of a private page is sent to sign-in by the page's guard anyway)."""
    if not signed_in:
        return "window.location.reload()"
    return (
        "(() => { const u = new URL(window.location.href); "
        f"u.searchParams.set({RELOADED_PARAM!r}, '1'); window.location.replace(u.toString()); }})()"
    )
