"""/admin/reviews: submitted reviews, one review's answers, approve or reject, CSV, clearing pending reviews."""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import reflex as rx

from portal import db
from portal.domain import table as table_rules
from portal.domain.accounts import CurrentUser
from portal.domain.ids import whole_number
from portal.domain.staff import pending
from portal.domain.staff import reviews as decisions
from portal.services.admin import reviews as service
from portal.services.errors import ServiceError
from portal.services.tables import TablePage, TableQuery, TableSpec
from portal.states.admin.guard import caller_id
from portal.states.browser import toast
from portal.states.table import DataTableState

log = logging.getLogger(__name__)


class AdminReviewsState(DataTableState, rx.State):
    table: ClassVar[TableSpec] = service.TABLE

    detail: dict[str, Any] = {}
    detail_open: bool = False
    reject_ids: list[str] = []
    reject_reason: str = ""
    reject_note: str = ""
    reject_error: str = ""
    reject_flags: list[str] = []  # the evidence flags ticked (decisions.EVIDENCE_FLAGS keys)
    reject_evidence: str = ""  # the evidence in words, shown to the participant
    clear_message: str = ""
    test_filter: str = ""  # the test chosen by ?test=ID (CSV export)
    approve_ids: list[str] = []  # the reviews a bulk approval is being confirmed for
    approve_count: int = 0  # how many of them wait for a decision ...
    approve_cents: int = 0  # ... and what their rewards come to (the service's sum)
    exclude_ids: list[str] = []  # the reviews an exclusion (one or bulk) is being confirmed for
    exclude_count: int = 0  # how many of them wait for a decision ...
    exclude_cents: int = 0  # ... and what their rewards (still paid) come to
    flags_checked: str = ""  # when the chosen test's quality flags were last computed

    async def _fetch(self, caller: CurrentUser, query: TableQuery) -> TablePage:
        return await db.run(service.list_reviews, actor_id=caller.account_id, query=query)

    def _page_filters(self) -> list[dict[str, Any]]:
        """?test=ID: that test's reviews, also after the filters panel's Apply or Reset (it has no test filter)."""
        return [{"name": "test", "type": "list", "values": [self.test_filter]}] if self.test_filter else []

    @rx.event
    async def load_page(self):
        """on load: ?test=ID shows every review of that test (and offers its CSV); otherwise the reviews
        waiting for a decision, across tests (the daily queue; the filter can be changed)."""
        number = whole_number(self.router.url.query_parameters.get("test", ""))
        self.test_filter = str(number) if number else ""
        if number:
            self._filters, self.draft_selected = self._page_filters(), []
        else:
            self._filters = [{"name": "status", "type": "list", "values": [decisions.SUBMITTED]}]
            self.draft_selected = [f"status:{decisions.SUBMITTED}"]
        self.applied_filter_count = len(self._filters)
        self.page, self.selected_ids, self.clear_message = 1, [], ""
        self.flags_checked = (
            await db.run(service.flags_checked, actor_id=await caller_id(self), test_id=self.test_filter)
            if number
            else ""
        )
        await self._reload()

    @rx.event
    async def check_flags(self):
        """'Check flags now' for the chosen test: its flags computed if new reviews came since."""
        if not self.test_filter:
            return None
        self.flags_checked = await db.run(service.check_flags, actor_id=await caller_id(self), test_id=self.test_filter)
        await self._reload()
        return toast("success", "Quality flags checked.")

    @rx.event
    async def open_review(self, review_id: Any):
        self.detail = await db.run(service.review_detail, actor_id=await caller_id(self), review_id=review_id)
        self.detail_open = True

    @rx.event
    def close_review(self):
        self.detail_open = False

    async def _decide(self, ids: list[str], approve: bool, reason: str | None = None, note: str | None = None):
        count = await db.run(
            service.decide, actor_id=await caller_id(self), review_ids=ids, approve=approve, reason=reason, note=note
        )
        return await self._decided(ids, count, "approved" if approve else "rejected")

    async def _decided(self, ids: list[str], count: int, verb: str):
        self.selected_ids = [i for i in self.selected_ids if i not in ids]
        self.detail_open = False
        await self._reload()
        noun = "review" if count == 1 else "reviews"
        return toast("success", f"{count} {noun} {verb}.")

    @rx.event
    async def approve(self, review_id: Any):
        return await self._decide([review_id] if isinstance(review_id, str) else [], True)

    @rx.event
    async def ask_approve(self):
        """Bulk approve asks first, naming how many reviews it decides and what their rewards come to (the service's
        count and sum)."""
        ids = list(self.selected_ids)
        if not ids:
            return None
        count, cents = await db.run(service.approval_preview, actor_id=await caller_id(self), review_ids=ids)
        if count == 0:
            return toast("error", service.ALREADY_DECIDED)
        self.approve_ids, self.approve_count, self.approve_cents = ids, count, cents
        return None

    @rx.event
    def cancel_approve(self):
        self.approve_ids = []

    @rx.event
    async def approve_selected(self):
        """The confirmation's Approve: the reviews it was asked for."""
        ids, self.approve_ids = list(self.approve_ids), []
        if not ids:
            return None
        return await self._decide(ids, True)

    @rx.event
    async def ask_exclude(self, review_id: Any = None):
        """Exclude (one review from its detail, or the selected ones) asks first: the participant is still paid,
        the review is left out of results and exports."""
        ids = [review_id] if isinstance(review_id, str) else list(self.selected_ids)
        if not ids:
            return None
        count, cents = await db.run(service.approval_preview, actor_id=await caller_id(self), review_ids=ids)
        if count == 0:
            return toast("error", service.ALREADY_DECIDED)
        self.exclude_ids, self.exclude_count, self.exclude_cents = ids, count, cents
        return None

    @rx.event
    def cancel_exclude(self):
        self.exclude_ids = []

    @rx.event
    async def exclude_selected(self):
        """The confirmation's Exclude: the reviews it was asked for."""
        ids, self.exclude_ids = list(self.exclude_ids), []
        if not ids:
            return None
        count = await db.run(service.exclude, actor_id=await caller_id(self), review_ids=ids)
        return await self._decided(ids, count, "excluded")

    @rx.event
    def ask_reject(self, review_id: Any = None):
        ids = [review_id] if isinstance(review_id, str) else list(self.selected_ids)
        if ids:
            self.reject_ids, self.reject_reason, self.reject_note, self.reject_error = ids, "", "", ""
            self.reject_flags, self.reject_evidence = self._raised(ids), ""

    def _raised(self, ids: list[str]) -> list[str]:
        """The open review's flags a participant can be shown as evidence (ticked to start with; staff untick)."""
        if self.detail_open and ids == [self.detail.get("id")]:
            raised = [f.get("key") for f in self.detail.get("flags") or [] if isinstance(f, dict)]
            return [k for k in raised if isinstance(k, str) and k in decisions.EVIDENCE_FLAGS]
        return []

    @rx.event
    def set_reject_reason(self, reason: Any):
        self.reject_reason = reason if isinstance(reason, str) and reason in decisions.REJECTION_REASONS else ""
        self.reject_error = ""

    @rx.event
    def set_reject_note(self, note: Any):
        self.reject_note = note[: decisions.NOTE_MAX + 1] if isinstance(note, str) else ""

    @rx.event
    def toggle_reject_flag(self, key: Any):
        if not isinstance(key, str) or key not in decisions.EVIDENCE_FLAGS:
            return
        chosen = [k for k in self.reject_flags if k != key]
        self.reject_flags = chosen if len(chosen) < len(self.reject_flags) else [*self.reject_flags, key]

    @rx.event
    def set_reject_evidence(self, text: Any):
        self.reject_evidence = text[: decisions.EVIDENCE_MAX + 1] if isinstance(text, str) else ""
        self.reject_error = ""

    @rx.event
    def cancel_reject(self):
        self.reject_ids = []

    @rx.event
    async def confirm_reject(self):
        problem = decisions.reason_problem(self.reject_reason, self.reject_note) or decisions.evidence_problem(
            self.reject_flags, self.reject_evidence
        )
        if problem:
            self.reject_error = problem
            return None
        ids, self.reject_ids = self.reject_ids, []
        count = await db.run(
            service.decide,
            actor_id=await caller_id(self),
            review_ids=ids,
            approve=False,
            reason=self.reject_reason,
            note=self.reject_note,
            flags=list(self.reject_flags),
            evidence=self.reject_evidence,
        )
        return await self._decided(ids, count, "rejected")

    @rx.event
    async def export_csv(self):
        name, text = await db.run(service.export_csv, actor_id=await caller_id(self), test_id=self.test_filter)
        return rx.download(data=text.encode("utf-8"), filename=name, mime_type="text/csv;charset=utf-8")

    @rx.event
    async def clear_pending(self):
        """The spec's three messages: cleared, nothing to clear, or the error."""
        actor = await caller_id(self)
        try:
            self.clear_message = await db.run(service.clear_expired_pending, actor_id=actor)
        except ServiceError:
            raise
        except Exception:
            log.exception("clearing expired pending reviews failed")
            self.clear_message = pending.CLEAR_FAILED
            return toast("error", pending.CLEAR_FAILED)
        return toast("success" if self.clear_message == pending.CLEARED else "info", self.clear_message)

    @rx.var
    def evidence_flags(self) -> list[list[str]]:
        return [[key, label] for key, label in decisions.EVIDENCE_FLAGS.items()]

    @rx.var
    def reasons(self) -> list[list[str]]:
        return [[key, label] for key, label in decisions.REJECTION_REASONS.items()]

    @rx.var
    def approve_title(self) -> str:
        noun = "review" if self.approve_count == 1 else "reviews"
        return f"Approve {self.approve_count} {noun}?"

    @rx.var
    def exclude_title(self) -> str:
        noun = "review" if self.exclude_count == 1 else "reviews"
        return f"Exclude {self.exclude_count} {noun}?"

    @rx.var
    def exclude_text(self) -> str:
        one = self.exclude_count == 1
        money = table_rules.format_money(self.exclude_cents) or "$0"
        text = (
            f"The participant{'' if one else 's'} {'is' if one else 'are'} still paid: "
            f"{'its reward' if one else 'their rewards'}, {money}{'' if one else ' in all'}, "
            f"{'becomes' if one else 'become'} payable."
            if self.exclude_cents
            else f"{'It has' if one else 'They have'} no reward waiting to be paid."
        )
        text += f" {'It is' if one else 'They are'} left out of the results and exports by default."
        left = len(self.exclude_ids) - self.exclude_count
        if left > 0:
            text += (
                f" {left} of the {len(self.exclude_ids)} selected {'is' if left == 1 else 'are'} decided already "
                f"and stay{'s' if left == 1 else ''} as {'it is' if left == 1 else 'they are'}."
            )
        return text

    @rx.var
    def approve_text(self) -> str:
        money = table_rules.format_money(self.approve_cents) or "$0"
        one = self.approve_count == 1
        text = (
            f"{'Its reward' if one else 'Their rewards'}, {money}{'' if one else ' in all'}, "
            f"{'becomes' if one else 'become'} payable."
            if self.approve_cents
            else f"{'It has' if one else 'They have'} no reward waiting to be paid."
        )
        left = len(self.approve_ids) - self.approve_count
        if left > 0:
            text += (
                f" {left} of the {len(self.approve_ids)} selected {'is' if left == 1 else 'are'} decided already "
                f"and stay{'s' if left == 1 else ''} as {'it is' if left == 1 else 'they are'}."
            )
        return text
