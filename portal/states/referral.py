"""/referral: the personal link, the referees and the total earned. Checked on the server on every event."""

from __future__ import annotations

import logging

import reflex as rx
from sqlmodel import Session

from portal import db
from portal.services.referrals import ReferralAccessDenied, ReferralOverview, referral_account_id, referral_overview
from portal.settings import settings
from portal.states.auth import session_token, sign_in_url_for
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)

COPIED = "Referral link copied."
LOAD_FAILED = "Something went wrong, please try again later"


def _overview(session: Session, *, token: str | None) -> ReferralOverview:
    account_id = referral_account_id(session=session, token=token)
    return referral_overview(session=session, account_id=account_id, base_url=settings.base_url)


def _link(session: Session, *, token: str | None) -> str:
    account_id = referral_account_id(session=session, token=token)
    return referral_overview(session=session, account_id=account_id, base_url=settings.base_url).link


class ReferralState(TabOwned, rx.State):
    loaded: bool = False
    link: str = ""
    widget_url: str = ""
    bonus: str = "$20"
    referees: list[dict[str, str]] = []
    total_earned: str = "$0"
    error: str = ""

    def _clear(self) -> None:
        self.loaded = False
        self.link = ""
        self.widget_url = ""
        self.referees = []
        self.total_earned = "$0"
        self.error = ""

    @rx.event
    async def load(self):
        """on_load (after SessionState.guard_private): the page's data, or home when referral is not for this user."""
        self._clear()
        try:
            overview = await db.run(_overview, token=session_token(self))
        except ReferralAccessDenied as denied:
            # Signed out or unfinished: guard_private already sends the user to sign-in.
            return None if denied.signed_out else rx.redirect("/", replace=True)
        except Exception:
            log.exception("referral page could not be loaded")
            self.error = LOAD_FAILED
            self.loaded = True
            return None
        self.link = overview.link
        self.widget_url = overview.widget_url
        self.bonus = overview.bonus
        self.referees = [
            {"first_name": r.first_name, "joined": r.joined, "status": r.status} for r in overview.referees
        ]
        self.total_earned = overview.total_earned
        self.loaded = True
        return None

    @rx.event
    async def copy_link(self):
        """Copy the user's link (access checked again: the compiled page is public)."""
        try:
            link = await db.run(_link, token=session_token(self))
        except ReferralAccessDenied as denied:
            self._clear()
            return rx.redirect(sign_in_url_for(self) if denied.signed_out else "/", replace=True)
        return [rx.set_clipboard(link), toast("success", COPIED)]
