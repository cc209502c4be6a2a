"""/admin/api-keys: a super-admin makes a key with scopes and sees it once, reads the keys' last use, revokes one.

The new key's value is never in this state (public or backend): the create handler hands it to the browser once,
inside the event that writes it into the dialog's read-only field, so neither the state store nor a later delta
holds it; closing the dialog unmounts the field and the value is gone from the page too.
"""

from __future__ import annotations

import json
from typing import Any

import reflex as rx

from portal import db
from portal.domain import api_keys as rules
from portal.services.admin import api_keys as service
from portal.services.admin.api_keys import KeyRefused
from portal.services.admin.guard import StaffRefused
from portal.services.errors import ServiceError
from portal.states.admin.guard import caller_id, staff_load
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned

VALUE_ID = "api-key-value"  # the dialog's read-only field the new key is written into
FIELDS = ("name", "scopes", "rate_per_minute")
FRAMES = 600  # how many animation frames the key's script waits for the dialog to open (about 10 s)


def reveal_js(key: str) -> str:
    """The browser's part: once the dialog's field is on the page, the key goes into it, selected, with focus."""
    return (
        "(() => { const value = " + json.dumps(key) + "; let left = " + str(FRAMES) + "; const put = () => { "
        f"const field = document.getElementById({json.dumps(VALUE_ID)}); "
        "if (!field) { if (left-- > 0) { requestAnimationFrame(put); } return; } "
        "field.value = value; field.focus(); field.select(); }; put(); })()"
    )


COPY_JS = (
    "(async () => { "
    f"const field = document.getElementById({json.dumps(VALUE_ID)}); "
    "if (!field) { return; } "
    "try { await navigator.clipboard.writeText(field.value); } "
    "catch (_refused) { field.focus(); field.select(); document.execCommand('copy'); } })()"
)


def _form_value(form_data: Any, name: str) -> Any:
    return form_data.get(name) if isinstance(form_data, dict) else None


class AdminApiKeysState(TabOwned, rx.State):
    loaded: bool = False
    keys: list[dict[str, str]] = []
    chosen: list[str] = []  # the scopes ticked in the form
    errors: dict[str, str] = dict.fromkeys(FIELDS, "")
    form_error: str = ""
    revision: int = 0  # bumped after a key is made: the (uncontrolled) fields start again empty
    created_name: str = ""  # the dialog of the key just made is open while this is set (its value is not here)
    revoke_id: str = ""  # the key the confirmation dialog asks about
    revoke_name: str = ""

    async def _reload(self) -> None:
        self.keys = await db.run(service.list_keys, actor_id=await caller_id(self))
        self.loaded = True

    @rx.event
    async def load(self):
        """on_load: the keys for a super-admin (the page tells other staff it is not theirs)."""
        rows = await staff_load(self, service.list_keys)
        if rows is None:
            return
        self.keys, self.loaded = rows, True
        self.created_name, self.revoke_id, self.revoke_name = "", "", ""

    @rx.event
    def toggle_scope(self, scope: Any):
        if not isinstance(scope, str) or scope not in rules.SCOPES:
            return
        chosen = set(self.chosen) ^ {scope}
        self.chosen = [name for name in rules.SCOPES if name in chosen]

    @rx.event
    async def create(self, form_data: Any):
        try:
            made = await db.run(
                service.create_key,
                actor_id=await caller_id(self),
                name=_form_value(form_data, "name"),
                scopes=list(self.chosen),
                rate_per_minute=_form_value(form_data, "rate_per_minute"),
            )
        except KeyRefused as refused:
            self.errors = {field: refused.errors.get(field, "") for field in FIELDS}
            self.form_error = next((m for f, m in refused.errors.items() if f not in FIELDS), "")
            return None
        self.errors, self.form_error = dict.fromkeys(FIELDS, ""), ""
        self.chosen, self.revision = [], self.revision + 1
        self.created_name = made.name
        await self._reload()
        return rx.call_script(reveal_js(made.key))

    @rx.event
    def close_created(self):
        self.created_name = ""

    @rx.event
    def ask_revoke(self, key_id: Any):
        """Open the confirmation for an active key of the list (the service checks again when it is confirmed)."""
        row = next((r for r in self.keys if r["id"] == str(key_id) and r["status"] == "Active"), None)
        if row is not None:
            self.revoke_id, self.revoke_name = row["id"], row["name"]

    @rx.event
    def cancel_revoke(self):
        self.revoke_id, self.revoke_name = "", ""

    @rx.event
    async def revoke(self, key_id: Any):
        self.revoke_id, self.revoke_name = "", ""
        try:
            message = await db.run(service.revoke_key, actor_id=await caller_id(self), key_id=key_id)
        except StaffRefused:
            raise
        except ServiceError as refused:  # already revoked, or not a key of the list
            await self._reload()
            return toast("error", refused.message)
        await self._reload()
        return toast("success", message)
