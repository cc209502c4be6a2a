"""/admin/tests/[test_id]: a test's common fields, edited with live messages and saved after the server's
re-check (portal/services/admin/editing.py); the status offers only the changes the rule allows."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal import db
from portal.domain.ids import whole_number
from portal.domain.staff.editing import FORM_FIELDS, STATUS_LABELS, check_form
from portal.services.admin import definition_files
from portal.services.admin import editing as service
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
    saving: bool = False
    dirty: bool = False
    _document: dict[str, Any] = {}

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
        self.problems, self.listing, self.dirty = {}, [], False

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
        check = check_form(self._document, self.form, self.status)
        self.problems, self.listing = check.problems, check.listing

    @rx.event
    def set_field(self, key: Any, value: Any):
        """One field typed or chosen: the live messages follow at once (the server checks again at saving)."""
        if not self.test_id or not isinstance(key, str) or key not in FORM_FIELDS or not isinstance(value, str):
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
        if not self.test_id or self.saving:
            return None
        self.saving = True
        try:
            result = await db.run(
                service.save_edit, actor_id=await caller_id(self), test_id=self.test_id, form=dict(self.form)
            )
        finally:
            self.saving = False
        if not result.saved:
            self.problems, self.listing = result.problems, result.listing
            return toast("error", "Nothing was saved: fix the fields marked below.")
        assert result.view is not None  # a saved edit comes with the test as it now is
        self._show(result.view)
        return toast("success", "Saved." if result.changed else "Nothing to save: no field changed.")

    @rx.event
    async def export(self):
        name, text = await db.run(definition_files.export_test, actor_id=await caller_id(self), test_id=self.test_id)
        return rx.download(data=text.encode("utf-8"), filename=name, mime_type="application/json;charset=utf-8")
