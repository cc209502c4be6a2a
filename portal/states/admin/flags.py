"""/admin/flags: the feature flags, on/off, percentage of users and per-user overrides (super-admins)."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal import db
from portal.domain.flags import FLAGS
from portal.domain.staff import flag_rules as rules
from portal.services.admin import flags as service
from portal.services.errors import ServiceError
from portal.states.admin.guard import caller_id, staff_load
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned


def _form_value(form_data: Any, name: str) -> Any:
    return form_data.get(name) if isinstance(form_data, dict) else None


class AdminFlagsState(TabOwned, rx.State):
    """Keyed by the flag keys of portal/domain/flags.FLAGS only (a key from the browser is checked first)."""

    loaded: bool = False
    growthbook: str = ""
    enabled: dict[str, bool] = dict.fromkeys(FLAGS, False)
    percentage: dict[str, str] = dict.fromkeys(FLAGS, "100")
    summary: dict[str, str] = dict.fromkeys(FLAGS, "")
    description: dict[str, str] = dict.fromkeys(FLAGS, "")
    source: dict[str, str] = dict.fromkeys(FLAGS, "table")
    overrides: dict[str, list[dict[str, str]]] = {key: [] for key in FLAGS}
    override_total: dict[str, int] = dict.fromkeys(FLAGS, 0)
    percentage_error: dict[str, str] = dict.fromkeys(FLAGS, "")
    override_error: dict[str, str] = dict.fromkeys(FLAGS, "")
    revision: int = 0  # bumped after a saved change: the (uncontrolled) fields start again from the saved values

    async def _reload(self, page: Any = None) -> None:
        page = page or await db.run(service.list_flags, actor_id=await caller_id(self))
        self.growthbook = page.growthbook
        self.enabled = {f.key: f.enabled for f in page.flags}
        self.percentage = {f.key: str(f.percentage) for f in page.flags}
        self.summary = {f.key: f.summary for f in page.flags}
        self.description = {f.key: f.description for f in page.flags}
        self.source = {f.key: f.source for f in page.flags}
        self.overrides = {f.key: f.overrides for f in page.flags}
        self.override_total = {f.key: f.override_total for f in page.flags}
        self.loaded = True
        self.revision += 1

    def _set_error(self, which: str, key: str, message: str) -> None:
        errors = dict(getattr(self, which))
        errors[key] = message
        setattr(self, which, errors)

    @rx.event
    async def load(self):
        """on_load: the flags for whoever may change them (the page tells other staff it is not theirs)."""
        try:
            page = await staff_load(self, service.list_flags)
            if page is None:
                return
            await self._reload(page)
        except ServiceError:
            self.loaded = False

    @rx.event
    async def set_enabled(self, flag_key: Any, enabled: Any):
        changed = await db.run(service.set_enabled, actor_id=await caller_id(self), flag_key=flag_key, enabled=enabled)
        await self._reload()
        if changed:
            return toast("success", f"{rules.flag_label(flag_key)} is {'on' if enabled else 'off'}.")
        return None

    @rx.event
    async def save_percentage(self, flag_key: Any, form_data: Any):
        if not rules.is_flag(flag_key):
            return toast("error", rules.UNKNOWN_FLAG)
        try:
            changed = await db.run(
                service.set_percentage,
                actor_id=await caller_id(self),
                flag_key=flag_key,
                percentage=_form_value(form_data, "percentage"),
            )
        except ServiceError as refused:
            if refused.field != "percentage":
                raise
            self._set_error("percentage_error", flag_key, refused.message)
            return None
        self._set_error("percentage_error", flag_key, "")
        await self._reload()
        if changed:
            return toast("success", f"{rules.flag_label(flag_key)}: {self.summary[flag_key].lower()}.")
        return None

    @rx.event
    async def add_override(self, flag_key: Any, form_data: Any):
        if not rules.is_flag(flag_key):
            return toast("error", rules.UNKNOWN_FLAG)
        override = _form_value(form_data, "override")
        try:
            email = await db.run(
                service.set_override,
                actor_id=await caller_id(self),
                flag_key=flag_key,
                email=_form_value(form_data, "email"),
                override=override,
            )
        except ServiceError as refused:
            if refused.field not in ("email", "override"):
                raise
            self._set_error("override_error", flag_key, refused.message)
            return None
        self._set_error("override_error", flag_key, "")
        await self._reload()
        chosen = rules.override_label(rules.parse_override(override))
        return toast("success", f"{rules.flag_label(flag_key)} is {chosen} for {email}.")

    @rx.event
    async def remove_override(self, flag_key: Any, account_id: Any):
        removed = await db.run(
            service.remove_override, actor_id=await caller_id(self), flag_key=flag_key, account_id=account_id
        )
        await self._reload()
        if removed:
            return toast("success", "Override removed: the person follows the flag's setting again.")
        return None
