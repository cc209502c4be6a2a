"""The signed-in user, resolved on the server from the HttpOnly session cookie.

The cookie reaches the server in the websocket handshake headers and is never
sent back to the browser. Every private event resolves the user again, so a
revoked or expired session is noticed on the next event.
"""

from __future__ import annotations

import json

import reflex as rx
from reflex.vars import StringVar

from portal import db
from portal.domain.accounts import CurrentUser, avatar_color
from portal.domain.flags import REFERRAL_PROGRAM
from portal.domain.navigation import HOME_PATH, RATING_PATH_PATTERN, safe_return_path, sign_in_redirect
from portal.domain.verification import notices_for
from portal.services.flags import header_of
from portal.services.sessions import resolve_user
from portal.states.auth_cookie import session_token
from portal.states.browser import remove_query_params_js, toast
from portal.states.tab_owner import TabOwned


async def current_user(state: rx.State) -> CurrentUser | None:
    return await db.run(resolve_user, token=session_token(state))


def sign_in_url_for(state: rx.State) -> str:
    url = state.router.url
    return sign_in_redirect(url.path or "/", dict(url.query_parameters))


def _path() -> rx.Var[str]:
    path = rx.State.router.url.path
    return rx.Var(_js_expr=f"String({path} ?? '')", _var_type=str, _var_data=path._get_all_var_data()).to(str)


def current_path() -> StringVar:
    """The page's path as domain.navigation.normalize_path gives it ('/profile/' is '/profile'), worked
    out in the browser from the router var: a computed var on the router would be loaded and computed
    with every event of every page."""
    path = _path()
    return rx.Var(
        _js_expr=f"({path}.replace(/\\/+$/, '') || {json.dumps(HOME_PATH)})",
        _var_type=str,
        _var_data=path._get_all_var_data(),
    ).to(str)


def navigation_hidden() -> rx.Var[bool]:
    """The rating flow (/test/{id}/rate...) is shown without navigation (domain.navigation.is_rating_path)."""
    path = _path()
    return rx.Var(
        _js_expr=f"/{RATING_PATH_PATTERN}/.test({path})", _var_type=bool, _var_data=path._get_all_var_data()
    ).to(bool)


class SessionState(TabOwned, rx.State):
    """What the header and menu show about the user. Nothing here is a credential."""

    loaded: bool = False
    signed_in: bool = False
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    verified: bool = False
    registration_complete: bool = False
    is_staff: bool = False
    referral_enabled: bool = False
    # The spec's feature flags for this user (e.g. flags['pricing-test']); off when signed out.
    flags: dict[str, bool] = {}
    avatar_color: str = "indigo"
    email_verified: bool = False
    work_email: str = ""
    work_email_verified: bool = False
    unread_messages: int = 0  # messages from staff not opened yet (the header's badge, issue 38)

    async def _refresh(self) -> CurrentUser | None:
        user, flags, self.unread_messages = await db.run(header_of, token=session_token(self))
        return self._show_user(user, flags)

    def _show_user(self, user: CurrentUser | None, flags: dict[str, bool]) -> CurrentUser | None:
        """Show this user (None: signed out) and their flags (services.flags.user_and_flags)."""
        self.loaded = True
        self.signed_in = user is not None
        self.first_name = user.first_name if user else ""
        self.last_name = user.last_name if user else ""
        self.email = user.email if user else ""
        self.verified = bool(user and user.is_verified)
        self.registration_complete = bool(user and user.is_registration_complete)
        self.is_staff = bool(user and user.is_staff)
        self.referral_enabled = bool(user and user.is_verified and flags.get(REFERRAL_PROGRAM))
        self.flags = {key: bool(user and on) for key, on in flags.items()}
        self.avatar_color = avatar_color(str(user.account_id) if user else "")
        self.email_verified = bool(user and user.is_email_verified)
        self.work_email = user.work_email if user else ""
        self.work_email_verified = bool(user and user.is_work_email_verified)
        return user

    def _query_notices(self, user: CurrentUser | None, onward: str | None = None) -> list:
        """Toasts for e-mail-link parameters (ev, eav, verification), then those parameters removed.

        `onward`: where the page sends the user anyway (the notices' own redirect wins).
        """
        query = dict(self.router.url.query_parameters)
        notices = notices_for(
            query,
            signed_in_and_verified=bool(user and user.may_use_private_routes),
            return_path=safe_return_path(query.get("to")),
        )
        events: list = [toast(level, message) for level, message in notices.toasts]
        if target := notices.redirect or onward:
            events.append(rx.redirect(target, replace=True))
        elif notices.remove_params:
            events.append(rx.call_script(remove_query_params_js(notices.remove_params)))
        return events

    @rx.event
    async def load_public(self):
        """on_load of public pages: show who is signed in, if anyone."""
        user = await self._refresh()
        return self._query_notices(user) or None

    @rx.event
    async def guard_private(self):
        """on_load of private pages: a signed-out or unfinished user goes to sign-in, keeping the path."""
        user = await self._refresh()
        if user is None or not user.may_use_private_routes:
            return rx.redirect(sign_in_url_for(self), replace=True)
        return self._query_notices(user) or None

    @rx.event
    async def guard_signed_in(self):
        """on_load of pages for any signed-in user (e.g. the thank-you after sign-up)."""
        user = await self._refresh()
        if user is None:
            return rx.redirect(sign_in_url_for(self), replace=True)
        return self._query_notices(user) or None

    @rx.var
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()

    @rx.event
    async def refresh_unread(self):
        """The badge again, after the messages page opened a thread (the account from the session)."""
        _user, _flags, self.unread_messages = await db.run(header_of, token=session_token(self))

    @rx.var
    def initial(self) -> str:
        return (self.first_name or self.email or "?")[:1].upper()
