"""/admin/participants/[admin_participant_id]: the staff view of one participant's profile.

The form is the profile's (states/profile_form.py); the profile comes from and goes to the staff service
(services/admin/profiles.py), which checks the caller's permission and rank in the transaction of each
call. The participant's id is the page's route argument, read again by every event."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal import db
from portal.domain.ids import whole_number
from portal.domain.staff import profiles as rules
from portal.services import profile as profile_service
from portal.services.admin import profiles as service
from portal.services.admin.guard import StaffRefused
from portal.states.admin.guard import caller_id
from portal.states.profile_form import ProfileFormState
from portal.states.route_params import route_arg
from portal.states.tab_owner import TabOwned

ROUTE_ARG = "admin_participant_id"


class AdminProfileState(ProfileFormState, TabOwned, rx.State):
    participant_email: str = ""
    participant_id: str = ""  # the route's participant, for the 'Message' link (issue 38)
    role_label: str = ""
    deactivated: bool = False
    deleted: bool = False
    may_edit: bool = False
    may_verify: bool = False
    may_change_email: bool = False
    notes: list[str] = []
    blockers: list[str] = []

    def _participant(self) -> int | None:
        value = route_arg(self, ROUTE_ARG)
        return whole_number(value) if isinstance(value, str) else None

    async def _fetch(self) -> profile_service.ProfileView | None:
        try:
            view = await db.run(
                service.participant_profile, actor_id=await caller_id(self), participant_id=self._participant()
            )
        except StaffRefused:
            return None  # not staff: the page shows the not-found page
        self.participant_email, self.role_label, self.deactivated = view.email, view.role_label, view.deactivated
        self.deleted = view.deleted
        self.participant_id = str(self._participant() or "")
        self.may_edit, self.may_verify, self.may_change_email = view.may_edit, view.may_verify, view.may_change_email
        self.notes = list(view.notes)
        return view.profile

    async def _store(self, raw: dict[str, Any], verify: bool) -> profile_service.SaveOutcome:
        return await db.run(
            service.save_participant_profile,
            actor_id=await caller_id(self),
            participant_id=self._participant(),
            raw=raw,
            verify=verify,
        )

    async def _check_email(self, key: str, address: str) -> str:
        return await db.run(
            service.email_problem,
            actor_id=await caller_id(self),
            participant_id=self._participant(),
            key=key,
            address=address,
        )

    async def _load_internal_lists(self) -> None:
        await self._more_roles()
        result = await db.run(service.audiences_page, actor_id=await caller_id(self))
        self.audience_options = [[i, n] for i, n in result.results]

    async def _more_roles(self) -> None:
        result = await db.run(service.roles_page, actor_id=await caller_id(self), page=self.role_page + 1)
        self.role_options = self.role_options + [[i, n] for i, n in result.results]
        self.role_page += 1
        self.role_total = result.total

    def _saved_messages(self, verify: bool) -> str:
        return rules.SAVED_AND_VERIFIED if verify else rules.SAVED

    def _after_revalidate(self, errors: dict[str, str]) -> None:
        self.blockers = rules.verification_blockers(errors)
