"""/admin/tests/[test_id]/versions: a test's versions, and what changed between two of them."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.domain.ids import whole_number
from portal.services.admin import versions as service
from portal.services.errors import ServiceError
from portal.states.admin.guard import staff_load
from portal.states.route_params import route_arg
from portal.states.tab_owner import TabOwned


class TestVersionsState(TabOwned, rx.State):
    __test__ = False  # not a pytest test class

    loaded: bool = False
    missing: str = ""
    # One per version, newest first: number, created, by, source, in_progress, done, state.
    rows: list[dict[str, str]] = []
    choices: list[list[str]] = []  # [number, 'Version N'] for the two selects
    before: str = ""
    after: str = ""
    # What changed from `before` to `after`: path, kind (added, removed, changed), was, now.
    changes: list[dict[str, str]] = []
    compared: bool = False

    def _test_id(self) -> int | None:
        return whole_number(route_arg(self, "test_id"))

    @rx.event
    async def load(self):
        self.loaded, self.missing, self.rows, self.changes, self.compared = False, "", [], [], False
        try:
            found = await staff_load(self, service.list_versions, test_id=self._test_id())
        except ServiceError as refused:
            self.missing, self.loaded = refused.message, True
            return
        if found is None:  # not staff
            return
        self.rows = [
            {
                "number": str(v.number),
                "created": v.created,
                "by": v.by or "—",
                "source": v.source,
                "in_progress": str(v.in_progress),
                "done": str(v.done),
                "state": "In use" if v.sealed else "Open",
            }
            for v in found
        ]
        self.choices = [[r["number"], f"Version {r['number']}"] for r in self.rows]
        self.loaded = True
        if len(found) >= 2:  # the newest change is the one staff look for first
            self.before, self.after = str(found[1].number), str(found[0].number)
            await self._compare()
        elif found:
            self.before = self.after = str(found[0].number)

    @rx.event
    async def choose(self, which: Any, number: Any):
        if which not in ("before", "after") or not isinstance(number, str):
            return
        if not any(r["number"] == number for r in self.rows):
            return
        setattr(self, which, number)
        await self._compare()

    async def _compare(self) -> None:
        try:
            found = await staff_load(
                self, service.compare, test_id=self._test_id(), before=self.before, after=self.after
            )
        except ServiceError as refused:
            self.changes, self.compared, self.missing = [], False, refused.message
            return
        if found is None:
            return
        self.changes = [{"path": c.path, "kind": c.kind, "was": c.before, "now": c.after} for c in found]
        self.compared = True
