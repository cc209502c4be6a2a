"""The demo opt-in modal (screen 15) and the demo route: texts and when the modal may show. Pure."""

from __future__ import annotations

from urllib.parse import urlencode

from portal.domain.navigation import safe_return_path

TITLE = "New way to engage: live meetings."
# Ours: the spec shows no body; the pay range is the spec's (section 1).
BODY = (
    "Companies want to show their product to professionals like you in live demo meetings. "
    "A 30-minute meeting pays 75 to 270 dollars. Would you like to be invited?"
)
YES = "Yes, invite me"
NO = "No, thanks"
NO_SAVED = "Got it. We will not invite you to live meetings."
FLAG = "demo-product"  # the spec's demo product feature flag: the modal shows only to users who have it
DEMO_PATH = "/demo"
PARAM = "demoProductOptInStatus"
PAGE_TITLE = "Live demo meetings"
PAGE_IN = "You will be invited to live demo meetings. Each invite says when the meeting is and what it pays."
PAGE_OUT = "You are not signed up for live demo meetings."


def modal_visible(*, flag_on: bool, status: bool | None, dismissed_this_session: bool) -> bool:
    """While demoProductOptInStatus is undefined the modal can appear (demo product flag on),
    unless it was closed in this browser session."""
    return flag_on and status is None and not dismissed_this_session


def demo_route(status: bool) -> str:
    """The demo route with its demoProductOptInStatus parameter."""
    return f"{DEMO_PATH}?{urlencode({PARAM: 'true' if status else 'false'})}"


def remembered_address(path: str, query: str) -> str:
    """The address to come back to from the demo page: a same-site path (with its query) or home."""
    target = path + (f"?{query}" if query else "")
    return safe_return_path(target)
