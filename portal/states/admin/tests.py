"""/admin/tests and /admin/tests/[test_id]/invite: the tests list, and inviting participants to one test."""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx

from portal import db
from portal.domain import upload_limits
from portal.domain.accounts import CurrentUser
from portal.domain.ids import whole_number
from portal.domain.staff import incentives, roles
from portal.domain.staff.new_tests import NEW_FIELDS, new_test_problems
from portal.http.upload_guard import accept_upload
from portal.services.admin import definition_files
from portal.services.admin import invites as invite_service
from portal.services.admin import tests as service
from portal.services.errors import ServiceError
from portal.services.tables import TablePage, TableQuery, TableSpec
from portal.states.admin.guard import caller_id, staff_load
from portal.states.admin.participants import ParticipantsTable
from portal.states.browser import toast
from portal.states.route_params import route_arg
from portal.states.table import DataTableState


class AdminTestsState(DataTableState, rx.State):
    """The tests list; a test's JSON definition uploaded (import) or downloaded (export)."""

    table: ClassVar[TableSpec] = service.TABLE

    import_open: bool = False
    importing: bool = False
    import_message: str = ""
    import_outcome: str = ""  # created | updated | unchanged | refused | confirm
    import_problems: list[str] = []
    imported_id: str = ""
    import_version: int = 0  # outcome 'confirm': the version in use the warning names
    _pending_file: bytes = b""  # outcome 'confirm': the file, until staff confirm or cancel
    new_open: bool = False
    new_form: dict[str, str] = {}
    new_problems: dict[str, str] = {}
    creating: bool = False
    _new_touched: list[str] = []

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        return await db.run(service.list_tests, actor_id=caller.account_id, query=query)

    @rx.event
    def open_import(self):
        self._pending_file, self.import_version = b"", 0
        self.import_open, self.import_message, self.import_outcome, self.import_problems, self.imported_id = (
            True,
            "",
            "",
            [],
            "",
        )

    @rx.event
    def import_rejected(self):
        """The browser refused the dropped file before sending it (over the size limit, or not a JSON file)."""
        self.import_outcome, self.import_message, self.import_problems, self.imported_id = (
            "refused",
            definition_files.NOT_TAKEN,
            [],
            "",
        )

    @rx.event
    def close_import(self):
        self.import_open = False

    @rx.event
    async def import_file(self, files: list[rx.UploadFile]):
        """The uploaded definition, checked whole: every problem with its path, or the test created/updated."""
        # A raw event can send anything in place of the uploaded files: only a real upload is read.
        upload = files[0] if isinstance(files, list) and files and isinstance(files[0], rx.UploadFile) else None
        data = await upload.read(definition_files.MAX_FILE_BYTES + 1) if upload is not None else b""
        await self._import(data, None)

    @rx.event
    async def import_new_version(self):
        """Staff confirmed the warning: the same file, imported as the next version of the test in use."""
        data, confirm = self._pending_file, self.import_version
        self._pending_file, self.import_version = b"", 0
        if data and confirm:
            await self._import(data, confirm)

    @rx.event
    def cancel_new_version(self):
        self._pending_file, self.import_version, self.import_outcome, self.import_message = b"", 0, "", ""

    async def _import(self, data: bytes, confirm: int | None) -> None:
        actor = await caller_id(self)
        try:
            result = await db.run(definition_files.import_file, actor_id=actor, data=data, confirm=confirm)
        except ServiceError as refused:
            # An upload is answered over HTTP (Reflex's /_upload), not through the event handler's
            # exception hook: the refusal is shown here, in the dialog.
            self.import_outcome, self.import_message, self.import_problems, self.imported_id = (
                "refused",
                refused.message,
                [],
                "",
            )
            return
        self.import_outcome, self.import_message, self.import_problems = result.outcome, result.message, result.problems
        self.imported_id = str(result.test_id or "")
        if result.outcome == "confirm":  # kept on the server until staff answer the warning
            self._pending_file, self.import_version = data, result.version
        if result.outcome in ("created", "updated"):
            await self._reload()

    @rx.event
    def open_new(self):
        """The 'New test' dialog, empty (a survey on the B2B panel chosen)."""
        self.new_open, self.new_form, self.new_problems, self._new_touched = (
            True,
            {"name": "", "productType": "survey", "panel": "b2b"},
            {},
            [],
        )

    @rx.event
    def close_new(self):
        self.new_open = False

    @rx.event
    def set_new_field(self, key: Any, value: Any):
        """A field of the 'New test' form typed or chosen: its live message (the server checks again)."""
        if key not in NEW_FIELDS or not isinstance(value, str) or not self.new_open:
            return
        self.new_form[key] = value[:400]
        self._new_touched = [*dict.fromkeys([*self._new_touched, key])]
        self.new_problems = {k: m for k, m in new_test_problems(self.new_form).items() if k in self._new_touched}

    @rx.event
    async def create(self):
        """Make the draft test and open its page; or show what is wrong."""
        if self.creating or not self.new_open:
            return None
        self.creating = True
        try:
            made = await db.run(service.create_test, actor_id=await caller_id(self), form=dict(self.new_form))
        finally:
            self.creating = False
        if made.problems:
            self.new_problems, self._new_touched = made.problems, list(NEW_FIELDS)
            return None
        self.new_open = False
        return rx.redirect(f"/admin/tests/{made.test_id}")

    @rx.event
    async def duplicate(self, test_id: Any):
        """A draft copy of the test (settings and definition, qualifications too; never its reviews)."""
        made = await db.run(service.duplicate_test, actor_id=await caller_id(self), test_id=test_id)
        await self._reload()
        return toast("success", f"Made “{made.name}”, a draft copy.")

    @rx.event
    async def export(self, test_id: Any):
        """Download the test's JSON definition."""
        name, text = await db.run(definition_files.export_test, actor_id=await caller_id(self), test_id=test_id)
        return rx.download(data=text.encode("utf-8"), filename=name, mime_type="application/json;charset=utf-8")


