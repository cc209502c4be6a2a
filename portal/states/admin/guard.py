"""The staff guard of every /admin page, and the caller of every staff handler."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import reflex as rx

from portal import db
from portal.domain import account_settings as account_rules
from portal.domain import two_factor as two_factor_rules
from portal.domain.staff import roles
from portal.services.admin.guard import SessionCaller, StaffRefused
from portal.services.two_factor import enabled_for as two_factor_enabled
from portal.states.auth import current_user, sign_in_url_for
from portal.states.auth_cookie import session_token
from portal.states.tab_owner import TabOwned

T = TypeVar("T")


async def caller_id(state: rx.State) -> SessionCaller:
    """The caller of a staff event: the tab's session, resolved by the staff service in the transaction of
    its action (one staff event, one transaction: no separate look-up before it)."""
    return SessionCaller(session_token(state))


async def staff_load(state: rx.State, service: Callable[..., T], /, **kwargs: Any) -> T | None:
    """A staff page's load: `service` with the tab's caller, resolved in the service's transaction. None
    (quietly) when the service refuses the caller as staff: they see the not-found page or 'Your role does
    not include this page', with no message about it."""
    try:
        return await db.run(service, actor_id=await caller_id(state), **kwargs)
    except StaffRefused:
        return None


class StaffState(TabOwned, rx.State):
    """What the admin pages show: nothing until checked; the not-found page for anyone but staff."""

    checked: bool = False
    allowed: bool = False
    role_label: str = ""
    can: dict[str, bool] = {}

    @rx.event
    async def guard(self):
        """on_load of every /admin page: signed out -> sign-in; a participant -> the not-found page."""
        user = await current_user(self)
        if user is None or not user.may_use_private_routes:
            return rx.redirect(sign_in_url_for(self), replace=True)
        self.can = roles.permissions_of(user.staff_role)
        if self.can[roles.VIEW] and not await db.run(two_factor_enabled, account_id=user.account_id):
            # Staff turn on two-factor sign-in before any staff page opens (every staff service refuses them too).
            self.can, self.checked = roles.permissions_of(None), False
            return rx.redirect(f"{account_rules.PATH}?{two_factor_rules.REQUIRED_PARAM}=1", replace=True)
        self.allowed = self.can[roles.VIEW]
        self.role_label = roles.role_label(user.staff_role) if self.allowed else ""
        self.checked = True
        return None
