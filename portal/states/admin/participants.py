"""/admin/participants: the participants table, bulk verification, deactivation, staff roles; and the
queue of profile change requests."""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

import reflex as rx

from portal import db
from portal.domain import inbox as inbox_rules
from portal.domain.accounts import CurrentUser
from portal.domain.staff import roles
from portal.domain.table import selection_label
from portal.services.admin import change_requests as requests_service
from portal.services.admin import messages as messages_service
from portal.services.admin import participants as service
from portal.services.errors import ServiceError
from portal.services.tables import TablePage, TableQuery, TableSpec
from portal.states.admin.guard import caller_id, staff_load
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned
from portal.states.table import DataTableState


class ParticipantsTable(DataTableState, mixin=True):
    """The participants table (search, filters, paging), on /admin/participants and, with the
    invite panel, on a test's invite page."""

    table: ClassVar[TableSpec] = service.TABLE

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        return await db.run(service.list_participants, actor_id=caller.account_id, query=query)

    def _criteria(self) -> dict[str, Any]:
        """The applied search and filters (the invite page sends invites to the same people)."""
        query = self._query()
        return {
            "search": query.search,
            "filters": [{"name": f.name, "type": f.type, "values": list(f.values)} for f in query.filters],
        }


class AdminParticipantsState(ParticipantsTable, rx.State):
    """/admin/participants: the table with bulk verification, deactivation and staff roles."""

    confirm_action: str = ""  # verify | unverify while the confirmation is open
    role_dialog_id: str = ""
    role_choice: str = "participant"
    deactivate_id: str = ""
    deactivate_email: str = ""

    @rx.event
    def select_page(self):
        ids = [r["id"] for r in self.rows]
        everything = all(i in self.selected_ids for i in ids)
        self.selected_ids = (
            [i for i in self.selected_ids if i not in ids]
            if everything
            else list(dict.fromkeys([*self.selected_ids, *ids]))
        )

    @rx.event
    def ask(self, action: Any):
        if action in ("verify", "unverify") and self.selected_ids:
            self.confirm_action = action

    @rx.event
    def cancel(self):
        self.confirm_action = ""

    @rx.event
    async def confirm(self):
        action, self.confirm_action = self.confirm_action, ""
        if action not in ("verify", "unverify"):
            return None
        changed = await db.run(
            service.set_verified,
            actor_id=await caller_id(self),
            account_ids=self.selected_ids,
            verified=action == "verify",
        )
        self.selected_ids = []
        await self._reload()
        noun = "participant" if changed == 1 else "participants"
        return toast("success", f"{changed} {noun} {'verified' if action == 'verify' else 'unverified'}.")

    @rx.event
    def ask_deactivate(self, account_id: Any):
        """Deactivating asks first, naming the account."""
        found = next((r for r in self.rows if isinstance(account_id, str) and r["id"] == account_id), None)
        if found is not None:
            self.deactivate_id, self.deactivate_email = found["id"], found["email"]

    @rx.event
    def cancel_deactivate(self):
        self.deactivate_id = ""

    @rx.event
    async def confirm_deactivate(self):
        account_id, self.deactivate_id = self.deactivate_id, ""
        if account_id:
            return await self._set_active(account_id, False)
        return None

    @rx.event
    async def reactivate(self, account_id: Any):
        return await self._set_active(account_id, True)

    async def _set_active(self, account_id: Any, active: bool):
        changed = await db.run(service.set_active, actor_id=await caller_id(self), account_id=account_id, active=active)
        await self._reload()
        if not changed:
            return None
        return toast("success", "Account reactivated." if active else "Account deactivated: its sessions are ended.")

    @rx.event
    def open_role(self, account_id: Any, current: Any = "participant"):
        if isinstance(account_id, str) and account_id in {r["id"] for r in self.rows}:
            self.role_dialog_id = account_id
            self.role_choice = current if current in (*roles.ROLES, "participant") else "participant"

    @rx.event
    def choose_role(self, role: Any):
        if role in (*roles.ROLES, "participant"):
            self.role_choice = role

    @rx.event
    def close_role(self):
        self.role_dialog_id = ""

    @rx.event
    async def save_role(self):
        account_id, self.role_dialog_id = self.role_dialog_id, ""
        changed = await db.run(
            service.set_staff_role, actor_id=await caller_id(self), account_id=account_id, role=self.role_choice
        )
        await self._reload()
        return toast("success", "Role changed.") if changed else None

    # A message to the group the table shows (or to the selected rows): issue 38.
    group_open: bool = False
    group_label: str = ""
    group_key: str = ""
    group_subject_error: str = ""
    group_body_error: str = ""
    _group_criteria: dict[str, Any] = {}

    @rx.event
    async def open_group(self):
        """'Message': the count of who it reaches first (the selected rows, else the search and filters)."""
        criteria = {"ids": list(self.selected_ids)} if self.selected_ids else self._criteria()
        count = await db.run(messages_service.group_count, actor_id=await caller_id(self), criteria=criteria)
        self._group_criteria, self.group_key = criteria, uuid.uuid4().hex
        self.group_label = inbox_rules.recipients_label(count)
        self.group_subject_error = self.group_body_error = ""
        self.group_open = True

    @rx.event
    def close_group(self):
        self.group_open = False

    @rx.event
    async def send_group(self, form: Any):
        if not self.group_open or not self.group_key:
            return None
        raw = form if isinstance(form, dict) else {}
        self.group_subject_error = self.group_body_error = ""
        try:
            sent = await db.run(
                messages_service.send_group,
                actor_id=await caller_id(self),
                criteria=self._group_criteria,
                subject=raw.get("subject"),
                body=raw.get("body"),
                request_key=self.group_key,
            )
        except ServiceError as err:
            self.group_subject_error = err.errors.get("subject", "")
            self.group_body_error = err.errors.get("body", "")
            if not (self.group_subject_error or self.group_body_error):
                self.group_open = False
                return toast("error", err.message)
            return None
        self.group_open, self.group_key = False, ""
        return toast("success", f"Message sent to {sent:,} participant{'s' if sent != 1 else ''}.")

    @rx.var
    def selection_text(self) -> str:
        return selection_label(len(self.selected_ids))

    @rx.var
    def confirm_text(self) -> str:
        count = len(self.selected_ids)
        noun = "participant" if count == 1 else "participants"
        return f"{'Verify' if self.confirm_action == 'verify' else 'Unverify'} {count} {noun}?"


class ChangeRequestsState(TabOwned, rx.State):
    rows: list[dict[str, Any]] = []
    total: int = 0
    page: int = 1
    loaded: bool = False

    async def _reload(self) -> None:
        result = await staff_load(self, requests_service.list_pending, page=self.page)
        if result is not None:
            self.rows, self.total, self.loaded = result.rows, result.total, True

    @rx.event
    async def load(self):
        await self._reload()

    @rx.event
    async def decide(self, request_id: Any, approve: Any):
        status = await db.run(
            requests_service.decide, actor_id=await caller_id(self), request_id=request_id, approve=approve
        )
        await self._reload()
        return toast(
            "success", "Change approved." if status == "approved" else "Change declined: the old values are back."
        )