# The import is this state's one upload: staff who manage tests, one JSON file (checked at /_upload before it is read).
accept_upload(AdminTestsState, "import_file", permission=roles.MANAGE_TESTS, max_bytes=upload_limits.TEST_FILE_BYTES)


class InviteState(ParticipantsTable, rx.State):
    """A test's invite page: the participants table choosing who (its search and filters, or rows picked
    by hand), and the invite panel (who will be invited and why others will not, the cost, the override,
    sending with progress). The figures come from the service's one rule, and follow every change of the
    table's search, filters and picked rows."""

    test: dict[str, str] = {}
    matched: int = 0
    invited: int = 0
    reviewed: int = 0
    excluded: int = 0
    unverified: int = 0
    elsewhere: int = 0
    over_quota: int = 0
    to_invite: int = 0
    cost: str = ""
    country: str = ""
    problem: str = ""
    places: str = ""
    payout: str = ""
    override_text: str = ""
    override_error: str = ""
    confirm_open: bool = False
    sending: bool = False
    requested: int = 0
    sent: int = 0
    skipped: int = 0
    result: str = ""

    def _test_id(self) -> int | None:
        return whole_number(route_arg(self, "test_id"))

    def _override(self) -> int | None:
        value = incentives.parse_dollars(self.override_text)
        return value if isinstance(value, int) else None

    def _criteria(self) -> dict[str, Any]:
        """The applied search and filters, or the rows picked by hand (then only those)."""
        return {**super()._criteria(), "ids": list(self.selected_ids)} if self.selected_ids else super()._criteria()

    async def _reload(self) -> None:
        await super()._reload()
        if self.test:
            await self._count()

    async def _count(self) -> None:
        found = await db.run(
            invite_service.audience,
            actor_id=await caller_id(self),
            test_id=self._test_id(),
            criteria=self._criteria(),
            override_cents=self._override(),
        )
        self.matched, self.invited, self.reviewed, self.to_invite = (
            found.matched,
            found.invited,
            found.reviewed,
            found.to_invite,
        )
        self.unverified, self.elsewhere, self.over_quota = found.unverified, found.elsewhere, found.over_quota
        self.excluded = found.excluded
        self.cost, self.country, self.problem = found.cost_text, found.country, found.problem
        self.places = "No limit" if found.places is None else str(found.places)
        self.payout = found.payout_range

    @rx.event
    async def load_page(self):
        test = await staff_load(self, service.test_summary, test_id=self._test_id())
        if test is None:  # not staff
            return
        self.test = test
        self.result, self.sent, self.requested, self.skipped, self.selected_ids = "", 0, 0, 0, []
        await self._reload()

    @rx.event
    async def recount(self):
        await self._count()

    @rx.event
    async def toggle_selected(self, row_id: Any):
        """Pick a row of the page (or put it back); the figures then count the picked rows only."""
        if not isinstance(row_id, str) or row_id not in {r.get("id") for r in self.rows} or self.sending:
            return None
        if row_id in self.selected_ids:
            self.selected_ids = [i for i in self.selected_ids if i != row_id]
        elif len(self.selected_ids) >= invite_service.MAX_PICKED:
            return toast("error", invite_service.TOO_MANY_PICKED)
        else:
            self.selected_ids = [*self.selected_ids, row_id]
        await self._count()
        return None

    @rx.event
    async def clear_selection(self):
        if self.selected_ids and not self.sending:
            self.selected_ids = []
            await self._count()

    @rx.event
    async def set_override(self, text: Any):
        self.override_text = text[:20] if isinstance(text, str) else ""
        problem = incentives.parse_dollars(self.override_text)
        self.override_error = problem if isinstance(problem, str) else ""
        await self._count()

    @rx.event
    async def ask(self):
        """The confirmation names who and what it costs, as counted now (the count is asked again first)."""
        if self.sending or self.override_error:
            return
        await self._count()
        if self.to_invite > 0:
            self.confirm_open = True

    @rx.event
    def cancel(self):
        self.confirm_open = False

    @rx.event(background=True)
    async def send(self):
        """Start the batch, then send it chunk by chunk (one transaction each), showing the progress. The same
        batch started again elsewhere (another tab, a double click) is followed, not sent twice."""
        async with self:
            if self.sending or not self.confirm_open:
                return
            self.confirm_open, self.sending, self.result = False, True, ""
            actor = await caller_id(self)
            criteria, test_id, override = self._criteria(), self._test_id(), self._override()
        try:
            batch = await db.run(
                invite_service.start_batch, actor_id=actor, test_id=test_id, criteria=criteria, override_cents=override
            )
            if batch.get("joined"):
                yield toast("info", invite_service.ALREADY_SENDING)
            async with self:
                self.requested, self.sent, self.skipped = batch["requested"], batch["sent"], 0
            while batch["status"] == "running":
                batch = await db.run(invite_service.run_chunk, actor_id=actor, batch_id=batch["id"])
                async with self:
                    self.sent, self.skipped = batch["sent"], batch["skipped"]
        except ServiceError as refused:
            async with self:
                self.sending = False
                await self._count()
            yield toast("error", refused.message)
            return
        async with self:
            self.sending = False
            noun = "invite" if batch["sent"] == 1 else "invites"
            self.result = f"{batch['sent']} {noun} sent" + (
                f"; {batch['skipped']} could not be invited any more (a quota filled or they were invited meanwhile)."
                if batch["skipped"]
                else "."
            )
            self.selected_ids = []
            await self._count()
        yield toast("success", self.result)

    @rx.var
    def progress(self) -> int:
        return int(100 * self.sent / self.requested) if self.requested else 0

    @rx.var
    def confirm_text(self) -> str:
        noun = "participant" if self.to_invite == 1 else "participants"
        return f"Invite {self.to_invite:,} {noun} to {self.test.get('name', '')}?"

    @rx.var
    def picked(self) -> int:
        return len(self.selected_ids)
