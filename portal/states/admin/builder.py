"""/admin/tests/[test_id]/build: the test builder. The working document lives here (one document); every
change is an edit of portal/domain/authoring/document.py, the definition checks run on the result at
once (portal/domain/authoring/view.build), and the builder's part is kept as the test's draft through
portal/services/admin/builder.py, so a reload loses nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx

from portal import db
from portal.domain.authoring import document as edits
from portal.domain.authoring.view import ItemRow, QuestionRow, build
from portal.domain.ids import whole_number
from portal.services.admin import builder as service
from portal.services.errors import ServiceError
from portal.states.admin.guard import caller_id, staff_load
from portal.states.browser import toast
from portal.states.route_params import route_arg
from portal.states.tab_owner import TabOwned

NEW_TYPE = "single-choice"


class BuilderState(TabOwned, rx.State):
    test_id: str = ""
    name: str = ""
    kind: str = ""
    product_type: str = ""
    version: int = 0
    has_draft: bool = False
    saving: bool = False
    # What the page draws of the working document (portal/domain/authoring/view.py).
    fields: dict[str, str] = {}
    flags: dict[str, bool] = {}
    errors: dict[str, str] = {}
    survey_questions: list[QuestionRow] = []
    first_impression: list[QuestionRow] = []
    post_test: list[QuestionRow] = []
    screener_answers: list[ItemRow] = []
    screener_rows: list[ItemRow] = []
    screener_columns: list[ItemRow] = []
    concepts: list[ItemRow] = []
    correct: list[list[bool]] = []
    has_screener: bool = False
    other: list[str] = []
    problem_count: int = 0
    # The type the 'Add question' menu of each list offers next.
    new_type: dict[str, str] = {}
    # A save that needs a new version: the warning, and the number it names.
    warning: str = ""
    confirm_version: int = 0
    _document: dict[str, Any] = {}

    # --- showing ----------------------------------------------------------------------------------
    def _draw(self) -> None:
        shown = build(self._document)
        self.fields, self.flags, self.errors = shown.fields, shown.flags, shown.errors
        self.survey_questions = shown.lists["survey.questions"]
        self.first_impression = shown.lists["questions.first-impression"]
        self.post_test = shown.lists["questions.post-test"]
        self.screener_answers = shown.items["screenerQuestion.answers"]
        self.screener_rows = shown.items["screenerQuestion.rows"]
        self.screener_columns = shown.items["screenerQuestion.columns"]
        self.concepts = shown.items["preferenceTest.images"]
        self.correct = shown.correct
        self.has_screener = shown.has_screener
        self.other, self.problem_count = shown.other, shown.problem_count

    def _show(self, view: service.BuilderView) -> None:
        self.test_id, self.name, self.kind = str(view.test_id), view.name, view.kind
        self.product_type, self.version, self.has_draft = view.product_type, view.version, view.has_draft
        self._document = view.document
        self.warning, self.confirm_version = "", 0
        self._draw()

    @rx.event
    async def load_page(self):
        self.test_id, self._document = "", {}
        number = whole_number(route_arg(self, "test_id"))
        if number is None:
            return
        view = await staff_load(self, service.open_builder, test_id=number)
        if view is not None:
            self._show(view)

    # --- changing -----------------------------------------------------------------------------------
    async def _apply(self, edit: Callable[..., dict[str, Any]], *args: Any) -> Any:
        """One change: the edit made (a change the builder never offers is ignored), the messages redrawn,
        and the draft kept on the server."""
        if not self.test_id:
            return None
        try:
            changed = edit(self._document, *args)
        except (edits.EditRefused, TypeError):
            return None
        if changed == self._document:
            return None
        self._document = changed
        self._draw()
        try:
            await db.run(
                service.save_draft, actor_id=await caller_id(self), test_id=self.test_id, document=self._document
            )
        except ServiceError as error:
            return toast("error", error.message)
        self.has_draft = True
        return None

    @rx.event
    async def set_text(self, path: Any, value: Any):
        return await self._apply(edits.set_field, path, value)

    @rx.event
    async def set_flag(self, path: Any, checked: Any):
        return await self._apply(edits.set_field, path, checked is True)

    @rx.event
    async def set_type(self, question_path: Any, new_type: Any):
        return await self._apply(edits.change_type, question_path, new_type)

    @rx.event
    def choose_new_type(self, list_path: Any, new_type: Any):
        if isinstance(list_path, str) and edits.QUESTION_LISTS.match(list_path) and isinstance(new_type, str):
            self.new_type[list_path] = new_type

    @rx.event
    async def add_question(self, list_path: Any):
        new_type = self.new_type.get(list_path, NEW_TYPE) if isinstance(list_path, str) else NEW_TYPE
        return await self._apply(edits.add_question, list_path, new_type)

    @rx.event
    async def remove_question(self, list_path: Any, index: Any):
        return await self._apply(edits.remove_question, list_path, index)

    @rx.event
    async def move_question(self, list_path: Any, index: Any, delta: Any):
        return await self._apply(edits.move_question, list_path, index, delta)

    @rx.event
    async def add_item(self, list_path: Any):
        return await self._apply(edits.add_item, list_path)

    @rx.event
    async def remove_item(self, list_path: Any, index: Any):
        return await self._apply(edits.remove_item, list_path, index)

    @rx.event
    async def move_item(self, list_path: Any, index: Any, delta: Any):
        return await self._apply(edits.move_item, list_path, index, delta)

    @rx.event
    async def set_screener(self, on: Any):
        return await self._apply(edits.set_screener, on is True)

    @rx.event
    async def set_screener_type(self, screener_type: Any):
        return await self._apply(edits.set_screener_type, screener_type)

    @rx.event
    async def toggle_correct(self, row: Any, column: Any):
        return await self._apply(edits.toggle_correct, row, column)

    @rx.event
    async def set_preference_type(self, preference_type: Any):
        return await self._apply(edits.set_preference_type, preference_type)

    # --- saving -------------------------------------------------------------------------------------
    async def _save(self, confirm: int | None) -> Any:
        if not self.test_id or self.saving:
            return None
        self.saving = True
        try:
            outcome = await db.run(
                service.save,
                actor_id=await caller_id(self),
                test_id=self.test_id,
                document=self._document,
                confirm=confirm,
            )
        except ServiceError as error:
            return toast("error", error.message)
        finally:
            self.saving = False
        if outcome.warning:
            self.warning, self.confirm_version = outcome.warning, outcome.version
            return None
        if not outcome.saved:
            self._draw()
            return toast("error", "Nothing was saved: fix the fields marked below.")
        self._show(await db.run(service.open_builder, actor_id=await caller_id(self), test_id=self.test_id))
        return toast("success", f"Saved (version {outcome.version}).")

    @rx.event
    async def save(self):
        return await self._save(None)

    @rx.event
    async def confirm_save(self):
        number = self.confirm_version
        self.warning = ""
        return await self._save(number)

    @rx.event
    def cancel_save(self):
        self.warning, self.confirm_version = "", 0

    @rx.event
    async def discard(self):
        """Back to the test as saved."""
        if not self.test_id:
            return None
        try:
            view = await db.run(service.discard_draft, actor_id=await caller_id(self), test_id=self.test_id)
        except ServiceError as error:
            return toast("error", error.message)
        self._show(view)
        return toast("success", "The draft was discarded: the builder shows the saved test.")
