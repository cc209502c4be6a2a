"""/profile (screen 10): the signed-in person's own profile, and nobody else's.

Every handler re-resolves the signed-in user from the session cookie; the services read and change that
user's account only (staff look at participants at /admin/participants/{id}: states/admin/profile.py)."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal import db
from portal.services import profile as service
from portal.states.auth import SessionState, current_user
from portal.states.profile_form import ProfileFormState
from portal.states.tab_owner import TabOwned


class ProfileState(ProfileFormState, TabOwned, rx.State):
    async def _fetch(self) -> service.ProfileView | None:
        user = await current_user(self)
        if user is None:
            return None
        return await db.run(service.load_profile, actor_id=user.account_id)

    async def _store(self, raw: dict[str, Any], verify: bool) -> service.SaveOutcome:
        user = await current_user(self)
        if user is None:  # the spec's 401 on a profile update: the profile is gone
            raise service.ProfileRemovedError()
        return await db.run(service.save_profile, actor_id=user.account_id, raw=raw)

    async def _check_email(self, key: str, address: str) -> str:
        user = await current_user(self)
        if user is None:
            return ""
        return await db.run(service.email_problem, actor_id=user.account_id, key=key, address=address)

    async def _after_save(self) -> None:
        session = await self.get_state(SessionState)
        await session._refresh()  # header name and verification banners
