"""/admin/tests/[test_id]/images: a test's image slots; an upload is sent by the browser itself.

Choosing a file calls `start`, which asks the browser (window.portalImages.upload in
assets/portal.js) to send it to the upload endpoint with a progress bar; when that answers,
`finished` shows its refusal, if any, and reloads the slots from the database (what the server
kept, never what the browser says it sent).
"""

from __future__ import annotations

import json
from typing import Any

import reflex as rx

from portal.domain.ids import whole_number
from portal.domain.text import clean_text
from portal.services.admin import images as service
from portal.services.errors import ServiceError
from portal.states.admin.guard import staff_load
from portal.states.browser import portal_call
from portal.states.route_params import route_arg
from portal.states.tab_owner import TabOwned

UPLOAD_URL = "/api/admin/tests/{test_id}/images/{slot}"
MAX_MESSAGE = 300


class AdminImagesState(TabOwned, rx.State):
    test_name: str = ""
    in_use: str = ""  # the test is in use: what an upload does (a new version)
    in_draft: str = ""  # the builder keeps a draft: an upload goes into it
    missing: str = ""  # why there is nothing to show (no such test)
    loaded: bool = False
    # One per slot: key, label, url (current image), error (the last refusal), busy ("yes" while sending).
    slots: list[dict[str, str]] = []

    def _test_id(self) -> int | None:
        return whole_number(route_arg(self, "test_id"))

    def _index(self, slot: Any) -> int | None:
        return next((i for i, s in enumerate(self.slots) if isinstance(slot, str) and s["key"] == slot), None)

    async def _reload(self, keep: dict[str, str] | None = None) -> None:
        try:
            found = await staff_load(self, service.images_of_test, test_id=self._test_id())
        except ServiceError as refused:
            self.test_name, self.slots, self.missing, self.loaded = "", [], refused.message, True
            return
        if found is None:  # not staff
            return
        errors = keep or {}
        self.test_name, self.missing, self.loaded = found["name"], "", True
        self.in_use, self.in_draft = found.get("in_use", ""), found.get("draft", "")
        self.slots = [{**s, "error": errors.get(s["key"], ""), "busy": ""} for s in found["slots"]]

    @rx.event
    async def load(self):
        """on_load: the test's slots and their current images."""
        self.loaded = False
        await self._reload()

    @rx.event
    def start(self, slot: Any):
        """A file was chosen for `slot`: the browser sends it (the endpoint decides whether it is kept)."""
        index, test_id = self._index(slot), self._test_id()
        if index is None or test_id is None or self.slots[index]["busy"]:
            return None
        key = self.slots[index]["key"]
        self.slots[index] = {**self.slots[index], "error": "", "busy": "yes"}
        url = UPLOAD_URL.format(test_id=test_id, slot=key)
        return portal_call(
            f"window.portalImages.upload({json.dumps(key)}, {json.dumps(url)})", callback=AdminImagesState.finished
        )

    @rx.event
    async def finished(self, result: Any):
        """The browser's upload answered: show its message, and what the server now holds."""
        result = result if isinstance(result, dict) else {}
        index = self._index(result.get("slot"))
        if index is None:
            return
        key = self.slots[index]["key"]
        message = result.get("message") if not result.get("ok") else ""
        message = clean_text(message)[:MAX_MESSAGE] if isinstance(message, str) else ""
        errors = {s["key"]: s["error"] for s in self.slots}
        errors[key] = message
        await self._reload(errors)
