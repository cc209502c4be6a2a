"""A Reflex state base (mixin) for the shared data table, and the home page's two tables.

The state keeps only the current page of rows (small dicts of strings) and the table
request (page, page size, sort, search, filters). Every handler is callable from the
browser with anything, so each one validates its arguments; the services validate the
whole request again and always take the account from the server-side session.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, ClassVar

import reflex as rx

from portal import db
from portal.domain import table as rules
from portal.domain.accounts import CurrentUser
from portal.domain.staff import appeals as appeal_rules
from portal.services import appeals as appeal_service
from portal.services import invites as invite_service
from portal.services import payout_requests, payout_runner
from portal.services import rewards as reward_service
from portal.services.error_reporting import report_browser_error
from portal.services.errors import ServiceError
from portal.services.tables import TablePage, TableQuery, TableSpec
from portal.states.auth import current_user
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)


class DataTableState(TabOwned, rx.State, mixin=True):
    rows: list[dict[str, str]] = []
    total: int = 0
    page: int = 1
    page_size: int = rules.DEFAULT_PAGE_SIZE
    sort_by: str = rules.DEFAULT_SORT_BY
    sort_direction: int = rules.DEFAULT_SORT_DIRECTION
    search_text: str = ""
    loaded: bool = False
    error: bool = False
    # Filters panel: drafts edited in the panel, applied on 'Apply'.
    filters_open: bool = False
    draft_selected: list[str] = []  # "name:value"
    draft_excluded: list[str] = []  # names of list filters switched to 'exclude'
    draft_range_from: str = ""
    draft_range_to: str = ""
    range_confirm_open: bool = False
    range_key: int = 0  # bumped on reset so the (uncontrolled) date inputs start empty again
    applied_filter_count: int = 0
    selected_ids: list[str] = []

    _filters: list[dict[str, Any]] = []

    # Per table: its declaration (services/tables.py): sortable columns, filters, page sizes.
    table: ClassVar[TableSpec]

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:  # pragma: no cover - abstract
        """One page for the caller: a participant's own rows, or (staff tables) what the caller's role may see."""
        raise NotImplementedError

    def _after_fetch(self, result: TablePage) -> None:
        """Per-table extras (e.g. totalOpenInvites)."""

    def _page_filters(self) -> list[dict[str, Any]]:
        """Filters the page itself chose (e.g. one test's reviews, from its address) that the filters panel does not
        show: Apply and Reset keep them. None by default."""
        return []

    def _query(self) -> TableQuery:
        return self.table.clean(
            page=self.page,
            page_size=self.page_size,
            sort_by=self.sort_by,
            sort_direction=self.sort_direction,
            search=self.search_text,
            filters=self._filters,
        )

    async def _reload(self) -> None:
        user = await current_user(self)
        if user is None:
            self.rows, self.total, self.loaded = [], 0, False
            return
        try:
            result = await self._fetch(user, self._query())
        except ServiceError as refused:  # e.g. a staff table asked for by someone without the permission
            log.info("table %s refused: %s", type(self).__name__, refused.message)
            self.rows, self.total, self.error, self.loaded = [], 0, True, True
            return
        except Exception:  # shown as 'Error loading data'; the details go to the log
            log.exception("table %s failed to load", type(self).__name__)
            self.rows, self.total, self.error, self.loaded = [], 0, True, True
            return
        self.error = False
        self.rows = result.rows
        self.total = result.total
        self.loaded = True
        self._after_fetch(result)
        last = rules.page_count(self.total, self.page_size)
        if self.page > last:  # e.g. a filter shrank the results: show the last page there is
            self.page = last
            await self._reload()

    @rx.event
    async def load(self):
        await self._reload()

    @rx.event
    async def set_page(self, page: Any):
        self.page = rules.clean_page(page)
        await self._reload()

    @rx.event
    async def next_page(self):
        self.page = min(self.page + 1, rules.page_count(self.total, self.page_size))
        await self._reload()

    @rx.event
    async def previous_page(self):
        self.page = max(1, self.page - 1)
        await self._reload()

    @rx.event
    async def set_page_size(self, size: Any):
        self.page_size = rules.clean_page_size(size, self.table.page_size_options)
        self.page = 1
        await self._reload()

    @rx.event
    async def sort(self, column: Any):
        if not isinstance(column, str) or column not in self.table.sortable:
            return
        self.sort_by, self.sort_direction = rules.toggle_sort(self.sort_by, self.sort_direction, column)
        self.page = 1
        await self._reload()

    @rx.event
    async def search(self, text: Any):
        """Called by the search box after 1500 ms without typing."""
        # Kept as typed (the box shows it back); the query uses the cleaned text.
        self.search_text = text[: rules.MAX_SEARCH_LENGTH] if isinstance(text, str) else ""
        self.page = 1
        await self._reload()

    # Filters panel -------------------------------------------------------------------------

    @rx.event
    def toggle_filters(self):
        self.filters_open = not self.filters_open

    @rx.event
    def toggle_filter_value(self, name: Any, value: Any, is_multi: Any = True):
        spec = self.table.filters_allowed.get(name) if isinstance(name, str) else None
        if spec is None or spec["type"] == "range" or value not in spec.get("options", ()):
            return
        key = f"{name}:{value}"
        if key in self.draft_selected:
            self.draft_selected = [k for k in self.draft_selected if k != key]
        elif is_multi is False:
            self.draft_selected = [k for k in self.draft_selected if not k.startswith(f"{name}:")] + [key]
        else:
            self.draft_selected = [*self.draft_selected, key]

    @rx.event
    def set_filter_mode(self, name: Any, mode: Any):
        spec = self.table.filters_allowed.get(name) if isinstance(name, str) else None
        if spec is None or spec["type"] == "range" or mode not in ("list", "exclude"):
            return
        others = [n for n in self.draft_excluded if n != name]
        self.draft_excluded = [*others, name] if mode == "exclude" else others

    @rx.event
    def set_range_from(self, value: Any):
        self.draft_range_from = value if rules.parse_iso_date(value) else ""

    @rx.event
    def set_range_to(self, value: Any):
        self.draft_range_to = value if rules.parse_iso_date(value) else ""

    def _draft_filters(self, with_range: bool) -> list[dict[str, Any]]:
        filters: list[dict[str, Any]] = []
        for name, spec in self.table.filters_allowed.items():
            if spec["type"] == "range":
                if with_range and self.draft_range_from and self.draft_range_to:
                    filters.append(
                        {"name": name, "type": "range", "values": [self.draft_range_from, self.draft_range_to]}
                    )
                continue
            values = [k.split(":", 1)[1] for k in self.draft_selected if k.startswith(f"{name}:")]
            if values:
                kind = "exclude" if name in self.draft_excluded else "list"
                filters.append({"name": name, "type": kind, "values": values})
        return rules_filters_as_dicts(filters, self.table.filters_allowed)

    @rx.event
    async def apply_filters(self):
        """A date range asks for confirmation first ('Use range')."""
        if self.draft_range_from and self.draft_range_to:
            self.range_confirm_open = True
            return
        await self._apply(with_range=False)

    @rx.event
    async def confirm_range(self):
        self.range_confirm_open = False
        await self._apply(with_range=True)

    @rx.event
    def cancel_range(self):
        self.range_confirm_open = False

    async def _apply(self, with_range: bool) -> None:
        self._filters = [*self._page_filters(), *self._draft_filters(with_range)]
        self.applied_filter_count = len(self._filters)
        self.filters_open = False
        self.page = 1
        await self._reload()

    @rx.event
    async def reset_filters(self):
        self.draft_selected, self.draft_excluded = [], []
        self.draft_range_from = self.draft_range_to = ""
        self.range_key += 1
        self._filters = self._page_filters()
        self.applied_filter_count = len(self._filters)
        self.page = 1
        await self._reload()

    # Selection -----------------------------------------------------------------------------

    @rx.event
    def toggle_selected(self, row_id: Any):
        if not isinstance(row_id, str) or row_id not in {r.get("id") for r in self.rows}:
            return
        if row_id in self.selected_ids:
            self.selected_ids = [i for i in self.selected_ids if i != row_id]
        else:
            self.selected_ids = [*self.selected_ids, row_id]

    @rx.event
    def clear_selection(self):
        self.selected_ids = []

    @rx.event
    def log_render_failure(self, error: Any, component_stack: Any):
        report_browser_error(f"table {type(self).__name__}", error, component_stack)

    # What the component shows ---------------------------------------------------------------

    @rx.var
    def page_count(self) -> int:
        return rules.page_count(self.total, self.page_size)

    @rx.var
    def pagination_visible(self) -> bool:
        return rules.pagination_visible(self.total, self.table.page_size_options)

    @rx.var
    def page_size_choices(self) -> list[str]:
        return [str(s) for s in self.table.page_size_options]

    @rx.var
    def empty_message(self) -> str:
        return rules.empty_message(bool(rules.clean_search(self.search_text) or self.applied_filter_count))

    @rx.var
    def range_text(self) -> str:
        if not self.total:
            return ""
        first = (self.page - 1) * self.page_size + 1
        return f"{first}–{min(self.page * self.page_size, self.total)} of {self.total}"

    @rx.var
    def range_question(self) -> str:
        return rules.range_confirmation(self.draft_range_from, self.draft_range_to)


def rules_filters_as_dicts(filters: list[dict[str, Any]], specs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Validated again with the domain rule, as plain dicts (what the service accepts)."""
    return [{"name": f.name, "type": f.type, "values": list(f.values)} for f in rules.clean_filters(filters, specs)]


class InvitesTableState(DataTableState, rx.State):
    """Invites on the home page. totalOpenInvites feeds the 'Invites (N)' tab."""

    total_open: int = 0
    table: ClassVar[TableSpec] = invite_service.TABLE

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        return await db.run(invite_service.list_invites, account_id=caller.account_id, query=query)

    def _after_fetch(self, result: TablePage) -> None:
        self.total_open = result.total_open

    @rx.event
    async def open_invite(self, invite_id: Any):
        """An open invite goes to its test; otherwise the reason, as a toast."""
        user = await current_user(self)
        if user is None:
            return rx.redirect("/sign-in")
        outcome = await db.run(invite_service.invite_click, account_id=user.account_id, invite_id=invite_id)
        if outcome.redirect:
            return rx.redirect(outcome.redirect)
        return toast("error", outcome.message or "")


class RewardsTableState(DataTableState, rx.State):
    table: ClassVar[TableSpec] = reward_service.TABLE

    appeal_review_id: str = ""  # the rejected review an appeal is being written for ('' when the dialog is shut)
    appeal_test: str = ""
    appeal_message: str = ""
    appeal_error: str = ""
    # The totals above the table (issue 37): paid, on the way, in review, paid this calendar year.
    totals: dict[str, str] = {}
    payment_email: str = ""  # where rewards links go
    resend_from: str = ""  # when a failed payout can be sent again ('' at once)
    email_open: bool = False  # the 'Payment e-mail' dialog
    email_draft: str = ""
    email_error: str = ""

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        page = await db.run(reward_service.list_rewards, account_id=caller.account_id, query=query)
        found = await db.run(payout_requests.totals, account_id=caller.account_id)
        self.totals = {
            "paid": found.paid,
            "on_the_way": found.on_the_way,
            "in_review": found.in_review,
            "this_year": found.this_year,
            "year": str(found.year),
        }
        where = await db.run(payout_requests.payment_email, account_id=caller.account_id)
        self.payment_email, self.resend_from = where.email, where.resend_from
        return page

    @rx.event
    def ask_payment_email(self):
        self.email_open, self.email_draft, self.email_error = True, self.payment_email, ""

    @rx.event
    def cancel_payment_email(self):
        self.email_open = False

    @rx.event
    def set_email_draft(self, text: Any):
        self.email_draft = text[:320] if isinstance(text, str) else ""
        self.email_error = ""

    @rx.event
    async def save_payment_email(self):
        user = await current_user(self)
        if user is None:
            return rx.redirect("/sign-in")
        try:
            self.payment_email = await db.run(
                payout_requests.set_payment_email, account_id=user.account_id, email=self.email_draft
            )
        except ServiceError as err:
            self.email_error = err.message
            return None
        self.email_open = False
        await self._reload()
        return toast("success", "Your payment e-mail is saved. A failed payment can be sent again in 48 hours.")

    @rx.event
    async def resend_payout(self, reward_id: Any):
        """'Send again' on a failed payment: to the payment e-mail, unless it changed in the last 48 hours."""
        user = await current_user(self)
        if user is None:
            return rx.redirect("/sign-in")
        try:
            await asyncio.to_thread(payout_runner.resend, user.account_id, reward_id)
        except ServiceError as err:
            return toast("error", err.message)
        await self._reload()
        return toast("success", "Your reward is being sent again.")

    @rx.event
    def ask_appeal(self, review_id: Any):
        """'Appeal' on a rejected review's row: the dialog for the message (the service decides whether it may)."""
        row = next((r for r in self.rows if r.get("review_id") == review_id), None)
        if row is None or not row.get("can_appeal"):
            return None
        self.appeal_review_id, self.appeal_test = str(review_id), row.get("test_id", "")
        self.appeal_message, self.appeal_error = "", ""
        return None

    @rx.event
    def set_appeal_message(self, text: Any):
        self.appeal_message = text[: appeal_rules.MESSAGE_MAX + 1] if isinstance(text, str) else ""
        self.appeal_error = ""

    @rx.event
    def cancel_appeal(self):
        self.appeal_review_id = ""

    @rx.event
    async def send_appeal(self):
        if problem := appeal_rules.message_problem(self.appeal_message):
            self.appeal_error = problem
            return None
        user = await current_user(self)
        if user is None:
            return rx.redirect("/sign-in")
        try:
            await db.run(
                appeal_service.appeal,
                account_id=user.account_id,
                review_id=self.appeal_review_id,
                message=self.appeal_message,
            )
        except ServiceError as err:
            self.appeal_error = err.message
            return None
        self.appeal_review_id = ""
        await self._reload()
        return toast("success", appeal_rules.decision_words(appeal_rules.OPEN))
