"""/admin/tests/[test_id]: a test's common fields, edited with live messages and saved after the server's
re-check (portal/services/admin/editing.py); the status offers only the changes the rule allows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import reflex as rx

from portal import db
from portal.domain.ids import whole_number
from portal.domain.staff import incentives
from portal.domain.staff.editing import FORM_KEYS, RESUME, STATUS_LABELS, STOP, check_form
from portal.services.admin import definition_files
from portal.services.admin import editing as service
from portal.services.errors import ServiceError
from portal.states.admin.guard import caller_id, staff_load
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned

MAX_FIELD = 20_000  # the frame of mind and the welcome modal's body are the longest fields


class TestEditState(TabOwned, rx.State):
    __test__ = False  # not a pytest test class

    test_id: str = ""
    name: str = ""
    kind: str = ""
    product_type: str = ""
    status: str = ""
    status_label: str = ""
    form: dict[str, str] = {}
    problems: dict[str, str] = {}
    listing: list[str] = []
    status_options: list[list[str]] = []  # [status, label]: the current status and where it may go
    qualification_options: list[str] = []
    countries: list[list[str]] = []
    limit_options: list[list[str]] = []
    content: list[str] = []  # the definition's problems outside this form (the builder's part)
    scheduled: str = ""  # '2026-05-01 14:00 UTC' while scheduled
    rates: list[list[str]] = []  # what invitees earn: [level, day 1, day 2]
    rates_row: str = ""
    payout_note: str = ""
    saving: bool = False
    dirty: bool = False
    # The edit changes what a test in use asks: the warning staff confirm to save it as a new version.
    version_warning: str = ""
    version_in_use: int = 0
    moving: bool = False  # a stop or resume under way
    _document: dict[str, Any] = {}
    _scheduled_before: str = ""  # the saved start (ISO), for the 'in the future' rule of a changed schedule

    def _show(self, view: service.EditView) -> None:
        self.test_id, self.kind, self.product_type, self.status = (
            str(view.test_id),
            view.kind,
            view.product_type,
            view.status,
        )
        self.name, self.status_label = view.form["name"], STATUS_LABELS.get(view.status, view.status)
        self.form, self._document = dict(view.form), view.document
        self.status_options = [[s, STATUS_LABELS[s]] for s in view.statuses]
        self.qualification_options = view.qualifications
        self.countries = [[code, label] for code, label in view.countries]
        self.limit_options = [[value, label] for value, label in view.limit_options]
        self.content, self.scheduled, self.rates_row = list(view.content), view.scheduled, view.rates_row
        self.rates = [list(rate) for rate in view.rates]
        self.payout_note = view.payout_note
        self._scheduled_before = view.scheduled_at.isoformat() if view.scheduled_at else ""
        self.problems, self.listing, self.dirty = {}, [], False
        self.version_warning, self.version_in_use = "", 0

    @rx.event
    async def load_page(self):
        self.test_id, self.form, self.problems, self.listing = "", {}, {}, []
        number = whole_number(self.router.url.path.rstrip("/").split("/")[-1])
        if number is None:
            return
        view = await staff_load(self, service.edit_view, test_id=number)
        if view is not None:
            self._show(view)

    def _recheck(self) -> None:
        before = datetime.fromisoformat(self._scheduled_before) if self._scheduled_before else None
        check = check_form(self._document, self.form, self.status, scheduled_before=before)
        self.problems, self.listing, self.content = check.problems, check.listing, check.content
        self.payout_note = incentives.payout_note(
            str(self._document.get("productType", "")), check.document.get("payoutCents")
        )

    @rx.event
    def set_field(self, key: Any, value: Any):
        """One field typed or chosen: the live messages follow at once (the server checks again at saving)."""
        if not self.test_id or not isinstance(key, str) or key not in FORM_KEYS or not isinstance(value, str):
            return
        self.form[key] = value[:MAX_FIELD]
        self.dirty = True
        self._recheck()

    @rx.event
    def toggle_qualification(self, name: Any):
        if not self.test_id or not isinstance(name, str) or name not in self.qualification_options:
            return
        chosen = [q for q in self.form.get("qualifications", "").split("\n") if q]
        chosen = [q for q in chosen if q != name] if name in chosen else [*chosen, name]
        self.form["qualifications"] = "\n".join(chosen)
        self.dirty = True
        self._recheck()

    @rx.event
    async def discard(self):
        """Back to the test as saved."""
        if self.test_id:
            self._show(await db.run(service.edit_view, actor_id=await caller_id(self), test_id=self.test_id))

    @rx.event
    async def save(self):
        return await self._save(None)

    @rx.event
    async def save_new_version(self):
        """Staff confirmed the warning: save as the next version of the test."""
        confirm, self.version_warning = self.version_in_use, ""
        return await self._save(confirm or None)

    @rx.event
    def keep_editing(self):
        self.version_warning, self.version_in_use = "", 0

    async def _save(self, confirm: int | None) -> Any:
        if not self.test_id or self.saving:
            return None
        self.saving = True
        try:
            result = await db.run(
                service.save_edit,
                actor_id=await caller_id(self),
                test_id=self.test_id,
                form=dict(self.form),
                confirm=confirm,
            )
        except ServiceError as refused:
            self._show(await db.run(service.edit_view, actor_id=await caller_id(self), test_id=self.test_id))
            return toast("error", refused.message)
        finally:
            self.saving = False
        if result.warning:
            self.version_warning, self.version_in_use = result.warning, result.version
            return None
        if not result.saved:
            self.problems, self.listing = result.problems, result.listing
            return toast("error", "Nothing was saved: fix the fields marked below.")
        assert result.view is not None  # a saved edit comes with the test as it now is
        self._show(result.view)
        return toast("success", "Saved." if result.changed else "Nothing to save: no field changed.")

    @rx.event
    async def stop_or_resume(self):
        """Stop a running test, or resume a stopped one (the server expects the status shown here)."""
        move = STOP if self.status == STOP[0] else RESUME if self.status == RESUME[0] else None
        if not self.test_id or move is None or self.moving:
            return None
        self.moving = True
        try:
            view = await db.run(
                service.stop_or_resume,
                actor_id=await caller_id(self),
                test_id=self.test_id,
                expected=move[0],
                to=move[1],
            )
        except ServiceError as refused:
            self._show(await db.run(service.edit_view, actor_id=await caller_id(self), test_id=self.test_id))
            return toast("error", refused.message)
        finally:
            self.moving = False
        self._show(view)
        return toast("success", "Stopped: nobody can start the test now." if move == STOP else "Running again.")

    @rx.event
    async def export(self):
        name, text = await db.run(definition_files.export_test, actor_id=await caller_id(self), test_id=self.test_id)
        return rx.download(data=text.encode("utf-8"), filename=name, mime_type="application/json;charset=utf-8")
