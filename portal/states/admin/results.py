"""/admin/tests/[test_id]/results: a test's results, refreshed while the page is open, and their exports.

Thin: every number comes from the service's Results (portal/services/admin/results.py) through the page's
texts (portal/domain/results/view.py). The filters are the controls' strings; the service reads them and a bad
one comes back as a ServiceError naming its field, shown by that control while the numbers stay those of the
last filters that worked (`applied` says which). The exports use those same filters, so a file holds what the
page shows.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import reflex as rx

from portal import db
from portal.domain.ids import whole_number
from portal.domain.results import view
from portal.services.admin import results as service
from portal.services.errors import ServiceError
from portal.states.admin.guard import caller_id, staff_load
from portal.states.route_params import route_arg
from portal.states.tab_owner import TabOwned

FILTERS = ("seniority", "country", "company_size", "version", "since", "until", "excluded")
DATES = ("since", "until")
REFRESH_SECONDS = 20  # how often an open results page reads the results again
MAX_FILTER = 40  # characters of a filter value kept (the service reads no more)
MAX_QUERY = 100  # characters of a text search
NO_FILTERS = dict.fromkeys(FILTERS, "")
NO_ERRORS = dict.fromkeys(FILTERS, "")


def _checked(value: Any) -> str:
    return "1" if value is True or value in ("1", "true", "on") else ""


class TestResultsState(TabOwned, rx.State):
    __test__ = False  # not a pytest test class

    loaded: bool = False
    missing: str = ""  # an unknown test's message
    name: str = ""
    filters: dict[str, str] = NO_FILTERS  # the controls' values (excluded: '1' or '')
    errors: dict[str, str] = NO_ERRORS  # a filter's message by its name ('' for none)
    applied: str = ""  # the filters the numbers are for, in words
    funnel: list[view.Figure] = []
    reviews: str = ""
    left_out: str = ""
    timing: list[view.Figure] = []
    timing_summary: str = ""
    sections: list[view.Section] = []
    is_preference: bool = False
    preference: view.PreferenceView = view.NO_PREFERENCE
    screenshot: str = ""
    areas: list[view.AreaBox] = []
    areas_summary: str = ""
    options: dict[str, list[list[str]]] = {}
    queries: dict[str, str] = {}  # a text question's search by its key
    updated: str = ""  # when the numbers were read (ISO, UTC): the page shows it in the browser's time
    _applied: dict[str, str] = {}  # the filters of the numbers shown (and of the exports)
    _read_at: float = 0.0

    def _test_id(self) -> int | None:
        return whole_number(route_arg(self, "test_id"))

    @rx.event
    async def load(self):
        self.loaded, self.missing, self.errors, self.filters, self.queries = False, "", NO_ERRORS, NO_FILTERS, {}
        self._applied, self.sections, self.updated = {}, [], ""
        await self._read({})

    async def _read(self, raw: dict[str, str]) -> None:
        try:
            found = await staff_load(self, service.results_view, test_id=self._test_id(), filters=raw)
        except ServiceError as refused:
            if refused.field in FILTERS:
                self.errors = {**NO_ERRORS, refused.field: refused.message}
            else:
                self.missing, self.loaded = refused.message, True
            return
        if found is None:  # not staff: nothing is shown
            return
        shown = view.page(found, self.queries)
        self.errors, self._applied = NO_ERRORS, dict(raw)
        self.name, self.funnel = shown["name"], shown["funnel"]
        self.reviews, self.left_out = shown["reviews"], shown["left_out"]
        self.timing, self.timing_summary, self.applied = shown["timing"], shown["timing_summary"], shown["applied"]
        self.sections = shown["sections"]
        self.is_preference = shown["preference"] is not None
        self.preference = shown["preference"] or view.NO_PREFERENCE
        self.screenshot, self.areas, self.areas_summary = shown["screenshot"], shown["areas"], shown["areas_summary"]
        self.options = shown["options"]
        self.updated = datetime.now(UTC).isoformat(timespec="seconds")
        self._read_at = time.time()
        self.loaded = True

    @rx.event
    async def set_filter(self, name: Any, value: Any):
        """A filter's control changed: read the results again with it (a bad value gets its message)."""
        if name not in FILTERS or not self.loaded or self.missing:
            return
        if name == "excluded":
            text = _checked(value)
        elif isinstance(value, str):
            text = value.strip()[:MAX_FILTER]
        else:
            return
        self.filters = {**self.filters, name: text}
        await self._read(self.filters)

    @rx.event
    async def clear_filters(self):
        if not self.loaded or self.missing:
            return
        self.filters = NO_FILTERS
        await self._read({})

    @rx.event
    async def search(self, key: Any, query: Any):
        """A text question's search: its answers that hold every word typed."""
        if not isinstance(key, str) or not isinstance(query, str) or not self.loaded or self.missing:
            return
        if not any(c["key"] == key and c["shape"] == "text" for s in self.sections for c in s["cards"]):
            return
        self.queries = {**self.queries, key: query[:MAX_QUERY]}
        await self._read(self._applied)

    @rx.event
    async def refresh(self):
        """'Refresh': read the results again now."""
        if self.loaded and not self.missing:
            await self._read(self._applied)

    @rx.event
    async def tick(self, _shown: Any = None):
        """The page's timer (every REFRESH_SECONDS while it is open): read the results again unless they were
        read a moment ago (the timer also fires once as it appears, right after the page's load)."""
        if self.loaded and not self.missing and time.time() - self._read_at >= REFRESH_SECONDS - 2:
            await self._read(self._applied)

    async def _export(self, file_format: str):
        name, data, media_type = await db.run(
            service.export_results,
            actor_id=await caller_id(self),
            test_id=self._test_id(),
            filters=self._applied,
            file_format=file_format,
        )
        return rx.download(data=data, filename=name, mime_type=media_type)

    @rx.event
    async def export_csv(self):
        """'Download CSV': one row per review, with the filters of the numbers shown."""
        return await self._export("csv")

    @rx.event
    async def export_excel(self):
        """'Download Excel': the same rows and a summary sheet of the page's numbers."""
        return await self._export("xlsx")
